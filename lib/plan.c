/*
 * plan.c - one decision per entry (plan.h).
 *
 * The quick check is rsync's: the same type, size and mtime to the
 * nanosecond mean the same data. --checksum decides the data by content
 * instead (for entries of the same size). Same data, the metadata the job
 * preserves is compared: mode, owner (as root: only root can give it),
 * mtime, xattrs. atime is not compared: reading a copy moves it.
 */
#include "delete.h"
#include "hash.h"
#include "links.h"
#include "meta.h"
#include "plan.h"
#include "sys.h"
#include "observe.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STATX_WANT (STATX_BASIC_STATS)

static bool deciding(const struct fcp_options *o)
{
	return o->sync || o->checksum;
}

bool fcp_plan_looks(const struct fcp_job *job, const struct fcp_dir *d)
{
	return job->o->dry_run || (deciding(job->o) && (fcp_dir_existed(d) || d->is_top));
}

static bool same_time(const struct statx_timestamp *a, const struct statx_timestamp *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The metadata of src (st, at sat) the job would give the inode at dat
 * (dst) is there already. */
static bool meta_same(const struct fcp_job *job, const struct statx *st, struct fcp_at sat,
		      const struct statx *dst, struct fcp_at dat)
{
	unsigned keep = job->o->preserve;

	if ((keep & FCP_PRESERVE_MODE) && !S_ISLNK(st->stx_mode) &&
	    (st->stx_mode & 07777) != (dst->stx_mode & 07777))
		return false;
	if ((keep & FCP_PRESERVE_OWNER) && job->is_root &&
	    (st->stx_uid != dst->stx_uid || st->stx_gid != dst->stx_gid))
		return false;
	if ((keep & FCP_PRESERVE_TIMES) && !same_time(&st->stx_mtime, &dst->stx_mtime))
		return false;
	return !(keep & FCP_PRESERVE_XATTR) || fcp_meta_xattrs_same(sat, dat);
}

/* Do the source file and its copy hold the same bytes? Both are read
 * whole; any error reading either says no, and the copy that follows
 * meets (and reports) a source error itself. */
static bool same_content(struct fcp_entry *e)
{
	int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (e->job->is_root ? O_NOATIME : 0);
	int fd = fcp_sys_openat(e->d->dst_fd, e->dst_name, flags, 0);
	/* Planned by name (a batch): the source is opened here. */
	int in = e->src_fd >= 0 ? e->src_fd : fcp_sys_openat(e->d->src_fd, e->name, flags, 0);
	struct fcp_hash a, b;
	size_t cap;
	void *buf = fcp_worker_buf(e->w, &cap);
	bool same;

	same = fd >= 0 && in >= 0 && fcp_hash_fd(in, e->st.stx_size, buf, cap, &a) == 0 &&
	       fcp_hash_fd(fd, e->st.stx_size, buf, cap, &b) == 0 && fcp_hash_equal(&a, &b);
	if (fd >= 0)
		close(fd);
	if (in >= 0 && in != e->src_fd)
		close(in);
	return same;
}

static bool same_target(struct fcp_entry *e)
{
	char *a = NULL, *b = NULL;
	bool same = fcp_sys_readlinkat(e->d->src_fd, e->name, &a) >= 0 &&
		    fcp_sys_readlinkat(e->d->dst_fd, e->dst_name, &b) >= 0 && !strcmp(a, b);

	free(a);
	free(b);
	return same;
}

/* Is the data of e (its content, a link's target, a device's number) at
 * the destination already, described by dst? */
static bool data_same(struct fcp_entry *e, const struct statx *dst)
{
	const struct statx *st = &e->st;

	switch (st->stx_mode & S_IFMT) {
	case S_IFREG:
		if (st->stx_size != dst->stx_size)
			return false;
		return e->job->o->checksum ? same_content(e)
					   : same_time(&st->stx_mtime, &dst->stx_mtime);
	case S_IFLNK:
		return same_target(e);
	case S_IFBLK:
	case S_IFCHR:
		return st->stx_rdev_major == dst->stx_rdev_major &&
		       st->stx_rdev_minor == dst->stx_rdev_minor;
	default:
		return true;
	}
}

static struct fcp_at src_at(const struct fcp_entry *e)
{
	return e->src_fd >= 0 ? FCP_AT_FD(e->src_fd) : FCP_AT_NAME(e->d->src_fd, e->name);
}

enum fcp_action fcp_plan_entry(struct fcp_entry *e)
{
	struct statx dst;

	if (!fcp_plan_looks(e->job, e->d) || e->d->dst_fd < 0)
		return FCP_ACT_COPY;
	/* Any error but "nothing there" is the copy's to meet and report. */
	if (fcp_sys_statx(e->d->dst_fd, e->dst_name, AT_SYMLINK_NOFOLLOW, STATX_WANT, &dst) < 0)
		return FCP_ACT_COPY;
	e->dst_mode = dst.stx_mode;
	e->dst_ino = dst.stx_ino;
	if ((dst.stx_mode & S_IFMT) != (e->st.stx_mode & S_IFMT))
		return FCP_ACT_REPLACE;
	if (S_ISDIR(dst.stx_mode))
		return FCP_ACT_SKIP; /* its metadata: fcp_plan_dir_meta() */
	if (!deciding(e->job->o) || !data_same(e, &dst))
		return FCP_ACT_REPLACE;
	return meta_same(e->job, &e->st, src_at(e), &dst,
			 FCP_AT_NAME(e->d->dst_fd, e->dst_name))
		       ? FCP_ACT_SKIP
		       : FCP_ACT_META;
}

const char *fcp_plan_verb(enum fcp_action a)
{
	static const char *const verbs[] = {
		[FCP_ACT_COPY] = "copy", [FCP_ACT_REPLACE] = "update",
		[FCP_ACT_META] = "update metadata", [FCP_ACT_SKIP] = "unchanged",
	};
	return verbs[a];
}

static void show(struct fcp_job *job, enum fcp_action a, const struct fcp_dir *d,
		 const char *name)
{
	char *p = fcp_dir_dst_path(d, name);

	fcp_report_plan(job, fcp_plan_verb(a), p);
	free(p);
}

static void count(struct fcp_job *job, enum fcp_action a)
{
	if (a == FCP_ACT_SKIP)
		atomic_fetch_add(&job->c.unchanged, 1);
	else if (a == FCP_ACT_META)
		atomic_fetch_add(&job->c.updated, 1);
}

/*
 * A regular file with more names in the copy (hard links kept): up to
 * date under one name, it must also be the same inode as the copies of
 * its other names. The first name planned tells the hard-link map which
 * inode that is (links.c); a later name found up to date on another inode
 * is linked again, as is every later name of a file copied anew (the copy
 * path). A dry run says "link" for each name after the first that would be
 * linked. Returns true when the name was settled here (linked, said, or
 * queued behind its first name's copy).
 */
static bool link_settled(struct fcp_entry *e, enum fcp_action a)
{
	bool dry = e->job->o->dry_run, up = a == FCP_ACT_SKIP || a == FCP_ACT_META;
	struct fcp_hl_entry *hl;
	int r;

	if (!(e->job->o->preserve & FCP_PRESERVE_LINKS) || e->st.stx_nlink < 2 ||
	    !S_ISREG(e->st.stx_mode) || (!dry && !up))
		return false;
	switch (fcp_hl_claim(e->job, &e->st, e->d, e->name, e->dst_name, &hl)) {
	case FCP_HL_FIRST:
		fcp_hl_found(e->w, hl, up ? e->dst_ino : 0);
		return false;
	case FCP_HL_QUEUED:
		return true; /* linked, or said, when the first name is done */
	case FCP_HL_LINK:
		break;
	}
	if (up && fcp_hl_copy_ino(hl) == e->dst_ino)
		return false;
	if (dry) {
		char *p = fcp_dir_dst_path(e->d, e->dst_name);
		fcp_report_plan(e->job, "link", p);
		free(p);
	} else if ((r = fcp_hl_link(e->w, hl, e->d, e->dst_name)) < 0) {
		fcp_entry_fail(e, "cannot create hard link", r);
	}
	return true;
}

bool fcp_plan_settled(struct fcp_entry *e)
{
	enum fcp_action a = fcp_plan_entry(e);
	struct fcp_at dst = FCP_AT_NAME(e->d->dst_fd, e->dst_name);

	if (link_settled(e, a))
		return true;
	if (e->job->o->dry_run) {
		show(e->job, a, e->d, e->dst_name);
		count(e->job, a);
		return true;
	}
	if (a == FCP_ACT_REPLACE && !fcp_plan_make_room(e))
		return true;
	if (a == FCP_ACT_META) {
		dst.exact_xattrs = true;
		fcp_meta_copy(e->job, src_at(e), dst, &e->st, e->d, e->name);
	}
	count(e->job, a);
	if (a != FCP_ACT_META && a != FCP_ACT_SKIP)
		return false;
	/* Up to date: its bytes are done (the status line). */
	if (S_ISREG(e->st.stx_mode))
		atomic_fetch_add(&e->job->c.settled_bytes, e->st.stx_size);
	fcp_obs_entry(e->job, a == FCP_ACT_SKIP ? FCP_OBS_UNCHANGED : FCP_OBS_UPDATE,
		      e->st.stx_mode, e->d, e->name,
		      S_ISREG(e->st.stx_mode) ? e->st.stx_size : 0, NULL);
	return true;
}

int fcp_plan_batch(struct fcp_worker *w, struct fcp_dir *d, const char **names, int n)
{
	struct fcp_job *job = fcp_worker_job(w);
	int left = 0;

	/* Under -L a name's stat is its target's: the entry path sorts it. */
	if (job->o->symlinks == FCP_SYMLINKS_FOLLOW)
		return n;
	for (int i = 0; i < n; i++) {
		struct fcp_entry e = { .w = w, .job = job, .d = d, .name = names[i],
				       .dst_name = names[i], .src_fd = -1 };

		/* Anything odd (gone, no longer a file) is the entry path's. */
		if (fcp_sys_statx(d->src_fd, names[i], AT_SYMLINK_NOFOLLOW, STATX_WANT, &e.st) < 0 ||
		    !S_ISREG(e.st.stx_mode) || !fcp_plan_settled(&e))
			names[left++] = names[i];
	}
	return left;
}

bool fcp_plan_make_room(struct fcp_entry *e)
{
	/* Not a root copy's own name: "fastcp --delete -T file DIR" must not
	 * remove DIR, it fails as cp -T does. */
	if (!e->job->o->delete_extra || e->job->o->dry_run || !e->dst_mode || e->d->is_top ||
	    S_ISDIR(e->dst_mode) == S_ISDIR(e->st.stx_mode))
		return true;
	return fcp_delete_entry(e->job, e->d, e->dst_name) == 0;
}

bool fcp_plan_dir_meta(struct fcp_job *job, struct fcp_dir *d, struct fcp_at *dat)
{
	struct statx dst;
	bool same;

	if (!fcp_dir_existed(d) || !fcp_plan_looks(job, d))
		return !job->o->dry_run;
	if (!deciding(job->o) && !job->o->dry_run)
		return true;
	dat->exact_xattrs = true;
	same = fcp_sys_fstatx(d->dst_fd, &dst) == 0 &&
	       meta_same(job, &d->st, FCP_AT_FD(d->src_fd), &dst, *dat);
	/* A dry run without --sync would set every directory's metadata. */
	if (!deciding(job->o))
		same = false;
	if (job->o->dry_run)
		show(job, same ? FCP_ACT_SKIP : FCP_ACT_META, d->parent, d->dst_name);
	count(job, same ? FCP_ACT_SKIP : FCP_ACT_META);
	return !job->o->dry_run && !same;
}
