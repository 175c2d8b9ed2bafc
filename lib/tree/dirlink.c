/*
 * dirlink.c - --keep-directory-symlink: the symlinks in DEST that lead to
 * directories, followed where SOURCE has a directory (dirlink.h).
 *
 * Whether a followed symlink leads into a SOURCE, or to a directory that
 * holds one, is told by inodes, walking up by "..", as job.c tells a
 * directory copied into itself: spelling, symlinks and bind mounts in the
 * paths do not fool it. A bind mount has a ".." of its own, though: above
 * it is where it is mounted, not what is above it in its filesystem. A
 * walk that passes through another mount of the filesystem it looks for
 * proves nothing, and the symlink is not followed.
 */
#include "tree/dirlink.h"
#include "core/node.h"
#include "base/sys.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A directory, and the mount it was reached by. */
struct place {
	uint64_t dev, ino, mnt;
};

/* A SOURCE: the directory it is, or, for one of another type, the
 * directory that holds it (what a followed symlink must not lead to or
 * above); path reaches that directory (the working directory stays). */
struct src {
	struct place at;
	bool dir;
	char *path;
};

struct fcp_dirlinks {
	int n;
	struct src v[];
};

static int identify(int fd, struct place *p)
{
	struct statx st;
	int r = fcp_sys_statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_MNT_ID, &st);

	if (r < 0)
		return r;
	p->dev = fcp_statx_dev(&st);
	p->ino = st.stx_ino;
	if (st.stx_mask & STATX_MNT_ID) {
		p->mnt = st.stx_mnt_id;
		return 0;
	}
	return fcp_sys_mount_id(fd, "", AT_EMPTY_PATH, &p->mnt);
}

enum { APART, MEETS, UNSURE };

/* Walk up from the directory fd (closed here) by "..", which no symlink
 * redirects: MEETS where it passes the directory to, APART where it
 * reaches the root without. strict: UNSURE where it passes through
 * another mount of to's filesystem first (see the top of the file), or
 * cannot go on. */
static int walk_up(int fd, const struct place *to, bool strict)
{
	struct place at, prev = { 0 };
	int r = UNSURE;

	for (int i = 0; fd >= 0 && i < 4096; i++) {
		int up;

		if (identify(fd, &at) < 0)
			break;
		if (at.dev == to->dev && at.ino == to->ino) {
			r = MEETS;
			break;
		}
		if (strict && at.dev == to->dev && at.mnt != to->mnt)
			break;
		if (i && at.dev == prev.dev && at.ino == prev.ino) {
			r = APART; /* ".." of the root is the root */
			break;
		}
		prev = at;
		up = fcp_sys_openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		close(fd);
		fd = up;
	}
	if (fd >= 0)
		close(fd);
	return strict || r != UNSURE ? r : APART;
}

static int walk_up_from(int dirfd, const char *path, const struct place *to, bool strict)
{
	int fd = fcp_sys_openat(dirfd, path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);

	return fd < 0 ? UNSURE : walk_up(fd, to, strict);
}

/* The directory holding path ("." for a bare name). */
static char *holder(const char *path)
{
	char *copy = strdup(path), *d;

	if (!copy)
		return NULL;
	d = strdup(dirname(copy));
	free(copy);
	return d;
}

const char *fcp_dirlink_conflict(const struct fcp_options *o)
{
	/* --check looks for extras as --delete would (check.h): it reads. */
	if (!o->keep_dirlinks || !o->delete_extra || o->check)
		return NULL;
	return "--keep-directory-symlink (-K) cannot be combined with --delete, --mirror or "
	       "--delete-excluded: fastcp deletes nothing outside DEST's own tree, and a "
	       "directory reached through a symlink is outside it; to mirror into that "
	       "directory, give it as DEST";
}

