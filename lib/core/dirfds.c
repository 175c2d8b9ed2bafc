/*
 * dirfds.c - the descriptors of open directories, within the limit.
 *
 * Every directory in flight holds two descriptors (source and copy). A
 * tree deeper than the descriptor limit allows would fail with EMFILE, so,
 * as fts does, a directory nobody is working in may give its descriptors
 * back while the job is over its budget, and is re-opened when work in it
 * comes back (its remaining entries, its finish). The ones given back are
 * ancestors of the work, a few levels up: the deepest levels, where the
 * work is, and the roots stay open.
 *
 * A re-open goes by name from the nearest ancestor still open, without
 * following any symlink (openat2 RESOLVE_NO_SYMLINKS; one call for many
 * levels), and the directory reached must be the very inode recorded when
 * it was first opened (source and copy): a directory renamed or swapped
 * meanwhile is reported, never followed.
 *
 * Workers pin the directory they work in (fcp_dir_pin): a pinned directory
 * is never closed. The pin count and the descriptors are under the
 * directory's own lock; a re-open takes an ancestor's lock while holding
 * the directory's, always in that order (child, then parent), so no two
 * workers can wait on each other.
 *
 * How many may be open at once is set once per job, with the number of
 * workers and their batch size, from the descriptor limit (fcp_dir_budget).
 */
#include "core/job.h"
#include "core/node.h"
#include "base/sys.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* How many levels above the pinned directory stay open: the siblings of
 * the work and its parents' are copied next. */
#define KEEP_BELOW 4
/* A re-open path is cut into pieces shorter than the kernel's PATH_MAX. */
#define PIECE_MAX (PATH_MAX - NAME_MAX - 2)

/* The directories open below the roots, and the most the budget lets
 * them be. */
struct fcp_dirfds_state {
	atomic_int open;
	int budget;
};

/* The roots and the pseudo-directories above them are never closed. */
static bool closable(const struct fcp_dir *d)
{
	return d->depth > 0;
}

void fcp_dir_fds_init(struct fcp_job *job, struct fcp_dir *d)
{
	pthread_mutex_init(&d->fd_lock, NULL);
	if (closable(d))
		atomic_fetch_add(&job->dirfds->open, 1);
}

static void close_fds(struct fcp_job *job, struct fcp_dir *d)
{
	if (d->src_fd < 0)
		return;
	close(d->src_fd);
	close(d->dst_fd);
	d->src_fd = d->dst_fd = -1;
	if (closable(d))
		atomic_fetch_sub(&job->dirfds->open, 1);
}

void fcp_dir_fds_release(struct fcp_job *job, struct fcp_dir *d)
{
	close_fds(job, d);
	pthread_mutex_destroy(&d->fd_lock);
}

/* Pin d if its descriptors are open. */
static bool pin_if_open(struct fcp_dir *d)
{
	bool open;

	if (!closable(d))
		return true;
	pthread_mutex_lock(&d->fd_lock);
	open = d->src_fd >= 0;
	d->users += open;
	pthread_mutex_unlock(&d->fd_lock);
	return open;
}

/* Open the directory x below the directory fd at (dst: the copies), by
 * the names in path, and check it is the one recorded. */
