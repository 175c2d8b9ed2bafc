/*
 * move.c - --move: a rename where one filesystem holds both sides, else
 * the copy the job made, then the source items whose copies are in place
 * are removed.
 *
 * A source item goes only once its copy is durable under its final name:
 * after the whole copy (never while workers still write), each copy is
 * compared with its source (the quick check: type, size, mtime; a
 * symlink's target, a device's number), its data and its directory are
 * fsync'ed, and only then is the source name removed; a source directory
 * goes once emptied. A regular file goes only where this run wrote,
 * cloned or linked its copy, or compared the content of the file that was
 * there equal to it (fcp_move_made): a file of the same name, size and
 * mtime but other bytes is no copy, and the quick check alone cannot tell.
 * That content is compared by reading both sides, never by a hash the
 * manifest recorded (plan.c); and a source whose times would not show a
 * change made while it was copied (fcp_statx_racy) is compared with its
 * copy byte for byte right before it goes.
 * A source that differs from its copy (it failed, was kept by -n, -u or
 * -i, or changed while it was copied) stays, and is named. A move that is
 * killed loses nothing: the same command again copies what is missing
 * (--move implies --sync: the killed run's hidden copy is taken up, the
 * finished files are compared) and removes what is left of the source.
 */
#include "core/job.h"
#include "core/node.h"
#include "base/sys.h"
#include "core/observe.h"
#include "core/tmpname.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOFOLLOW_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* A regular file's copy this run made or found equal: the source's inode,
 * the inode under the copy's name, and when (the order of the records,
 * times two, plus one where this run wrote that inode's data). */
struct made {
	uint64_t src_dev, src_ino, dst_dev, dst_ino, seq;
};

/* All of them, appended by the workers and sorted once for the prune. */
struct fcp_move_made {
	pthread_mutex_t lock;
	struct made *v;
	size_t n, cap;
	bool sorted;
	bool lost; /* one could not be recorded (memory): its source stays */
	/* The source entries a filter left out (fcp_move_left_out), and
	 * those whose copy failed (fcp_move_failed, fcp_move_keep): they
	 * stay, unnamed by the prune (a failure was named and counted where
	 * it happened), and so do the directories that hold them. */
	struct left { uint64_t dev, ino; } *left;
	size_t nleft, capleft;
	bool left_sorted;
	bool left_lost; /* one could not be recorded: nothing is removed */
	/* The mount points (/proc/self/mountinfo, read once): a directory
	 * that holds one is not renamed (fcp_move_rename). */
	char **mounts;
	size_t nmounts;
	bool mounts_read, mounts_unknown;
	/* -K: the directories copied into through a symlink in DEST. */
	struct left *followed;
	size_t nfollowed, capfollowed;
};

const char *fcp_move_conflict(const struct fcp_options *o)
{
	if (!o->move)
		return NULL;
	if (o->attributes_only)
		return "--attributes-only";
	if (o->make == FCP_MAKE_HARDLINK)
		return "-l (--link)";
	if (o->make == FCP_MAKE_SYMLINK)
		return "-s (--symbolic-link)";
	return NULL;
}

int fcp_move_init(struct fcp_job *job)
{
	if (!job->o->move)
		return 0;
	job->move_made = calloc(1, sizeof(*job->move_made));
	if (!job->move_made)
		return -ENOMEM;
	pthread_mutex_init(&job->move_made->lock, NULL);
	return 0;
}

void fcp_move_free(struct fcp_job *job)
{
	if (!job->move_made)
		return;
	pthread_mutex_destroy(&job->move_made->lock);
	free(job->move_made->v);
	free(job->move_made->left);
	for (size_t i = 0; i < job->move_made->nmounts; i++)
		free(job->move_made->mounts[i]);
	free(job->move_made->mounts);
	free(job->move_made->followed);
	free(job->move_made);
	job->move_made = NULL;
}

static void add(struct fcp_move_made *m, const struct made *k)
{
	pthread_mutex_lock(&m->lock);
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct made *v = realloc(m->v, cap * sizeof(*v));

		if (!v) {
			m->lost = true;
			pthread_mutex_unlock(&m->lock);
			return;
		}
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n] = *k;
	m->v[m->n].seq |= (uint64_t)m->n << 1;
	m->n++;
	m->sorted = false;
	pthread_mutex_unlock(&m->lock);
}