int fcp_dirlink_init(struct fcp_job *job, char *const *srcs, int nsrc)
{
	int sflags = fcp_job_follows_args(job) ? 0 : AT_SYMLINK_NOFOLLOW;
	struct fcp_dirlinks *dl;

	if (!job->o->keep_dirlinks)
		return 0;
	dl = calloc(1, sizeof(*dl) + (size_t)nsrc * sizeof(dl->v[0]));
	if (!dl)
		return -ENOMEM;
	job->dirlinks = dl;
	for (int i = 0; i < nsrc; i++) {
		struct src *s = &dl->v[dl->n];
		struct statx st;
		int fd;

		/* One that is not there has no copy to protect it from. */
		if (fcp_sys_statx(AT_FDCWD, srcs[i], sflags, STATX_TYPE, &st) < 0)
			continue;
		s->dir = S_ISDIR(st.stx_mode);
		s->path = s->dir ? strdup(srcs[i]) : holder(srcs[i]);
		if (!s->path)
			return -ENOMEM;
		fd = fcp_sys_openat(AT_FDCWD, s->path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		if (fd >= 0 && identify(fd, &s->at) == 0)
			dl->n++;
		else
			free(s->path);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

void fcp_dirlink_free(struct fcp_job *job)
{
	struct fcp_dirlinks *dl = job->dirlinks;

	for (int i = 0; dl && i < dl->n; i++)
		free(dl->v[i].path);
	free(dl);
	job->dirlinks = NULL;
}

#define NOT_SURE "not followed, a symlink onto another mount of a SOURCE's filesystem " \
		 "(a bind mount may lead into it):"

/* Why the directory fd, which e's name in DEST leads to, must not be
 * copied into, or NULL. */
static const char *refused(const struct fcp_entry *e, int fd)
{
	const struct fcp_dirlinks *dl = e->job->dirlinks;
	struct place t;
	int r;

	if (identify(fd, &t) < 0)
		return "not followed, cannot tell where it leads: symlink";
	/* The copy would go round: the source directory's entries into the
	 * directory that holds it, and its own name there again. */
	if (walk_up_from(e->d->dst_fd, ".", &t, false) == MEETS)
		return "not followed, a symlink to the directory it is in, or one above it:";
	for (int i = 0; i < dl->n; i++) {
		const struct src *s = &dl->v[i];

		if (s->dir && (r = walk_up_from(fd, ".", &s->at, true)) != APART)
			return r == MEETS ? "not followed, a symlink into a SOURCE:" : NOT_SURE;
		if ((r = walk_up_from(AT_FDCWD, s->path, &t, true)) != APART)
			return r == MEETS ? "not followed, a symlink to a directory that holds a "
					    "SOURCE:" : NOT_SURE;
	}
	return NULL;
}

int fcp_dirlink_open(struct fcp_entry *e)
{
	const struct fcp_dir *d = e->d;
	struct statx st;
	const char *why;
	int fd;

	/* In a directory this job made, or a stopped run's copy taken up, a
	 * symlink is the copy of a SOURCE's, not one of DEST's own. */
	if (!e->job->dirlinks || d->dst_fd < 0 || d->made || (d->root && d->root->adopted) ||
	    fcp_sys_statx(d->dst_fd, e->dst_name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) < 0 ||
	    !S_ISLNK(st.stx_mode))
		return -ENOENT;
	fd = fcp_sys_openat(d->dst_fd, e->dst_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	/* Dangling, to a non-directory, a circle of symlinks: as without -K. */
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
		return -ENOENT;
	if (fd < 0) {
		fcp_report_failed_in(e->job, "cannot open the directory a symlink leads to:", d,
				     e->dst_name, true, fd);
		fcp_entry_stays(e);
		return -ECANCELED;
	}
	if ((why = refused(e, fd))) {
		close(fd);
		fcp_report_failed_in(e->job, why, d, e->dst_name, true, 0);
		fcp_entry_stays(e);
		return -ECANCELED;
	}
	return fd;
}