static int open_piece(struct fcp_job *job, int at, const char *path, const struct fcp_dir *x,
		      bool dst)
{
	bool follow = dst ? job->o->keep_dirlinks : job->o->symlinks == FCP_SYMLINKS_FOLLOW;
	struct statx st;
	int fd, r;

	/* Under --symlinks=follow a source directory may be reached through
	 * a symlink, as it was the first time, and under -K a copy
	 * (dirlink.h): then one level at a time. */
	fd = follow ? fcp_sys_openat(at, path, O_RDONLY | O_DIRECTORY, 0)
		    : fcp_sys_open_beneath(at, path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	r = fcp_sys_fstatx(fd, &st);
	if (r == 0 && (dst ? st.stx_ino != x->dst_ino || fcp_statx_dev(&st) != x->dst_dev
			   : !fcp_statx_same_inode(&st, &x->st)))
		r = -ESTALE;
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* Open d (one side) from the pinned ancestor a, whose descendants down to
 * d are chain[0..n) (chain[n - 1] == d). Returns the fd or -errno. */
static int reopen_side(struct fcp_job *job, const struct fcp_dir *a, struct fcp_dir **chain, int n,
		       bool dst)
{
	bool follow = dst ? job->o->keep_dirlinks : job->o->symlinks == FCP_SYMLINKS_FOLLOW;
	int at = dst ? a->dst_fd : a->src_fd, fd = -1;
	char path[PATH_MAX];

	for (int i = 0; i < n;) {
		size_t len = 0;
		int last = i;

		/* As many levels as fit one path (one, if following). */
		for (; i < n; i++) {
			const char *name = dst ? chain[i]->dst_name : chain[i]->name;
			size_t k = strlen(name);
			if (i > last && (follow || len + k + 1 > PIECE_MAX))
				break;
			if (len)
				path[len++] = '/';
			memcpy(path + len, name, k + 1);
			len += k;
		}
		fd = open_piece(job, at, path, chain[i - 1], dst);
		if (at != (dst ? a->dst_fd : a->src_fd))
			close(at);
		if (fd < 0)
			return fd;
		at = fd;
	}
	return fd;
}

/* d is locked and closed: open it again from its nearest open ancestor. */
static int reopen(struct fcp_job *job, struct fcp_dir *d)
{
	struct fcp_dir *a, **chain;
	int n = 0, s, t;

	for (a = d->parent; !pin_if_open(a); a = a->parent)
		n++;
	chain = malloc((n + 1) * sizeof(*chain));
	if (!chain) {
		fcp_dir_unpin(job, a);
		return -ENOMEM;
	}
	for (struct fcp_dir *x = d; x != a; x = x->parent)
		chain[n--] = x;
	n = d->depth - a->depth;
	s = reopen_side(job, a, chain, n, false);
	/* A --dry-run directory whose copy does not exist (no inode was
	 * recorded) has no copy to open. */
	t = s < 0 ? s : d->dst_ino ? reopen_side(job, a, chain, n, true) : -1;
	fcp_dir_unpin(job, a);
	free(chain);
	if (s < 0 || (t < 0 && d->dst_ino)) {
		if (s >= 0)
			close(s);
		return t;
	}
	d->src_fd = s;
	d->dst_fd = t;
	atomic_fetch_add(&job->dirfds->open, 1);
	return 0;
}

int fcp_dir_pin(struct fcp_job *job, struct fcp_dir *d)
{
	int r = 0;

	if (!closable(d))
		return 0;
	pthread_mutex_lock(&d->fd_lock);
	if (d->src_fd < 0)
		r = reopen(job, d);
	d->users += r == 0;
	pthread_mutex_unlock(&d->fd_lock);
	if (r < 0) {
		char *p = fcp_dir_src_path(d, NULL);
		/* The work in d fails with it: a new root copy without it is
		 * not whole (fcp_dest_unhide), and no deletions are made
		 * there. Counted here, once. */
		atomic_store(&d->failed_in, true);
		atomic_fetch_add(&d->root->failed, 1);
		if (d->root->adopted)
			atomic_store(&d->root->stale, true);
		atomic_fetch_add(&job->c.failed, 1);
		if (r == -ESTALE)
			fcp_report_errorf(job, "directory '%s' was replaced during the copy; "
				          "not followed", p ? p : d->name);
		else
			fcp_report_error(job, "cannot reopen directory", p ? p : d->name, r);
		free(p);
	}
	return r;
}

/* Close x if nobody works in it. */
static void try_close(struct fcp_job *job, struct fcp_dir *x)
{
	pthread_mutex_lock(&x->fd_lock);
	if (x->users == 0)
		close_fds(job, x);
	pthread_mutex_unlock(&x->fd_lock);
}

void fcp_dir_unpin(struct fcp_job *job, struct fcp_dir *d)
{
	struct fcp_dir *x = d;

	if (!closable(d))
		return;
	pthread_mutex_lock(&d->fd_lock);
	d->users--;
	pthread_mutex_unlock(&d->fd_lock);
	/* Over budget: the ancestors a few levels up give theirs back, from
	 * the nearest, until the job is within its budget again. (d is still
	 * alive: the caller holds one of its pending counts, and so d holds
	 * its parent, and so on up.) */
	if (atomic_load(&job->dirfds->open) <= job->dirfds->budget)
		return;
	for (int i = 0; i < KEEP_BELOW && closable(x); i++)
		x = x->parent;
	for (; closable(x) && atomic_load(&job->dirfds->open) > job->dirfds->budget; x = x->parent)
		try_close(job, x);
}

/* Deep or wide trees want many descriptors: the soft limit goes up to the
 * hard one. Returns the limit now in force. */
static long raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1024;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur > (1 << 20) ? 1 << 20 : (long)rl.rlim_cur;
}

/*
 * Descriptors, budgeted so that the limit is never met. Reserved: those
 * open already (stdio, inherited, the caller's) and a few more (DEST, open
 * once for all the operands), and per root copy of a directory the copy
 * kept for hard links and its two. A worker holds at most its ring, a large
 * file still landing, two pinned directories and a re-open's pieces, and
 * the sources and copies of one io_uring batch. Workers get three quarters
 * of the rest, which sets their number (fewer than asked, at a very low
 * limit) and their batch size; the directories open at once get the last
 * quarter (beyond it, fcp_dir_unpin gives back; a directory with a large
 * file landing in it is pinned and counts among them).
 */
#define FDS_RESERVED 16
#define FDS_PER_ROOT 3
#define FDS_PER_WORKER 10

/* Descriptors open already (inherited, or the caller's), as a reserve. */
static int fds_open_now(void)
{
	int fd = fcp_sys_openat(AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY, 0), n = 0;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (fcp_sys_readdir(dir, &de) > 0)
		n += de->d_name[0] != '.';
	closedir(dir);
	return n;
}

int fcp_dir_budget(struct fcp_job *job, int *threads, int *max, int dir_roots)
{
	long avail = raise_fd_limit() - fds_open_now() - FDS_RESERVED - (long)FDS_PER_ROOT * dir_roots;
	long workers = avail * 3 / 4, most = workers / (FDS_PER_WORKER + 2), per;
	int batch = FCP_BATCH_MAX;

	if (*threads > most)
		*threads = most > 1 ? (int)most : 1;
	while (batch > 1 && *threads * (FDS_PER_WORKER + 2L * batch) > workers)
		batch--;
	job->batch_max = batch;
	/* Workers the pool may add (sched.c) get theirs from the same
	 * share, at the same batch size. */
	per = FDS_PER_WORKER + 2L * batch;
	if (*max > *threads + (workers - *threads * per) / per)
		*max = *threads + (int)((workers - *threads * per) / per);
	if (*max < *threads)
		*max = *threads;
	avail -= *max * per;
	if (!(job->dirfds = calloc(1, sizeof(*job->dirfds))))
		return -ENOMEM;
	job->dirfds->budget = avail / 2 > 8 ? (int)(avail / 2) : 8;
	return 0;
}

void fcp_dirfds_free(struct fcp_job *job)
{
	free(job->dirfds);
	job->dirfds = NULL;
}
