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

struct fcp_srcmounts {
	pthread_mutex_t lock;
	bool placed;       /* mountinfo read, the fs paths sought */
	struct fcp_mounts tab;
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

char *fcp_srcmount_find(struct fcp_job *job, int fd, const struct statx *st, int flags,
			bool *holds)
{
	struct fcp_srcmounts *sm = job->srcmounts;
	struct statx own;
	unsigned major = 0, minor = 0;
	char *fs = NULL, *found = NULL;
	bool near = false;

	*holds = false;
	if (!sm || !sm->n)
		return NULL;
	if (!st) {
		if (fcp_sys_fstatx(fd, &own) < 0)
			return NULL;
		st = &own;
	}
	/* A mount shows its filesystem with its st_dev: a SOURCE on
	 * another filesystem is none of this (and mountinfo is not read). */
	for (int i = 0; i < sm->n && !near; i++)
		near = fcp_statx_dev(&sm->v[i].st) == fcp_statx_dev(st);
	if (!near)
		return NULL;
	pthread_mutex_lock(&sm->lock);
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
	free(fs);
	return found;
}