static void record(struct fcp_job *job, uint64_t src_dev, uint64_t src_ino, int dirfd,
		   const char *name, bool wrote)
{
	struct made k = { src_dev, src_ino, 0, 0, wrote };
	struct statx d;

	if (!job->move_made)
		return;
	/* Gone or replaced right away: its prune finds no copy of it. */
	if (fcp_sys_statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_INO, &d) < 0 ||
	    !S_ISREG(d.stx_mode))
		return;
	k.dst_dev = fcp_statx_dev(&d);
	k.dst_ino = d.stx_ino;
	add(job->move_made, &k);
}

void fcp_move_made(struct fcp_job *job, uint64_t src_dev, uint64_t src_ino, int dirfd,
		   const char *name)
{
	record(job, src_dev, src_ino, dirfd, name, true);
}

bool fcp_move_wrote(struct fcp_job *job, const struct statx *dst)
{
	struct fcp_move_made *m = job->move_made;
	uint64_t dev = fcp_statx_dev(dst);
	bool here = false;

	if (!m)
		return false;
	/* (Rare: only a re-run of a move of same-named SOURCEs asks.) */
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < m->n && !here; i++)
		here = m->v[i].dst_dev == dev && m->v[i].dst_ino == dst->stx_ino && (m->v[i].seq & 1);
	pthread_mutex_unlock(&m->lock);
	return here;
}

void fcp_move_found(struct fcp_job *job, uint64_t src_dev, uint64_t src_ino, int dirfd,
		    const char *name)
{
	record(job, src_dev, src_ino, dirfd, name, false);
}

/* Under m->lock: (dev, ino) stays in the source. */
static void keep_locked(struct fcp_move_made *m, uint64_t dev, uint64_t ino)
{
	if (m->nleft == m->capleft) {
		size_t cap = m->capleft ? m->capleft * 2 : 256;
		struct left *v = realloc(m->left, cap * sizeof(*v));

		m->left_lost |= !v;
		m->left = v ? v : m->left;
		m->capleft = v ? cap : m->capleft;
	}
	if (m->nleft < m->capleft) {
		m->left[m->nleft].dev = dev;
		m->left[m->nleft++].ino = ino;
		m->left_sorted = false;
	}
}

void fcp_move_left_out(struct fcp_job *job, int dirfd, const char *name)
{
	struct fcp_move_made *m = job->move_made;
	struct statx st;
	int r;

	if (!m)
		return;
	r = fcp_sys_statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_INO, &st);
	pthread_mutex_lock(&m->lock);
	/* Gone, it has nothing to keep; not known, it is not told apart from
	 * what may go. */
	if (r < 0 && r != -ENOENT)
		m->left_lost = true;
	if (r == 0)
		keep_locked(m, fcp_statx_dev(&st), st.stx_ino);
	pthread_mutex_unlock(&m->lock);
}

void fcp_move_failed(struct fcp_job *job, int dirfd, const char *name)
{
	struct fcp_move_made *m = job->move_made;
	struct statx st;

	/* Not told (gone, or it cannot be stat'ed): the prune meets it and
	 * names it as it finds it, a second time, but it stays all the same. */
	if (!m || dirfd < 0 || fcp_sys_statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_INO, &st) < 0)
		return;
	pthread_mutex_lock(&m->lock);
	keep_locked(m, fcp_statx_dev(&st), st.stx_ino);
	pthread_mutex_unlock(&m->lock);
}

void fcp_move_keep(struct fcp_job *job, const struct statx *st)
{
	struct fcp_move_made *m = job->move_made;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	keep_locked(m, fcp_statx_dev(st), st->stx_ino);
	pthread_mutex_unlock(&m->lock);
}

void fcp_move_followed(struct fcp_job *job, int fd)
{
	struct fcp_move_made *m = job->move_made;
	struct statx st;

	if (!m || fcp_sys_fstatx(fd, &st) < 0)
		return;
	pthread_mutex_lock(&m->lock);
	if (m->nfollowed == m->capfollowed) {
		size_t cap = m->capfollowed ? m->capfollowed * 2 : 16;
		struct left *v = realloc(m->followed, cap * sizeof(*v));

		m->followed = v ? v : m->followed;
		m->capfollowed = v ? cap : m->capfollowed;
	}
	/* Not recorded (memory): not followed by the prune, its sources stay. */
	if (m->nfollowed < m->capfollowed) {
		m->followed[m->nfollowed].dev = fcp_statx_dev(&st);
		m->followed[m->nfollowed++].ino = st.stx_ino;
	}
	pthread_mutex_unlock(&m->lock);
}

/* -K: the copy of source directory s is the directory d leads to, where
 * the copy followed that symlink (d is then that directory's statx);
 * else d stays as it is. A symlink the copy did not follow (refused: it
 * leads into a SOURCE) has nothing of the copy's inside. Asked by the one
 * thread that prunes. */
