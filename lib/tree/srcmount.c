/*
 * srcmount.c - a SOURCE directory (or file) mounted inside DEST
 * (srcmount.h).
 *
 * Each SOURCE and each DEST directory asked about gets its path in its
 * filesystem: its mount's root joined with what lies below the mount
 * point (mounts.h). Two such paths of one filesystem, one inside the
 * other, are a candidate; the same inode reached from the other side (the
 * SOURCE's path joined with what lies below it, or the DEST directory's)
 * proves it, so that neither a stale mountinfo nor a rename since nor an
 * unusual filesystem's numbering makes a refusal of what is no SOURCE.
 */
#include "tree/srcmount.h"
#include "base/mounts.h"
#include "base/path.h"
#include "base/sys.h"
#include "core/node.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
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

/* fd's path in its filesystem, and that filesystem (malloc'd; NULL where
 * it cannot be told). Under the lock. */
static char *fs_path(struct fcp_srcmounts *sm, int fd, unsigned *major, unsigned *minor)
{
	const struct fcp_mount *m;
	char proc[64], *at = NULL, *fs;
	uint64_t id;

	if (fcp_sys_mount_id(fd, "", AT_EMPTY_PATH, &id) < 0)
		return NULL;
	/* A mount made since mountinfo was read: read again. */
	if (!(m = fcp_mounts_find(&sm->tab, id)) &&
	    (fcp_mounts_read(&sm->tab) < 0 || !(m = fcp_mounts_find(&sm->tab, id))))
		return NULL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (fcp_sys_readlinkat(AT_FDCWD, proc, &at) < 0 || at[0] != '/') {
		free(at);
		return NULL;
	}
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

/* The SOURCE s, or what of it fd is (fs: fd's path in its filesystem),
 * proved by its inode: malloc'd, or NULL. */
static char *inside_source(const struct src *s, int fd, const char *fs, const struct statx *st,
			   int flags)
{
	const char *below = fcp_path_under(fs, s->fs);
	char *path;

	if (!below || (*below && !S_ISDIR(s->st.stx_mode)))
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

/* Does the directory fd (fs: its path in its filesystem) hold the SOURCE
 * s below it, proved by its inode? */
static bool holds_source(const struct src *s, int fd, const char *fs)
{
	const char *below = fcp_path_under(s->fs, fs);

	return below && *below && is_inode(fd, below, s->sflags, &s->st);
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
	if (!sm->placed)
		place(sm);
	fs = fs_path(sm, fd, &major, &minor);
	pthread_mutex_unlock(&sm->lock);
	/* The fields read below are not written after place(). */
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
	pthread_mutex_lock(&sm->lock);
	if (fs)
		remember(sm, st, flags, found, *holds);
	pthread_mutex_unlock(&sm->lock);
	free(fs);
	return found;
}
