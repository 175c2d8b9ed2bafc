/*
 * srcmount.c - a SOURCE directory (or file) mounted inside DEST
 * (srcmount.h).
 *
 * A DEST directory asked about is first compared by inode: the SOURCE's
 * own, or (on a SOURCE's filesystem) its file handle opened through the
 * SOURCE's mount, where /proc/self/fd names it below the SOURCE; likewise
 * the SOURCE's opened through the directory's mount, below it (holds).
 * That needs no mountinfo, whose paths a chroot makes useless. Where it
 * tells nothing (no handles: not root, a user namespace, a filesystem
 * without them), each SOURCE and the DEST directory get their paths in
 * their filesystem: the mount's root joined with what lies below the
 * mount point (mounts.h). Two such paths of one filesystem, one inside
 * the other, are a candidate. Either way the same inode reached from the
 * other side (the SOURCE's path joined with what lies below it, or the
 * DEST directory's) proves it, so that neither a stale mountinfo nor a
 * rename since nor an unusual filesystem's numbering makes a refusal of
 * what is no SOURCE.
 */
#include "tree/srcmount.h"
#include "base/mounts.h"
#include "base/path.h"
#include "base/sys.h"
#include "core/node.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct src {
	char *path;        /* as the command line names it */
	struct statx st;   /* before anything was copied */
	uint64_t mnt;      /* its mount */
	int sflags;        /* how it is stat'ed (-H, -L) */
	char *fs;          /* its path in its filesystem, or NULL: unknown */
	unsigned major, minor; /* that filesystem (mountinfo's numbers) */
};

/* The last answer: every SOURCE asks about DEST's own directory (job.c),
 * which is one directory; thousands of them must not each compare it
 * with all the others. Keyed by the mount too: under
 * FCP_SRCMOUNT_HIDDEN the answer depends on the way up from the
 * directory, which differs where a bind mount shows it elsewhere. */
struct asked {
	bool valid;
	uint64_t dev, ino, mnt;
	int flags;
	char *found;       /* NULL: none */
	bool holds;
};

struct fcp_srcmounts {
	pthread_mutex_t lock;
	bool placed;       /* mountinfo read, the fs paths sought */
	struct fcp_mounts tab;
	struct asked last;
	/* File handles cannot tell here (not permitted, a SOURCE's
	 * filesystem has none, no /proc): not tried again. */
	atomic_bool blind;
	/* The SOURCEs' filesystems (st_dev), where they are few: a mount
	 * shows its filesystem with its st_dev, so a directory on another
	 * one is none of this, told without a look at the SOURCEs. */
	uint64_t devs[8];
	int ndevs;         /* -1: more than that */
	/* Their mounts, likewise: DEST's own directory on the mount of
	 * every SOURCE is inside one only where ".." leads there. */
	uint64_t mnts[8];
	int nmnts;
	int n;
	struct src v[];
};

bool fcp_dir_inside(int dir, const struct statx *src)
{
	int fd = fcp_sys_openat(dir, ".", O_PATH | O_DIRECTORY, 0);

	while (fd >= 0) {
		struct statx cur, up;
		int next;

		if (fcp_sys_fstatx(fd, &cur) < 0)
			break;
		if (fcp_statx_same_inode(&cur, src)) {
			close(fd);
			return true;
		}
		next = fcp_sys_openat(fd, "..", O_PATH | O_DIRECTORY, 0);
		close(fd);
		fd = next;
		if (fd >= 0 && fcp_sys_fstatx(fd, &up) == 0 && fcp_statx_same_inode(&up, &cur))
			break; /* ".." of the root is the root */
	}
	if (fd >= 0)
		close(fd);
	return false;
}