static bool followed_copy(struct fcp_job *job, const struct statx *s, int ddir,
			  const char *dname, struct statx *d)
{
	struct fcp_move_made *m = job->move_made;
	struct statx t;

	if (!job->o->keep_dirlinks || !m || !S_ISDIR(s->stx_mode) || !S_ISLNK(d->stx_mode) ||
	    fcp_sys_statx(ddir, dname, 0, STATX_BASIC_STATS, &t) < 0 || !S_ISDIR(t.stx_mode) ||
	    fcp_statx_same_inode(&t, s))
		return false;
	for (size_t i = 0; i < m->nfollowed; i++)
		if (m->followed[i].dev == fcp_statx_dev(&t) && m->followed[i].ino == t.stx_ino) {
			*d = t;
			return true;
		}
	return false;
}

static int cmp_left(const void *a, const void *b)
{
	const struct left *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Did a filter leave s out? (By inode: a hard link of an entry left out
 * stays with it.) Asked by the one thread that prunes. */
static bool left_out(struct fcp_job *job, const struct statx *s)
{
	struct fcp_move_made *m = job->move_made;
	struct left k = { fcp_statx_dev(s), s->stx_ino };

	if (!m || !m->nleft)
		return false;
	if (!m->left_sorted) {
		qsort(m->left, m->nleft, sizeof(*m->left), cmp_left);
		m->left_sorted = true;
	}
	return bsearch(&k, m->left, m->nleft, sizeof(*m->left), cmp_left) != NULL;
}

/* By the copy's inode, then in the order recorded. */
static int cmp_made(const void *a, const void *b)
{
	const struct made *x = a, *y = b;

	if (x->dst_dev != y->dst_dev)
		return x->dst_dev < y->dst_dev ? -1 : 1;
	if (x->dst_ino != y->dst_ino)
		return x->dst_ino < y->dst_ino ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

enum made_by { MADE, NOT_MADE, REPLACED };

/* Did this run make or find equal the copy d of source s, and did no
 * other source's data go into that inode after (several SOURCEs of one
 * name merge: a later one's file replaces, or with --in-place rewrites,
 * the copy of an earlier one's)? Asked after the copy, by the one thread
 * that prunes. */
static enum made_by made(struct fcp_job *job, const struct statx *s, const struct statx *d)
{
	struct fcp_move_made *m = job->move_made;
	uint64_t sdev = fcp_statx_dev(s), ddev = fcp_statx_dev(d);
	size_t lo = 0, hi;
	enum made_by by = NOT_MADE;

	if (!m || !m->n)
		return NOT_MADE;
	if (!m->sorted) {
		qsort(m->v, m->n, sizeof(*m->v), cmp_made);
		m->sorted = true;
	}
	for (hi = m->n; lo < hi;) { /* the first record of d's inode */
		size_t mid = lo + (hi - lo) / 2;
		const struct made *x = &m->v[mid];

		if (x->dst_dev < ddev || (x->dst_dev == ddev && x->dst_ino < d->stx_ino))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->n && m->v[lo].dst_dev == ddev && m->v[lo].dst_ino == d->stx_ino; lo++) {
		const struct made *x = &m->v[lo];

		if (x->src_dev == sdev && x->src_ino == s->stx_ino)
			by = MADE;
		else if (x->seq & 1)
			by = REPLACED;
	}
	return by;
}

/* cp's options that keep (-n, -u), ask about (-i) or back up (-b) a file
 * in the way: a rename would replace it unasked. */
static bool guarded(const struct fcp_options *o)
{
	return o->update != FCP_UPDATE_ALL || o->interactive || o->backup != FCP_BACKUP_NONE;
}

/* A mountinfo path with its octal escapes (\040 for a space) undone, in
 * place. */
static void unescape(char *p)
{
	char *w = p;

	for (; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*w++ = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
			p += 3;
		} else {
			*w++ = *p;
		}
	}
	*w = 0;
}

/* The fifth field of each line of /proc/self/mountinfo: where each mount
 * is, as this process's root sees it. False when they cannot be told. */
static bool read_mounts(struct fcp_move_made *m)
{
	int fd = fcp_sys_openat(AT_FDCWD, "/proc/self/mountinfo", O_RDONLY | O_CLOEXEC, 0);
	char *buf = NULL, *line, *save = NULL;
	const size_t max = 16 << 20; /* thousands of mounts take a few MB */
	ssize_t n = fd >= 0 ? fcp_sys_read_stream(fd, max, &buf) : fd;

	if (fd >= 0)
		close(fd);
	for (line = n > 0 ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f = line, *end, **v;

		for (int i = 0; i < 4 && f; i++)
			f = strchr(f, ' ') ? strchr(f, ' ') + 1 : NULL;
		if (!f || !(end = strchr(f, ' ')))
			break;
		*end = 0;
		unescape(f);
		if (!(v = realloc(m->mounts, (m->nmounts + 1) * sizeof(*v))) ||
		    !(v[m->nmounts] = strdup(f))) {
			m->mounts = v ? v : m->mounts;
			n = -ENOMEM;
			break;
		}
		m->mounts = v;
		m->nmounts++;
	}
	free(buf);
	return n > 0 && (size_t)n < max && !line; /* whole, every line read */
}

/* Is a mount point at or below directory src (a bind mount of the same
 * filesystem too)? A rename would carry it along, and what is on it is no
 * part of the move (see fcp_move_prune). Where it cannot be told: yes,
 * and the copy, which tells each mount point by its mount id, does it. */
static bool holds_mount(struct fcp_job *job, const char *src)
{
	struct fcp_move_made *m = job->move_made;
	char *real;
	size_t n;
	bool found = false;

	if (!m)
		return true;
	if (!m->mounts_read) {
		m->mounts_read = true;
		m->mounts_unknown = !read_mounts(m);
	}
	if (m->mounts_unknown || !(real = realpath(src, NULL)))
		return true;
	n = strcmp(real, "/") ? strlen(real) : 0;
	for (size_t i = 0; i < m->nmounts && !found; i++)
		found = !strncmp(m->mounts[i], real, n) &&
			(m->mounts[i][n] == '/' || (!m->mounts[i][n] && n));
	free(real);
	return found;
}

/* What lets a rename be tried at all: no link followed, no mount inside,
 * and what is there one a rename may replace, as mv's would. */
static bool renamable(struct fcp_job *job, const char *src, const struct statx *sst,
		      const struct statx *dstx)
{
	struct statx l;

	/* -L copies what every symlink in the tree points to, -H what a
	 * SOURCE that is one points to (sst is its target's): a rename would
	 * move the links as links. Copied, as across filesystems, each
	 * followed link stays in the source, named (prune). */
	if (job->o->symlinks == FCP_SYMLINKS_FOLLOW ||
	    (job->o->deref_args &&
	     (fcp_sys_statx(AT_FDCWD, src, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &l) < 0 ||
	      S_ISLNK(l.stx_mode))))
		return false;
	if (S_ISDIR(sst->stx_mode) && holds_mount(job, src))
		return false;
	if (dstx && S_ISDIR(dstx->stx_mode) != S_ISDIR(sst->stx_mode))
		return false; /* the copy reports it */
	if (dstx && !S_ISDIR(dstx->stx_mode) && guarded(job->o))
		return false; /* kept, asked about or backed up by the plan */
	return true;
}

bool fcp_move_would_rename(struct fcp_job *job, const char *src, const struct statx *sst,
			   int pfd, const char *name, const struct statx *dstx)
{
	uint64_t a, b;
	DIR *dir;
	int fd, r = 0, n = 0;

	if (!renamable(job, src, sst, dstx) ||
	    fcp_sys_mount_id(AT_FDCWD, src, AT_SYMLINK_NOFOLLOW, &a) < 0 ||
	    fcp_sys_mount_id(pfd, "", AT_EMPTY_PATH, &b) < 0 || a != b)
		return false;
	if (!dstx || !S_ISDIR(dstx->stx_mode))
		return true;
	/* A directory replaces only an empty one. */
	fd = fcp_sys_openat(pfd, name, NOFOLLOW_DIR, 0);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	for (struct dirent *de; (r = fcp_sys_readdir(dir, &de)) > 0;)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(dir);
	return r == 0 && n == 0;
}

bool fcp_move_rename(struct fcp_job *job, const char *src, const struct statx *sst, int pfd,
		     const char *name, const struct statx *dstx)
{
	int r;

	if (!renamable(job, src, sst, dstx))
		return false;
	if (!dstx)
		r = fcp_sys_renameat(AT_FDCWD, src, pfd, name, RENAME_NOREPLACE);
	else /* as mv: a file replaces a file, a directory an empty one */
		r = fcp_sys_renameat(AT_FDCWD, src, pfd, name, 0);
	/* Another filesystem (EXDEV), a non-empty directory in the way, no
	 * rename flags here, a mount point: the copy does it, item by item. */
	if (r < 0)
		return false;
	atomic_fetch_add(&job->c.moved, 1);
	if (job->obs_items)
		fcp_obs_record(job, FCP_OBS_MOVE, sst->stx_mode, src, 0, NULL, NULL);
	return true;
}

static bool same_time(const struct statx_timestamp *a, const struct statx_timestamp *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool same_target(int sdir, const char *sname, int ddir, const char *dname)
{
	char *a = NULL, *b = NULL;
	bool same = fcp_sys_readlinkat(sdir, sname, &a) >= 0 &&
		    fcp_sys_readlinkat(ddir, dname, &b) >= 0 && !strcmp(a, b);

	free(a);
	free(b);
	return same;
}

/* Is the non-directory copy (d, at dname in ddir) of source s whole? */
static bool copy_same(const struct statx *s, const struct statx *d, int sdir, const char *sname,
		      int ddir, const char *dname)
{
	if ((s->stx_mode & S_IFMT) != (d->stx_mode & S_IFMT))
		return false;
	switch (s->stx_mode & S_IFMT) {
	case S_IFREG:
		return s->stx_size == d->stx_size && same_time(&s->stx_mtime, &d->stx_mtime);
	case S_IFLNK:
		return same_target(sdir, sname, ddir, dname);
	case S_IFBLK:
	case S_IFCHR:
		return s->stx_rdev_major == d->stx_rdev_major &&
		       s->stx_rdev_minor == d->stx_rdev_minor;
	default:
		return true;
	}
}

/* Do the source file s (sname in sdir) and its copy d (dname in ddir)
 * hold the same bytes, read now from both? 1, 0 (or another file in
 * either place by now), or -errno of the read that failed. */
static int same_bytes(int sdir, const char *sname, const struct statx *s, int ddir,
		      const char *dname, const struct statx *d)
{
	const size_t cap = 1 << 20;
	char *a = malloc(cap), *b = malloc(cap);
	int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	struct statx x, y;
	int sfd = fcp_sys_open_regular(sdir, sname, flags, STATX_INO | STATX_SIZE, &x);
	int dfd = fcp_sys_open_regular(ddir, dname, flags, STATX_INO | STATX_SIZE, &y);
	int r = !a || !b ? -ENOMEM : sfd == -ENXIO || dfd == -ENXIO ? 0
				   : sfd < 0 ? sfd : dfd < 0 ? dfd : 1;

	if (r == 1 && (!fcp_statx_same_inode(&x, s) || !fcp_statx_same_inode(&y, d) ||
		       x.stx_size != y.stx_size))
		r = 0;
	for (off_t off = 0; r == 1;) {
		ssize_t n = fcp_sys_pread_full(sfd, a, cap, off);
		ssize_t m = n < 0 ? n : fcp_sys_pread_full(dfd, b, cap, off);

		if (n < 0 || m < 0)
			r = (int)(n < 0 ? n : m);
		else if (n != m || memcmp(a, b, (size_t)n))
			r = 0;
		else if (n == 0)
			break;
		off += n;
	}
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
	free(a);
	free(b);
	return r;
}

/* Make the copy's data durable (a symlink or special file has none of
 * its own: its directory's fsync covers it). */
static int sync_copy(int ddir, const char *dname, const struct statx *d)
{
	int fd, r;

	if (!S_ISREG(d->stx_mode))
		return 0;
	fd = fcp_sys_openat(ddir, dname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	r = fcp_sys_fsync(fd);
	close(fd);
	return r;
}

/* Was a symlink at this depth followed (-L; -H on the command line, where
 * no parent filesystem is known yet)? Its copy is what it points to. */
static bool followed(const struct fcp_job *job, uint64_t dev)
{
	return job->o->symlinks == FCP_SYMLINKS_FOLLOW || (!dev && job->o->deref_args);
}

static void kept(struct fcp_job *job, const char *path, const char *why, int err)
{
	if (err)
		fcp_report_error(job, why, path, err);
	else
		fcp_report_errorf(job, "not removing '%s': %s", path, why);
	atomic_fetch_add(&job->c.failed, 1);
}

static bool prune(struct fcp_job *job, int sdir, const char *sname, int ddir, const char *dname,
		  const char *path, uint64_t dev, uint64_t mnt, uint64_t dmnt);

#define NOT_ITS_COPY "what is at its destination is not its copy (kept there, or its copy failed)"

#define COPY_DIFFERS "its copy differs (it failed, or the source changed)"

/* Why a symlink or special file is not removed where what DEST holds is
 * not like it: under -n, -u or -i, most likely what was there was kept. */
static const char *differs(const struct fcp_job *job)
{
	return job->o->update != FCP_UPDATE_ALL || job->o->interactive
		       ? "what is at its destination differs (kept there by -n, -u or -i, "
			 "or its copy failed)"
		       : COPY_DIFFERS;
}

void fcp_move_dry_kept(struct fcp_job *job, const struct fcp_dir *d, const char *name,
		       const char *dst_name, mode_t mode)
{
	struct statx s, t;
	char *p;

	if (!job->o->move)
		return;
	/* A symlink or special file kept over its like goes, as in the
	 * prune: what is there is compared with it. */
	if (!S_ISREG(mode) &&
	    fcp_sys_statx(d->src_fd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &s) == 0 &&
	    fcp_sys_statx(d->dst_fd, dst_name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &t) == 0 &&
	    copy_same(&s, &t, d->src_fd, name, d->dst_fd, dst_name))
		return;
	/* The prune's words: a file's copy is looked up among those made,
	 * anything else is compared with what is there. */
	p = fcp_dir_src_path(d, name);
	kept(job, p ? p : name, S_ISREG(mode) ? NOT_ITS_COPY : differs(job), 0);
	free(p);
}

/* Empty source directory sfd into its copy dfd (durable first), entry by
 * entry. dev and mnt: sfd's filesystem and mount; dmnt: dfd's mount. */
static void prune_children(struct fcp_job *job, int sfd, int dfd, const char *path,
			   uint64_t dev, uint64_t mnt, uint64_t dmnt)
{
	int fd = fcp_sys_openat(sfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0), r;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		kept(job, path, "cannot read directory", fd < 0 ? fd : -ENOMEM);
		return;
	}
	/* The names in the copy are durable before any source name goes. */
	if ((r = fcp_sys_fsync(dfd)) < 0) {
		kept(job, path, "cannot sync the copy of", r);
		closedir(dir);
		return;
	}
	while (fcp_sys_readdir(dir, &de) > 0) {
		char *child = NULL;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (asprintf(&child, "%s/%s", path, de->d_name) < 0)
			child = NULL;
		prune(job, sfd, de->d_name, dfd, de->d_name, child ? child : de->d_name, dev, mnt,
		      dmnt);
		free(child);
	}
	closedir(dir);
}

static bool prune_dir(struct fcp_job *job, int sdir, const char *sname, int ddir,
		      const char *dname, const char *path, const struct statx *s,
		      const struct statx *d)
{
	int sfd = fcp_sys_openat(sdir, sname, NOFOLLOW_DIR, 0), dfd, r;
	struct statx now;
	uint64_t mnt, dmnt;

	if (sfd < 0) {
		kept(job, path, "cannot open directory", sfd);
		return false;
	}
	/* Still the directory looked at: a swap for a symlink or another
	 * tree in the meantime is not emptied. */
	if (fcp_sys_fstatx(sfd, &now) < 0 || !fcp_statx_same_inode(&now, s)) {
		close(sfd);
		kept(job, path, "it changed while it was moved", 0);
		return false;
	}
	/* (A symlink the copy followed, -K: the directory it leads to, the
	 * one it led to then.) */
	dfd = fcp_sys_openat(ddir, dname, NOFOLLOW_DIR & ~O_NOFOLLOW, 0);
	if (dfd >= 0 && (fcp_sys_fstatx(dfd, &now) < 0 || !fcp_statx_same_inode(&now, d))) {
		close(dfd);
		dfd = -ESTALE;
	}
	if (dfd < 0) {
		close(sfd);
		kept(job, path, "cannot open the copy of", dfd);
		return false;
	}
	/* Its mount, and its copy's, to know a mount point below either. */
	if (fcp_sys_mount_id(sfd, "", AT_EMPTY_PATH, &mnt) < 0 ||
	    fcp_sys_mount_id(dfd, "", AT_EMPTY_PATH, &dmnt) < 0) {
		close(sfd);
		close(dfd);
		kept(job, path, "cannot tell the mount of", -EOPNOTSUPP);
		return false;
	}
	prune_children(job, sfd, dfd, path, fcp_statx_dev(s), mnt, dmnt);
	close(dfd);
	close(sfd);
	/* Whatever stayed inside was named already. */
	r = fcp_sys_unlinkat(sdir, sname, AT_REMOVEDIR);
	if (r == 0 && job->obs_items)
		fcp_obs_record(job, FCP_OBS_MOVE, S_IFDIR, path, 0, NULL, NULL);
	if (r == 0)
		atomic_fetch_add(&job->c.moved, 1);
	else if (r != -ENOTEMPTY && r != -EEXIST)
		kept(job, path, "cannot remove directory", r);
	return r == 0;
}

/* Is s (sname in sdir) on another mount than its parent's (mnt)? Told
 * by mount id, not st_dev: a bind mount of the same filesystem below a
 * SOURCE (another directory of the disk, a container's volume) has its
 * parent's st_dev, and emptying it would remove what lies outside SOURCE.
 * Where the mount id cannot be told, it counts as another mount. */
static bool mount_point(const struct statx *s, int sdir, const char *sname, uint64_t mnt)
{
	uint64_t id;

	if (s->stx_mask & STATX_MNT_ID)
		return s->stx_mnt_id != mnt;
	return fcp_sys_mount_id(sdir, sname, AT_SYMLINK_NOFOLLOW, &id) < 0 || id != mnt;
}

/* Remove source sname of sdir (path, for messages) where its copy dname
 * of ddir is whole and durable; a directory once emptied. Never below a
 * mount point of the source (dev and mnt: the parent's filesystem and
 * mount; 0 for a SOURCE itself), nor where what stands for its copy is a
 * mount point inside DEST (dmnt: ddir's mount; 0 for DEST itself, which
 * may be one). */
static bool prune(struct fcp_job *job, int sdir, const char *sname, int ddir, const char *dname,
		  const char *path, uint64_t dev, uint64_t mnt, uint64_t dmnt)
{
	struct statx s, d;
	enum made_by by;
	bool untimed;
	int r;

	if (fcp_sys_statx(sdir, sname, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_MNT_ID,
			  &s) < 0)
		return false; /* gone: nothing to remove */
	/* Not chosen by the filters, or its copy failed (named and counted
	 * then, once): it stays where it is, unnamed here. */
	if (left_out(job, &s))
		return false;
	if (dev && (fcp_statx_dev(&s) != dev || mount_point(&s, sdir, sname, mnt))) {
		kept(job, path, "a mount point is not moved across", 0);
		return false;
	}
	if ((r = fcp_sys_statx(ddir, dname, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_MNT_ID,
			       &d)) < 0) {
		/* Pruned (-m): nothing in it was moved; it stays, unnamed. */
		if (r == -ENOENT && S_ISDIR(s.stx_mode) && job->o->prune_empty_dirs)
			return false;
		kept(job, path, "its copy is missing", 0);
		return false;
	}
	/* Nothing is copied into a mount point inside DEST (the copy said
	 * so), and what is found there is not this run's copy: a symlink or
	 * an empty directory there that looks the same is no reason to
	 * remove the source's, which may be the only one (a bind mount of
	 * the source itself). The same inode on both sides is the source. */
	if ((dmnt && mount_point(&d, ddir, dname, dmnt)) || fcp_statx_same_inode(&s, &d)) {
		kept(job, path, NOT_ITS_COPY, 0);
		return false;
	}
	if (S_ISDIR(s.stx_mode) && (S_ISDIR(d.stx_mode) || followed_copy(job, &s, ddir, dname, &d)))
		return prune_dir(job, sdir, sname, ddir, dname, path, &s, &d);
	/* Checked first: a file -n, -u or -i kept there may pass the quick
	 * check, and the message must not blame the source. */
	if (S_ISREG(s.stx_mode) && (by = made(job, &s, &d)) != MADE) {
		kept(job, path, by == REPLACED ? "what is at its destination is another SOURCE's "
		     "file of the same name" : NOT_ITS_COPY, 0);
		return false;
	}
	if (S_ISLNK(s.stx_mode) && !S_ISLNK(d.stx_mode) && followed(job, dev)) {
		kept(job, path, job->o->symlinks == FCP_SYMLINKS_FOLLOW
			     ? "a symlink followed (-L): what it points to was copied, not the "
			       "link, so the link stays"
			     : "a symlink on the command line followed (-H): what it points to "
			       "was copied, not the link, so the link stays", 0);
		return false;
	}
	/* Without the source's times (--no-preserve=timestamps) the copy's
	 * mtime is its own: the quick check's time says nothing, the bytes
	 * decide (below). */
	untimed = S_ISREG(s.stx_mode) && !(job->o->preserve & FCP_PRESERVE_TIMES);
	if (untimed ? (s.stx_mode & S_IFMT) != (d.stx_mode & S_IFMT) || s.stx_size != d.stx_size
		    : !copy_same(&s, &d, sdir, sname, ddir, dname)) {
		kept(job, path, S_ISREG(s.stx_mode) ? COPY_DIFFERS : differs(job), 0);
		return false;
	}
	if ((r = sync_copy(ddir, dname, &d)) < 0) {
		kept(job, path, "cannot sync the copy of", r);
		return false;
	}
	/* Times that would not show a change made while it was copied (a
	 * filesystem of whole seconds, FAT's ctime that is its mtime, a
	 * file written in the tick the copy read it), or that the copy does
	 * not keep: the quick check above proves nothing, so the source is
	 * compared with its copy byte for byte, as the copy stands durable,
	 * before it goes. */
	if (S_ISREG(s.stx_mode) && (untimed || fcp_statx_racy(&s, &job->began)) &&
	    (r = same_bytes(sdir, sname, &s, ddir, dname, &d)) != 1) {
		if (r < 0)
			kept(job, path, "cannot compare with its copy", r);
		else
			kept(job, path, COPY_DIFFERS, 0);
		return false;
	}
	r = fcp_sys_unlinkat(sdir, sname, 0);
	if (r < 0) {
		kept(job, path, "cannot remove", r);
		return false;
	}
	atomic_fetch_add(&job->c.moved, 1);
	if (job->obs_items)
		fcp_obs_record(job, FCP_OBS_MOVE, s.stx_mode, path, 0, NULL, NULL);
	return true;
}

/*
 * Once a source is removed, what its copy holds and the source lacks is
 * what the move took: a --delete after it (the same command run again to
 * finish the move, or a --mirror of what is left) would take those files
 * for extras and delete the only copy. So the copy is marked before the
 * first source goes, and the mark is made durable; a run that finds it
 * keeps such names (delete.c). The copy's own key makes a copy of the
 * copy (cp -a keeps user xattrs) unmarked. Where the run itself deleted
 * extras, it did so before this point (the prune follows the whole copy);
 * "h" says that some of its deletions were held back, so that a later run
 * that keeps what it finds there says that DEST may hold extras still.
 */
bool fcp_move_mark_moved(struct fcp_job *job, struct fcp_root *root, const char *src)
{
	char v[16];
	/* (An earlier run's "h" stays: its held-back extras may be there.) */
	bool held = atomic_load(&root->del_held) || atomic_load(&root->failed) ||
		    fcp_move_moved_at(root->dst_fd) == 2;
	int n = snprintf(v, sizeof(v), "%08x%s", fcp_tmpname_key(root->dst_fd), held ? "h" : "");
	int r = fcp_sys_fsetxattr(root->dst_fd, FCP_MOVED_MARKER, v, (size_t)n);

	if (r == 0)
		r = fcp_sys_fsync(root->dst_fd);
	if (r == 0 || !job->o->delete_extra)
		return true;
	fcp_report_errorf(job, "not removing the sources of '%s': its copy cannot be marked as "
			  "holding what they were (xattr %s: %s), and a run after this one "
			  "with --delete would take it for extras", src, FCP_MOVED_MARKER,
			  strerror(-r));
	atomic_fetch_add(&job->c.failed, 1);
	return false;
}

unsigned char fcp_move_moved_at(int fd)
{
	void *val = NULL;
	ssize_t n = fcp_sys_getxattr(fd, -1, NULL, FCP_MOVED_MARKER, &val);
	unsigned char moved = 0;
	char key[9];

	if (n >= 8) {
		snprintf(key, sizeof(key), "%08x", fcp_tmpname_key(fd));
		if (!memcmp(val, key, 8))
			moved = n > 8 && ((char *)val)[8] == 'h' ? 2 : 1;
	}
	free(val);
	return moved;
}

void fcp_move_prune(struct fcp_job *job, const char *src, int ddir, const char *dname)
{
	char *a = strdup(src), *b = strdup(src);
	size_t n = a && b ? strlen(a) : 0;
	int sdir, r;

	/* "dir/" is dir: basename() and dirname() would see "". */
	while (n > 1 && a[n - 1] == '/') {
		n--;
		a[n] = b[n] = 0;
	}
	if (!a || !b) {
		kept(job, src, "out of memory at", -ENOMEM);
		goto out;
	}
	sdir = fcp_sys_openat(AT_FDCWD, dirname(a), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (sdir < 0) {
		kept(job, src, "cannot open the directory of", sdir);
		goto out;
	}
	/* Said once: the sources it concerns are named one by one. */
	if (job->move_made && job->move_made->lost) {
		fcp_report_errorf(job, "out of memory: sources whose copies were made stay");
		job->move_made->lost = false;
	}
	if (job->move_made && job->move_made->left_lost) {
		kept(job, src, "what the filters left out could not all be recorded (out of "
		     "memory, or an entry that could not be stat'ed)", 0);
		close(sdir);
		goto out;
	}
	/* The copy's own name in the destination directory is durable first. */
	if ((r = fcp_sys_fsync(ddir)) < 0)
		kept(job, src, "cannot sync the destination of", r);
	else
		prune(job, sdir, basename(b), ddir, dname, src, 0, 0, 0);
	close(sdir);
out:
	free(a);
	free(b);
}