bool fcp_srcmount_point(int parent, int fd, const struct statx *st)
{
	uint64_t up, here;

	if (st->stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
		return st->stx_attributes & STATX_ATTR_MOUNT_ROOT;
	return parent >= 0 && fcp_sys_mount_id(parent, "", AT_EMPTY_PATH, &up) == 0 &&
	       fcp_sys_mount_id(fd, "", AT_EMPTY_PATH, &here) == 0 && up != here;
}

/* v (of *n, at most 8; -1: more) notes x. */
static void note(uint64_t v[8], int *n, uint64_t x)
{
	int i;

	for (i = 0; i < *n && v[i] != x; i++)
		;
	if (*n < 0 || i < *n)
		return;
	if (*n == 8)
		*n = -1;
	else
		v[(*n)++] = x;
}

static bool noted(const uint64_t v[8], int n, uint64_t x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return n < 0;
}

int fcp_srcmount_init(struct fcp_job *job, char *const *srcs, int nsrc)
{
	int sflags = fcp_job_follows_args(job) ? 0 : AT_SYMLINK_NOFOLLOW;
	struct fcp_srcmounts *sm;

	/* --check writes nothing: no copy can land in a SOURCE. */
	if (job->o->check)
		return 0;
	if (!(sm = calloc(1, sizeof(*sm) + (size_t)nsrc * sizeof(sm->v[0]))))
		return -ENOMEM;
	pthread_mutex_init(&sm->lock, NULL);
	job->srcmounts = sm;
	for (int i = 0; i < nsrc; i++) {
		struct src *s = &sm->v[sm->n];

		/* One that cannot be stat'ed is not copied (job.c says so);
		 * a symlink not followed is copied as a symlink. */
		if (fcp_sys_statx(AT_FDCWD, srcs[i], sflags, STATX_BASIC_STATS | STATX_MNT_ID,
				  &s->st) < 0 || S_ISLNK(s->st.stx_mode))
			continue;
		if (s->st.stx_mask & STATX_MNT_ID)
			s->mnt = s->st.stx_mnt_id;
		else if (fcp_sys_mount_id(AT_FDCWD, srcs[i], sflags, &s->mnt) < 0)
			continue;
		if (!(s->path = strdup(srcs[i])))
			return -ENOMEM;
		s->sflags = sflags;
		sm->n++;
		note(sm->devs, &sm->ndevs, fcp_statx_dev(&s->st));
		note(sm->mnts, &sm->nmnts, s->mnt);
	}
	return 0;
}

void fcp_srcmount_free(struct fcp_job *job)
{
	struct fcp_srcmounts *sm = job->srcmounts;

	if (!sm)
		return;
	for (int i = 0; i < sm->n; i++) {
		free(sm->v[i].path);
		free(sm->v[i].fs);
	}
	fcp_mounts_free(&sm->tab);
	free(sm->last.found);
	pthread_mutex_destroy(&sm->lock);
	free(sm);
	job->srcmounts = NULL;
}

/* The SOURCEs' paths in their filesystems, where each is still what it
 * was (a SOURCE moved whole by --move is no longer there to protect).
 * Under the lock. */
static void place(struct fcp_srcmounts *sm)
{
	sm->placed = true;
	if (fcp_mounts_read(&sm->tab) < 0)
		return;
	for (int i = 0; i < sm->n; i++) {
		struct src *s = &sm->v[i];
		const struct fcp_mount *m = fcp_mounts_find(&sm->tab, s->mnt);
		char real[PATH_MAX];
		struct statx now;

		if (!m || !realpath(s->path, real) ||
		    fcp_sys_statx(AT_FDCWD, real, 0, STATX_BASIC_STATS, &now) < 0 ||
		    !fcp_statx_same_inode(&now, &s->st))
			continue;
		s->fs = fcp_mount_fs_path(m, real);
		s->major = m->major;
		s->minor = m->minor;
	}
}

/* The path of fd, as this process names it (malloc'd), or NULL. */
static char *fd_path(int fd)
{
	char proc[64], *at = NULL;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (fcp_sys_readlinkat(AT_FDCWD, proc, &at) < 0 || at[0] != '/') {
		free(at);
		return NULL;
	}
	return at;
}

/* fd's path in its filesystem, and that filesystem (malloc'd; NULL where
 * it cannot be told). Under the lock. */
static char *fs_path(struct fcp_srcmounts *sm, int fd, unsigned *major, unsigned *minor)
{
	const struct fcp_mount *m;
	char *at, *fs;
	uint64_t id;

	if (fcp_sys_mount_id(fd, "", AT_EMPTY_PATH, &id) < 0)
		return NULL;
	/* A mount made since mountinfo was read: read again. */
	if (!(m = fcp_mounts_find(&sm->tab, id)) &&
	    (fcp_mounts_read(&sm->tab) < 0 || !(m = fcp_mounts_find(&sm->tab, id))))
		return NULL;
	if (!(at = fd_path(fd)))
		return NULL;
	fs = fcp_mount_fs_path(m, at);
	*major = m->major;
	*minor = m->minor;
	free(at);
	return fs;
}

/* Is what path (in dirfd, not followed past flags) names the inode st? */
static bool is_inode(int dirfd, const char *path, int flags, const struct statx *st)
{
	struct statx at;

	return fcp_sys_statx(dirfd, path, flags, STATX_BASIC_STATS, &at) == 0 &&
	       fcp_statx_same_inode(&at, st);
}

/* The SOURCE s joined with below, what lies below it ("" for s itself),
 * where that names fd's inode (st): malloc'd, or NULL. */
static char *source_below(const struct src *s, int fd, const char *below, const struct statx *st,
			  int flags)
{
	char *path;

	if (*below && !S_ISDIR(s->st.stx_mode))
		return NULL;
	if (!*below) {
		path = fcp_statx_same_inode(st, &s->st) ? strdup(s->path) : NULL;
	} else {
		path = fcp_path_join(s->path, below);
		if (path && !is_inode(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, st)) {
			free(path);
			path = NULL;
		}
	}
	/* DEST's own directory plainly inside a SOURCE is left to the
	 * "into itself" refusal, which names it so. */
	if (path && (flags & FCP_SRCMOUNT_HIDDEN) && S_ISDIR(s->st.stx_mode) &&
	    fcp_dir_inside(fd, &s->st)) {
		free(path);
		path = NULL;
	}
	return path;
}

/* The SOURCE s, or what of it fd is (fs: fd's path in its filesystem),
 * proved by its inode: malloc'd, or NULL. */
static char *inside_source(const struct src *s, int fd, const char *fs, const struct statx *st,
			   int flags)
{
	const char *below = fcp_path_under(fs, s->fs);

	return below ? source_below(s, fd, below, st, flags) : NULL;
}

/* Does the directory fd (fs: its path in its filesystem) hold the SOURCE
 * s below it, proved by its inode? */
static bool holds_source(const struct src *s, int fd, const char *fs)
{
	const char *below = fcp_path_under(s->fs, fs);

	return below && *below && is_inode(fd, below, s->sflags, &s->st);
}

/* What of fd's inode lies below the directory base, as their filesystem
 * places it: fd opened again through base's mount by its file handle
 * (sys.h), and both named there. "" for base itself, "c/d" (malloc'd);
 * NULL where it is not below base, or cannot be told this way (then
 * sm->blind is set where that holds for every question: no handles, no
 * /proc). */
static char *below_through(struct fcp_srcmounts *sm, int base, int fd)
{
	int h = fcp_sys_reopen_through(base, fd, O_PATH);
	char *pb, *ph, *out = NULL;
	const char *below;

	if (h == -EPERM || h == -EACCES || h == -ENOSYS || h == -EOPNOTSUPP)
		atomic_store(&sm->blind, true);
	if (h < 0)
		return NULL;
	pb = fd_path(base);
	ph = fd_path(h);
	if (!pb)
		atomic_store(&sm->blind, true);
	if (pb && ph && (below = fcp_path_under(ph, pb)))
		out = strdup(below);
	free(pb);
	free(ph);
	close(h);
	return out;
}

/* The SOURCE s opened (O_PATH), if it is still what it was. */
static int open_source(const struct src *s)
{
	int fd = fcp_sys_openat(AT_FDCWD, s->path,
				O_PATH | O_CLOEXEC | (s->sflags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0),
				0);
	struct statx now;

	if (fd >= 0 && (fcp_sys_fstatx(fd, &now) < 0 || !fcp_statx_same_inode(&now, &s->st))) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * The SOURCE s, or what of it fd is, or (*holds) s below fd, told by
 * inodes and not by mountinfo's paths, which in a chroot whose root is no
 * mount point name what lies outside it, or nothing: a bind mount of s
 * has s's st_dev and st_ino; one of a directory inside s, or of one
 * holding s, is placed by a file handle opened through the other's
 * mount. Malloc'd, or NULL: none, or not to be told so (mountinfo is
 * asked then).
 */
static char *by_inode(struct fcp_srcmounts *sm, const struct src *s, int fd,
		      const struct statx *st, int flags, bool *holds)
{
	bool inside = S_ISDIR(s->st.stx_mode),
	     holder = (flags & FCP_SRCMOUNT_HOLDS) && S_ISDIR(st->stx_mode);
	char *below = NULL, *found = NULL;
	int sfd;

	if (fcp_statx_same_inode(st, &s->st))
		return source_below(s, fd, "", st, flags);
	if (!(inside || holder) || atomic_load(&sm->blind) ||
	    fcp_statx_dev(st) != fcp_statx_dev(&s->st) || (sfd = open_source(s)) < 0)
		return NULL;
	if (inside && (below = below_through(sm, sfd, fd)) && *below)
		found = source_below(s, fd, below, st, flags);
	free(below);
	if (!found && holder && (below = below_through(sm, fd, sfd))) {
		if (*below && is_inode(fd, below, s->sflags, &s->st))
			found = strdup(s->path);
		*holds = found != NULL;
		free(below);
	}
	close(sfd);
	return found;
}

/* st's mount, as a key (0: not asked). */
static uint64_t mnt_of(const struct statx *st)
{
	return st->stx_mask & STATX_MNT_ID ? st->stx_mnt_id : 0;
}

/* Was st asked about with flags just before? Its answer, copied, into
 * *found (NULL: none). Under the lock. */
static bool asked_before(const struct fcp_srcmounts *sm, const struct statx *st, int flags,
			 char **found, bool *holds)
{
	const struct asked *a = &sm->last;

	if (!a->valid || a->dev != fcp_statx_dev(st) || a->ino != st->stx_ino ||
	    a->mnt != mnt_of(st) || a->flags != flags)
		return false;
	*found = a->found ? strdup(a->found) : NULL;
	*holds = a->holds;
	return !a->found || *found;
}

static void remember(struct fcp_srcmounts *sm, const struct statx *st, int flags,
		     const char *found, bool holds)
{
	struct asked *a = &sm->last;

	free(a->found);
	*a = (struct asked){ .dev = fcp_statx_dev(st), .ino = st->stx_ino, .mnt = mnt_of(st),
			     .flags = flags, .found = found ? strdup(found) : NULL, .holds = holds };
	a->valid = (!found || a->found) && (a->mnt || !(flags & FCP_SRCMOUNT_HIDDEN));
}

char *fcp_srcmount_find(struct fcp_job *job, int fd, const struct statx *st, int flags,
			bool *holds)
{
	struct fcp_srcmounts *sm = job->srcmounts;
	struct statx own;
	unsigned major = 0, minor = 0;
	char *fs = NULL, *found = NULL;

	*holds = false;
	if (!sm || !sm->n)
		return NULL;
	if (!st) {
		if (fcp_sys_fstatx(fd, &own) < 0)
			return NULL;
		st = &own;
	}
	/* (mountinfo is then not read at all) */
	if (!noted(sm->devs, sm->ndevs, fcp_statx_dev(st)) ||
	    ((flags & FCP_SRCMOUNT_HIDDEN) && (st->stx_mask & STATX_MNT_ID) && sm->nmnts == 1 &&
	     sm->mnts[0] == st->stx_mnt_id))
		return NULL;
	pthread_mutex_lock(&sm->lock);
	if (asked_before(sm, st, flags, &found, holds)) {
		pthread_mutex_unlock(&sm->lock);
		return found;
	}
	pthread_mutex_unlock(&sm->lock);
	/* Told by inodes first; by mountinfo's paths where they cannot
	 * tell (no file handles here). The fields of a SOURCE read below
	 * are not written after place(). */
	for (int i = 0; i < sm->n && !found; i++)
		found = by_inode(sm, &sm->v[i], fd, st, flags, holds);
	if (!found) {
		pthread_mutex_lock(&sm->lock);
		if (!sm->placed)
			place(sm);
		fs = fs_path(sm, fd, &major, &minor);
		pthread_mutex_unlock(&sm->lock);
	}
	for (int i = 0; fs && i < sm->n && !found; i++) {
		const struct src *s = &sm->v[i];

		if (!s->fs || s->major != major || s->minor != minor)
			continue;
		found = inside_source(s, fd, fs, st, flags);
		if (!found && (flags & FCP_SRCMOUNT_HOLDS) && S_ISDIR(st->stx_mode) &&
		    holds_source(s, fd, fs)) {
			found = strdup(s->path);
			*holds = found != NULL;
		}
	}
	/* An answer told, by either way, is kept for the next question:
	 * every SOURCE asks about DEST's own directory. */
	pthread_mutex_lock(&sm->lock);
	if (fs || found || !atomic_load(&sm->blind))
		remember(sm, st, flags, found, *holds);
	pthread_mutex_unlock(&sm->lock);
	free(fs);
	return found;
}
