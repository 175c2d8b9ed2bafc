/*
 * plan.c - one decision per entry (plan.h).
 *
 * The quick check is rsync's: the same type, size and mtime to the
 * nanosecond mean the same data. --checksum decides the data by content
 * instead (for entries of the same size). Same data, the metadata the job
 * preserves is compared: mode, owner (as root: only root can give it),
 * mtime, xattrs. atime is not compared: reading a copy moves it.
 * --check (check.c) asks the same questions, item by item.
 */
#include "backup.h"
#include "check.h"
#include "debug.h"
#include "dedup.h"
#include "dist.h"
#include "delete.h"
#include "filter.h"
#include "hash.h"
#include "links.h"
#include "manifest.h"
#include "meta.h"
#include "node.h"
#include "plan.h"
#include "sys.h"
#include "observe.h"
#include "worker.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STATX_WANT (STATX_BASIC_STATS)

static bool deciding(const struct fcp_options *o)
{
	return o->sync || o->checksum;
}

/* cp's options that decide what happens to a file already there. */
static bool guarding(const struct fcp_options *o)
{
	return o->update != FCP_UPDATE_ALL || o->interactive || o->backup != FCP_BACKUP_NONE ||
	       o->attributes_only || o->in_place;
}

/* -n, -u and -i keep what DEST holds: a directory that is there gets its
 * metadata only where it differs from its source's, as under --sync, so
 * the same command again changes nothing (no ctime moved either). */
static bool dirs_compared(const struct fcp_options *o)
{
	return deciding(o) || o->update != FCP_UPDATE_ALL || o->interactive;
}

bool fcp_plan_dir_compared(const struct fcp_job *job)
{
	return dirs_compared(job->o);
}

bool fcp_plan_once(const struct fcp_job *job)
{
	return job->o->interactive || job->o->backup != FCP_BACKUP_NONE || job->o->in_place;
}

/* Is d in a stopped run's hidden copy, taken up (leftover.c)? Its files
 * are that run's, finished or not: the quick check tells which, whatever
 * the options, and cp's guards (-n, -u, -i, -b) have nothing to keep. */
static bool taken_up(const struct fcp_dir *d)
{
	return d->root && d->root->adopted;
}

bool fcp_plan_decides(const struct fcp_job *job, const struct fcp_dir *d)
{
	return job->o->dry_run ||
	       ((deciding(job->o) || taken_up(d)) && (fcp_dir_existed(d) || d->is_top));
}

bool fcp_plan_looks(const struct fcp_job *job, const struct fcp_dir *d)
{
	return fcp_plan_decides(job, d) || (guarding(job->o) && (fcp_dir_existed(d) || d->is_top));
}

static bool same_time(const struct statx_timestamp *a, const struct statx_timestamp *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

unsigned fcp_plan_meta_diff(const struct fcp_job *job, const struct statx *st, struct fcp_at sat,
			    const struct statx *dst, struct fcp_at dat)
{
	unsigned keep = job->o->preserve, diff = 0;

	if ((keep & FCP_PRESERVE_MODE) && !S_ISLNK(st->stx_mode) &&
	    (st->stx_mode & 07777) != (dst->stx_mode & 07777))
		diff |= FCP_PRESERVE_MODE;
	if ((keep & FCP_PRESERVE_OWNER) && job->is_root &&
	    (st->stx_uid != dst->stx_uid || st->stx_gid != dst->stx_gid))
		diff |= FCP_PRESERVE_OWNER;
	if ((keep & FCP_PRESERVE_TIMES) && !same_time(&st->stx_mtime, &dst->stx_mtime))
		diff |= FCP_PRESERVE_TIMES;
	/* The xattrs last: only --check needs every difference named. */
	if ((keep & (FCP_PRESERVE_XATTR | FCP_PRESERVE_CONTEXT)) && (!diff || job->o->check) &&
	    !fcp_meta_xattrs_same(keep, sat, dat))
		diff |= FCP_PRESERVE_XATTR;
	return diff;
}

/* The metadata of src (st, at sat) the job would give the inode at dat
 * (dst) is there already. */
static bool meta_same(const struct fcp_job *job, const struct statx *st, struct fcp_at sat,
		      const struct statx *dst, struct fcp_at dat)
{
	return fcp_plan_meta_diff(job, st, sat, dst, dat) == 0;
}

/*
 * Read around the page cache? --check reads DEST from its storage (O_DIRECT),
 * as --verify does: a copy checked right after it was made would otherwise
 * be compared as its cached pages hold it, not as the disk does. In 8 MiB
 * reads, --verify's buffer: a direct read has no read-ahead behind it.
 * Sources, and --checksum's reads, go through the cache (the kernel's
 * read-ahead), unless --direct-read=always.
 */
static bool side_direct(const struct fcp_job *job, bool src)
{
	if (job->o->direct_read == FCP_DIRECT_NEVER)
		return false;
	return (!src && job->o->check) || job->o->direct_read == FCP_DIRECT_ALWAYS;
}

/* The XXH3-128 of one side of e (st: that side's inode): the manifest's
 * while the file is unchanged, else read whole (*read set; a source's is
 * recorded, a copy's only once it is found equal: fcp_plan_content).
 * Reading errors are --check's to report; the copy meets a source error
 * itself. */
static int side_hash(struct fcp_entry *e, bool src, const struct statx *st, struct fcp_hash *h,
		     bool *read)
{
	int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (e->job->is_root ? O_NOATIME : 0);
	char *key = e->job->man ? fcp_manifest_key(e->d, src ? e->name : e->dst_name, src) : NULL;
	int fd = -1, r;
	size_t cap;
	void *buf = fcp_worker_buf(e->w, &cap);
	bool direct = false, refused = false;
	struct statx now;

	*read = false;
	if (key && fcp_manifest_lookup(e->job, src, key, st, h)) {
		free(key);
		return 0;
	}
	*read = true;
	/* Planned by name (a batch): the source is opened here. */
	if (src && e->src_fd >= 0)
		fd = e->src_fd;
	/* A FIFO or device swapped in since the statx is not opened (sys.c). */
	r = fd >= 0 ? 0 : (fd = fcp_sys_open_regular(src ? e->d->src_fd : e->d->dst_fd,
						    src ? e->name : e->dst_name,
						    flags | O_NONBLOCK | O_NOCTTY, STATX_TYPE, &now));
	if (r >= 0 && st->stx_size > 0 && side_direct(e->job, src)) {
		void *dbuf = fcp_worker_verify_buf(e->w, &cap);

		if (dbuf && fcp_sys_set_direct(fd, true) == 0)
			direct = true, buf = dbuf;
		else
			refused = dbuf != NULL, buf = fcp_worker_buf(e->w, &cap);
	}
	if (r >= 0)
		r = fcp_hash_fd(e->job, fd, st->stx_size, buf, cap, direct, h);
	/* Refused by the fcntl, or by a read (fcp_hash_fd went on without
	 * it): --check says that DEST's bytes came through the page cache. */
	if (direct && r == 0)
		refused = fcp_sys_direct_on(fd) == 0;
	if (refused && r == 0 && !src && e->job->o->check)
		fcp_check_no_direct(e->job, e->d, fd);
	if (direct && fd == e->src_fd) /* the batch's: the copy reads it next */
		fcp_sys_set_direct(fd, false);
	if (r == 0 && key && src)
		fcp_manifest_record(e->job, src, key, st, h);
	if (r < 0 && e->job->o->check)
		fcp_report_failed_in(e->job, "cannot read", e->d, src ? e->name : e->dst_name, !src, r);
	if (fd >= 0 && fd != e->src_fd)
		close(fd);
	free(key);
	return r;
}

int fcp_plan_content(struct fcp_entry *e, const struct statx *dst)
{
	struct fcp_hash a, b;
	bool read, dst_read = false;
	int r = side_hash(e, true, &e->st, &a, &read);
	char *key;

	if (r == 0)
		r = side_hash(e, false, dst, &b, &dst_read);
	if (r < 0)
		return r;
	/* A copy's hash is recorded only when it matches its source's: a
	 * damaged copy's would later pass for the truth (--check --manifest
	 * FILE DEST compares against it). */
	if (dst_read && fcp_hash_equal(&a, &b) && e->job->man &&
	    (key = fcp_manifest_key(e->d, e->dst_name, false))) {
		fcp_manifest_record(e->job, false, key, dst, &b);
		free(key);
	}
	return fcp_hash_equal(&a, &b);
}

/* The source's hash recorded as what the copy at key (st) should hold. A
 * source that cannot be read leaves the copy recorded without a hash (a
 * check counts it as not compared), not with an older record's, and is a
 * failed item: a manifest that misses a file must say so. */
static void record_expected(struct fcp_entry *e, const char *key, const struct statx *st)
{
	struct fcp_hash h;
	bool read;
	int r = side_hash(e, true, &e->st, &h, &read);

	fcp_manifest_expected(e->job, key, st, r == 0 ? &h : NULL);
	if (r < 0 && !e->job->o->check) /* --check's said it (side_hash) */
		fcp_report_failed_in(e->job, "cannot read (to record it in the manifest)", e->d,
				     e->name, false, r);
}

/* --manifest: a file found up to date is recorded too, so that the
 * manifest names every file of DEST (a check of DEST alone reads them
 * all). Its record stays while the file is as it was when recorded; else
 * its source's hash (the manifest's, or read now) is recorded as what the
 * copy should hold, not as read from it: a check compares. --checksum and
 * --move recorded it already, when they compared the content. */
static void record_settled(struct fcp_entry *e, const struct statx *dst, bool changed)
{
	struct statx st = *dst;
	char *key;

	/* Its metadata just updated: the ctime the record keeps is now's. */
	if (!e->job->man || e->job->o->checksum || e->job->o->move ||
	    (changed && fcp_sys_statx(e->d->dst_fd, e->dst_name, AT_SYMLINK_NOFOLLOW,
				      STATX_BASIC_STATS, &st) < 0) ||
	    !S_ISREG(st.stx_mode) || !(key = fcp_manifest_key(e->d, e->dst_name, false)))
		return;
	if (!fcp_manifest_has(e->job, key, &st))
		record_expected(e, key, &st);
	free(key);
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

bool fcp_plan_data_same(struct fcp_entry *e, const struct statx *dst)
{
	const struct statx *st = &e->st;

	switch (st->stx_mode & S_IFMT) {
	case S_IFREG:
		if (st->stx_size != dst->stx_size)
			return false;
		if (e->job->o->checksum && e->content) /* compared in a batch */
			return e->content > 0;
		/* Any error reading either side says no. --move trusts the
		 * quick check only once the content agrees too: a file of
		 * the same name, size and mtime but other bytes (a camera's
		 * numbering started again) would let its source go. */
		if (e->job->o->checksum)
			return fcp_plan_content(e, dst) == 1;
		/* --size-only: the size alone, as rsync's; never inside a
		 * copy taken up, whose file cut short has its full size
		 * (made so first) and only its mtime not set yet. */
		return ((e->job->o->size_only && !taken_up(e->d)) ||
			same_time(&st->stx_mtime, &dst->stx_mtime)) &&
		       (!e->job->o->move || fcp_plan_content(e, dst) == 1);
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

/* -i: ask on the terminal's stderr and read the answer from stdin, as cp
 * does. One question at a time: the workers wait for it in turn. */
static bool ask(struct fcp_entry *e)
{
	static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
	char *p = fcp_dir_dst_path(e->d, e->dst_name), line[128];
	bool yes;

	pthread_mutex_lock(&one_at_a_time);
	pthread_mutex_lock(&e->job->err_lock);
	fprintf(e->job->err, "fastcp: overwrite '%s'? ", p ? p : e->dst_name);
	fflush(e->job->err);
	pthread_mutex_unlock(&e->job->err_lock);
	yes = fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y');
	/* The rest of a long answer is no second answer. */
	while (!strchr(line, '\n') && fgets(line, sizeof(line), stdin))
		;
	pthread_mutex_unlock(&one_at_a_time);
	free(p);
	return yes;
}

/* Did a killed --in-place run leave this file half rewritten (its mark,
 * file.c)? Its mtime is then the time of its last write, newer than its
 * source's: -u would keep it, the quick check of --size-only pass it. */
static bool half_rewritten(const struct fcp_entry *e)
{
	void *val = NULL;
	ssize_t n = fcp_sys_getxattr(-1, e->d->dst_fd, e->dst_name, FCP_INPLACE_MARKER, &val);

	free(val);
	return n >= 0;
}

/* --move of several SOURCEs of one name, again into the copy a run before
 * left unfinished: DEST's regular file dst, which e would replace, stays
 * where this run did not write it and its bytes are not e's: it may be all
 * that is left of another SOURCE's file, whose source that run removed
 * (the later SOURCE's file wins in one run; run again, the earlier one's
 * would replace it). e's source stays then too, named by the prune. */
static bool move_keeps(struct fcp_entry *e, const struct statx *dst)
{
	if (!e->job->o->move || !e->d->root || !e->d->root->move_rerun || !S_ISREG(dst->stx_mode) ||
	    !S_ISREG(e->st.stx_mode) || fcp_move_wrote(e->job, dst))
		return false;
	return !(e->st.stx_size == dst->stx_size && fcp_plan_content(e, dst) == 1);
}

/*
 * cp's options on a non-directory about to be replaced by one (a directory
 * on either side goes the usual way, merged or replaced, except under -n,
 * which keeps whatever is there): -n and
 * --update=none keep it, --update=older keeps one not older than its
 * source, -i asks. --attributes-only gives a file of the same type the
 * source's metadata and keeps its data.
 */
static enum fcp_action guard(struct fcp_entry *e, const struct statx *dst, enum fcp_action a)
{
	const struct fcp_options *o = e->job->o;
	const struct statx_timestamp *s = &e->st.stx_mtime, *t = &dst->stx_mtime;

	if (a != FCP_ACT_REPLACE || taken_up(e->d))
		return a;
	/* -n keeps what is there whatever it is, as rsync's --ignore-existing
	 * does: a directory in the way of a file, a file in the way of a
	 * directory (fcp_plan_type_kept() says so), even with --delete. */
	if (o->update == FCP_UPDATE_NONE || move_keeps(e, dst))
		return FCP_ACT_KEEP;
	if (S_ISDIR(dst->stx_mode) || S_ISDIR(e->st.stx_mode))
		return a;
	if (o->update == FCP_UPDATE_OLDER &&
	    (t->tv_sec > s->tv_sec || (t->tv_sec == s->tv_sec && t->tv_nsec >= s->tv_nsec)) &&
	    !(S_ISREG(dst->stx_mode) && half_rewritten(e)))
		return FCP_ACT_KEEP;
	/* The source itself there (made by -l): its metadata is already
	 * the source's, and a change would be one of the source. */
	if (o->attributes_only && S_ISREG(dst->stx_mode) && S_ISREG(e->st.stx_mode))
		return fcp_statx_same_inode(&e->st, dst) ? FCP_ACT_SKIP : FCP_ACT_META;
	if (o->interactive && !o->dry_run && !ask(e))
		return FCP_ACT_KEEP;
	return a;
}

static struct fcp_at src_at(const struct fcp_entry *e)
{
	return e->src_fd >= 0 ? FCP_AT_FD(e->src_fd) : FCP_AT_NAME(e->d->src_fd, e->name);
}

/* What --itemize-changes says differed between the source's st and
 * what DEST holds: what the copy brings over (as rsync, only the kinds
 * of metadata it keeps). */
static unsigned changes_of(const struct fcp_options *o, const struct statx *s,
			   const struct statx *d, bool content)
{
	unsigned keep = o->preserve, c = 0;

	if ((s->stx_mode & S_IFMT) != (d->stx_mode & S_IFMT))
		return FCP_CHG_TYPE;
	if (S_ISREG(s->stx_mode) && s->stx_size != d->stx_size)
		c |= FCP_CHG_SIZE;
	if (content)
		c |= FCP_CHG_CONTENT;
	if ((keep & FCP_PRESERVE_TIMES) && !S_ISLNK(s->stx_mode) &&
	    (s->stx_mtime.tv_sec != d->stx_mtime.tv_sec ||
	     s->stx_mtime.tv_nsec != d->stx_mtime.tv_nsec))
		c |= FCP_CHG_TIME;
	if ((keep & FCP_PRESERVE_MODE) && !S_ISLNK(s->stx_mode) &&
	    (s->stx_mode & 07777) != (d->stx_mode & 07777))
		c |= FCP_CHG_PERMS;
	if ((keep & FCP_PRESERVE_OWNER) && s->stx_uid != d->stx_uid)
		c |= FCP_CHG_OWNER;
	if ((keep & FCP_PRESERVE_OWNER) && s->stx_gid != d->stx_gid)
		c |= FCP_CHG_GROUP;
	return c;
}

unsigned fcp_plan_changes(const struct fcp_options *o, const struct statx *s,
			  const struct statx *d)
{
	return changes_of(o, s, d, false);
}

/* The same bytes, but not the copy a fresh one would be where --check
 * looks beyond them: its holes filled, or its inode another source file's
 * copy too (check.h). Copied again, so that the two agree. */
static bool shape_differs(struct fcp_entry *e, const struct statx *dst)
{
	return S_ISREG(e->st.stx_mode) &&
	       (fcp_check_holes_filled(e, dst) || fcp_check_links_taken(e, dst));
}

/* fcp_plan_entry; *out the statx of what is in DEST, for a file up to
 * date (SKIP, META) at least. */
/* -l, -s: is the name there the link to the source this run would make
 * (the source's inode; a symlink to the source's path as given)? */
static bool link_there(struct fcp_entry *e, const struct statx *dst)
{
	char *want, *have = NULL;
	bool same;

	if (e->job->o->make == FCP_MAKE_HARDLINK)
		return fcp_statx_same_inode(&e->st, dst);
	if (!S_ISLNK(dst->stx_mode) || !(want = fcp_dir_src_path(e->d, e->name)))
		return false;
	same = fcp_sys_readlinkat(e->d->dst_fd, e->dst_name, &have) >= 0 && !strcmp(want, have);
	free(want);
	free(have);
	return same;
}

static enum fcp_action plan_entry(struct fcp_entry *e, struct statx *out)
{
	struct statx dst;

	if (!fcp_plan_looks(e->job, e->d) || e->d->dst_fd < 0)
		return FCP_ACT_COPY;
	/* Any error but "nothing there" is the copy's to meet and report.
	 * A batch's content decision goes with the statx it was made by. */
	if (e->dst_st)
		dst = *e->dst_st;
	else if (fcp_sys_statx(e->d->dst_fd, e->dst_name, AT_SYMLINK_NOFOLLOW, STATX_WANT, &dst) < 0)
		return FCP_ACT_COPY;
	e->dst_mode = dst.stx_mode;
	e->dst_ino = dst.stx_ino;
	e->changes = (unsigned char)changes_of(e->job->o, &e->st, &dst, e->content < 0);
	*out = dst;
	/* -l, -s make links, not copies: a file there with the source's
	 * bytes and times is still no link to it (a copy an earlier run made,
	 * which the same source's marked copy or --sync would keep). */
	if (e->job->o->make != FCP_MAKE_COPY && !S_ISDIR(e->st.stx_mode))
		return link_there(e, &dst) ? FCP_ACT_SKIP : guard(e, &dst, FCP_ACT_REPLACE);
	if ((dst.stx_mode & S_IFMT) != (e->st.stx_mode & S_IFMT))
		return guard(e, &dst, FCP_ACT_REPLACE);
	if (S_ISDIR(dst.stx_mode))
		return FCP_ACT_SKIP; /* its metadata: fcp_plan_dir_meta() */
	if (!deciding(e->job->o) && !taken_up(e->d))
		return guard(e, &dst, FCP_ACT_REPLACE);
	/* --dedup=hardlink: a name of another file's copy, with that one's
	 * metadata, is up to date when its bytes are (dedup.h). */
	if (!fcp_plan_data_same(e, &dst) || (e->job->o->in_place && half_rewritten(e)) ||
	    shape_differs(e, &dst))
		return fcp_dedup_linked_copy(e, &dst) ? FCP_ACT_SKIP
						      : guard(e, &dst, FCP_ACT_REPLACE);
	if (meta_same(e->job, &e->st, src_at(e), &dst, FCP_AT_NAME(e->d->dst_fd, e->dst_name)) ||
	    fcp_dedup_linked_copy(e, &dst))
		return FCP_ACT_SKIP;
	/* Metadata set in place would be set on the file's other names too:
	 * a source among them (a copy made by -l, another SOURCE of the same
	 * name), or a file outside DEST. A new file takes the name instead.
	 * (--attributes-only, which copies no data: shared_refused().) */
	return dst.stx_nlink > 1 && !e->job->o->attributes_only ? FCP_ACT_REPLACE : FCP_ACT_META;
}

enum fcp_action fcp_plan_entry(struct fcp_entry *e)
{
	struct statx dst;

	return plan_entry(e, &dst);
}

const char *fcp_plan_verb(enum fcp_action a)
{
	static const char *const verbs[] = {
		[FCP_ACT_COPY] = "copy", [FCP_ACT_REPLACE] = "update",
		[FCP_ACT_META] = "update metadata", [FCP_ACT_SKIP] = "unchanged",
		[FCP_ACT_KEEP] = "keep",
	};
	return verbs[a];
}

/* A dry run's line for name in d, of type mode and size bytes. */
static void show(struct fcp_job *job, enum fcp_action a, const struct fcp_dir *d,
		 const char *name, mode_t mode, uint64_t bytes, unsigned changes)
{
	char *p = fcp_dir_dst_path(d, name);

	fcp_report_plan_item(job, fcp_plan_verb(a), mode, p, S_ISREG(mode) ? bytes : 0,
			     a == FCP_ACT_META && !changes ? FCP_CHG_XATTR : changes);
	free(p);
}

/* dir: the summary's table has a row of directories. */
static void count(struct fcp_job *job, enum fcp_action a, bool dir)
{
	if (a == FCP_ACT_SKIP)
		atomic_fetch_add(&job->c.unchanged, 1);
	if (a == FCP_ACT_SKIP && dir)
		atomic_fetch_add(&job->c.unchanged_dirs, 1);
	if (a == FCP_ACT_META)
		atomic_fetch_add(&job->c.updated, 1);
	if (a == FCP_ACT_META && dir)
		atomic_fetch_add(&job->c.updated_dirs, 1);
	if (a == FCP_ACT_KEEP)
		atomic_fetch_add(&job->c.not_replaced, 1);
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

	if (!fcp_entry_links_kept(e) || !S_ISREG(e->st.stx_mode) || (!dry && !up))
		return false;
	/* Several ranks: its other names may be another's; the inode's
	 * owner plans them all once the tree is done (dist.c). */
	if (fcp_dist_defer_link(e))
		return true;
	switch (fcp_hl_claim_found(e->job, &e->st, e->d, e->name, e->dst_name, up ? e->dst_ino : 0,
				   &hl)) {
	case FCP_HL_FIRST:
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

/* Keep what e replaces under its backup name; false after reporting why
 * not. A backup that would take the source's own name is no backup: the
 * item is refused, as in cp. */
static bool backed_up(struct fcp_entry *e)
{
	/* A root's source is named by its path, not found in a directory. */
	int src = e->d->is_top ? -1 : e->d->src_fd, r;

	if (fcp_backup_is_source(e->w, e->d->dst_fd, src, e->dst_name, &e->st)) {
		fcp_report_failed_in(e->job, "not copied, its backup name is the source:", e->d,
				     e->name, false, 0);
		return false;
	}
	r = fcp_backup_make(e->w, e->d->dst_fd, src, e->dst_name);
	if (r < 0)
		fcp_report_failed_in(e->job, "cannot back up", e->d, e->dst_name, true, r);
	return r == 0;
}

/* --attributes-only copies no data, so it replaces none: a non-directory
 * there that is not a regular file beside a regular source (whose
 * metadata it gets: guard()) stays, and the item fails, as in cp. Else a
 * symlink or a device would take the place of a file and its bytes. */
static bool attributes_refused(struct fcp_entry *e)
{
	if (!e->job->o->attributes_only || S_ISDIR(e->dst_mode) || S_ISDIR(e->st.stx_mode))
		return false;
	fcp_report_failed_in(e->job, "--attributes-only: will not replace", e->d, e->dst_name,
			     true, -EEXIST);
	return true;
}

/* --attributes-only changes a file in place, and with it every other name
 * of that inode: one may be a source (a copy made by -l, another source of
 * the same name) or outside DEST. Such a file is left as it is and the item
 * fails, unless it has the source's metadata already. */
static bool shared_refused(struct fcp_entry *e, const struct statx *dst)
{
	if (!e->job->o->attributes_only || dst->stx_nlink < 2 ||
	    meta_same(e->job, &e->st, src_at(e), dst, FCP_AT_NAME(e->d->dst_fd, e->dst_name)))
		return false;
	fcp_report_failed_in(e->job, "--attributes-only: will not change a file with other names",
			     e->d, e->dst_name, true, 0);
	return true;
}

/*
 * A name in DEST that is the source's own inode (a hard link a -l run
 * made, a bind mount of the source's directory inside DEST) is no copy of
 * it: rewritten in place it would be emptied before it is read, and under
 * --move the source would go with its only data. Unless -l made it (the
 * link is the copy), the item fails "are the same file", as cp's does,
 * and nothing is written through that name. As for a file operand (job.c),
 * cp's --backup and --remove-destination (not in place) copy beside it
 * and rename over that name: the source's inode keeps its bytes. True
 * after saying so.
 */
static bool same_file(struct fcp_entry *e, const struct statx *dst, enum fcp_action a)
{
	const struct fcp_options *o = e->job->o;
	char *s, *d;

	if (a == FCP_ACT_COPY || a == FCP_ACT_KEEP || o->make != FCP_MAKE_COPY ||
	    S_ISDIR(e->st.stx_mode) || !fcp_statx_same_inode(&e->st, dst) ||
	    (a != FCP_ACT_REPLACE && !o->move))
		return false;
	if (!o->move && (o->backup != FCP_BACKUP_NONE ||
			 ((o->force & FCP_FORCE_REMOVE) && !o->in_place)))
		return false;
	s = fcp_dir_src_path(e->d, e->name);
	d = fcp_dir_dst_path(e->d, e->dst_name);
	fcp_report_errorf(e->job, "'%s' and '%s' are the same file", s ? s : e->name,
			  d ? d : e->dst_name);
	free(s);
	free(d);
	/* Under --move the kept source is counted where it is named. */
	if (!e->job->o->move)
		atomic_fetch_add(&e->job->c.failed, 1);
	if (e->d->root)
		atomic_fetch_add(&e->d->root->failed, 1);
	return true;
}

bool fcp_plan_settled(struct fcp_entry *e)
{
	enum fcp_action a;
	struct fcp_at dst = FCP_AT_NAME(e->d->dst_fd, e->dst_name);
	struct statx dst_st;

	if (e->job->o->check) {
		fcp_check_entry(e);
		return true;
	}
	a = plan_entry(e, &dst_st);
	if (same_file(e, &dst_st, a))
		return true;
	/* Something would be in its directory: -m keeps it (delete.c). */
	if (e->job->o->dry_run)
		atomic_store(&e->d->holds, true);
	if (a == FCP_ACT_REPLACE && attributes_refused(e))
		return true;
	if (a == FCP_ACT_META && shared_refused(e, &dst_st))
		return true;
	if (a != FCP_ACT_KEEP && link_settled(e, a))
		return true;
	/* A dry run says what would go to make room (its delete lines)
	 * before the item's own line, as the run removes it first; where
	 * the run would fail the item, it says that instead of its line. */
	if (e->job->o->dry_run && a == FCP_ACT_REPLACE && !fcp_plan_make_room(e))
		return true;
	/* What is in the way stays under -n (said, as the run says it). */
	if (a == FCP_ACT_KEEP && fcp_plan_type_kept(e))
		return true;
	if (e->job->o->dry_run && a == FCP_ACT_KEEP && S_ISREG(e->st.stx_mode))
		fcp_move_dry_kept(e->job, e->d, e->name, e->st.stx_mode);
	if (e->job->o->dry_run) {
		const char *dd = a == FCP_ACT_COPY || a == FCP_ACT_REPLACE ? fcp_dedup_dry_verb(e)
									   : NULL;
		char *p = dd ? fcp_dir_dst_path(e->d, e->dst_name) : NULL;

		if (dd) /* --dedup: "clone" or "link" */
			fcp_report_plan_item(e->job, dd, e->st.stx_mode, p, 0, 0);
		else
			show(e->job, a, e->d, e->dst_name, e->st.stx_mode, e->st.stx_size,
			     e->changes);
		free(p);
		count(e->job, a, false);
		return true;
	}
	if (a == FCP_ACT_REPLACE && !fcp_plan_make_room(e))
		return true;
	/* What a non-directory replaces is kept first (a directory in
	 * either place: merged, or refused, as cp does). */
	if (a == FCP_ACT_REPLACE && e->job->o->backup && !taken_up(e->d) && !S_ISDIR(e->dst_mode) &&
	    !S_ISDIR(e->st.stx_mode) && !backed_up(e))
		return true;
	if (a == FCP_ACT_META) {
		dst.exact_xattrs = true;
		fcp_meta_copy(e->job, src_at(e), dst, &e->st, e->d, e->name);
	}
	/* --move: its content was compared equal (fcp_plan_data_same). */
	if ((a == FCP_ACT_META || a == FCP_ACT_SKIP) && S_ISREG(e->st.stx_mode)) {
		fcp_move_found(e->job, fcp_statx_dev(&e->st), e->st.stx_ino, e->d->dst_fd,
			       e->dst_name);
		record_settled(e, &dst_st, a == FCP_ACT_META);
	}
	count(e->job, a, false);
	if (e->job->o->debug && (a == FCP_ACT_KEEP || a == FCP_ACT_META || a == FCP_ACT_SKIP))
		fcp_debug_item(e->job, e->d, e->name, e->dst_name,
			       a == FCP_ACT_KEEP ? "kept: already there (-n, -u or -i)"
			       : a == FCP_ACT_META ? "metadata updated in place, data the same"
						   : "unchanged (--sync)");
	if (a != FCP_ACT_META && a != FCP_ACT_SKIP && a != FCP_ACT_KEEP)
		return false;
	/* Up to date: its bytes are done (the status line). */
	if (S_ISREG(e->st.stx_mode))
		atomic_fetch_add(&e->job->c.settled_bytes, e->st.stx_size);
	fcp_obs_item(e->job,
		     a == FCP_ACT_META ? FCP_OBS_META : a == FCP_ACT_KEEP ? FCP_OBS_KEEP
									 : FCP_OBS_UNCHANGED,
		     e->st.stx_mode, e->d, e->name, e->dst_name,
		     S_ISREG(e->st.stx_mode) ? e->st.stx_size : 0, NULL,
		     a == FCP_ACT_META && !e->changes ? FCP_CHG_XATTR : e->changes);
	return true;
}

int fcp_plan_batch(struct fcp_worker *w, struct fcp_dir *d, const char **names, int n,
		   unsigned short *was)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct fcp_entry e[FCP_BATCH_MAX];
	struct statx dst[FCP_BATCH_MAX];
	int r[FCP_BATCH_MAX], same[FCP_BATCH_MAX];
	const char *mine[FCP_BATCH_MAX];
	bool compare = job->o->check || job->o->checksum;
	int left = 0, m = 0;

	/* Under -L a name's stat is its target's: the entry path sorts it. */
	if (job->o->symlinks == FCP_SYMLINKS_FOLLOW)
		return n;
	for (int i = 0; i < n; i++) {
		e[m] = (struct fcp_entry){ .w = w, .job = job, .d = d, .name = names[i],
					   .dst_name = names[i], .src_fd = -1 };
		/* Anything odd (gone, no longer a file) is the entry path's. */
		if (fcp_sys_statx(d->src_fd, names[i], AT_SYMLINK_NOFOLLOW, STATX_WANT, &e[m].st) < 0 ||
		    !S_ISREG(e[m].st.stx_mode)) {
			was[left] = 0;
			names[left++] = names[i];
		} else
			mine[m++] = names[i];
	}
	/* --check and --checksum: the contents compared together first
	 * (check_uring.c), each entry then checked or planned as one by one. */
	if (compare)
		fcp_compare_batch(w, e, m, dst, r, same);
	for (int i = 0; i < m; i++) {
		if (job->o->check) {
			fcp_check_found(&e[i], r[i], &dst[i], same[i]);
			continue;
		}
		if (compare) {
			e[i].content = same[i] < 0 ? 0 : same[i] ? 1 : -1;
			e[i].dst_st = r[i] == 0 ? &dst[i] : NULL;
		}
		if (fcp_plan_settled(&e[i]))
			continue;
		was[left] = e[i].dst_mode ? (unsigned short)(FCP_PLAN_WAS | e[i].changes) : 0;
		names[left++] = mine[i];
	}
	return left;
}

bool fcp_plan_type_kept(struct fcp_entry *e)
{
	if (S_ISDIR(e->dst_mode) == S_ISDIR(e->st.stx_mode))
		return false;
	char *p;

	/* A dry run lists it kept, and fails it as the run does. */
	if (e->job->o->dry_run) {
		show(e->job, FCP_ACT_KEEP, e->d, e->dst_name, e->st.stx_mode, 0, 0);
		fcp_move_dry_kept(e->job, e->d, e->name, e->st.stx_mode);
	}
	/* Its source is not in DEST: exit 1, as cp -n. A choice the user
	 * made, not an error met: the directory's extras still go. */
	p = fcp_dir_dst_path(e->d, e->dst_name);
	fcp_report_failed(e->job, S_ISDIR(e->dst_mode)
					  ? "not replaced (-n), a directory in the way of a file:"
					  : "not replaced (-n), a non-directory in the way of a directory:",
			  p ? p : e->dst_name, 0);
	free(p);
	count(e->job, FCP_ACT_KEEP, false);
	return true;
}

/* A dry run: what is in e's way stays (no --delete), so the run's mkdir
 * or rename would fail there. Said with the run's words; false. */
static bool dry_in_way(struct fcp_entry *e)
{
	if (S_ISDIR(e->st.stx_mode))
		fcp_report_failed_in(e->job, "cannot replace non-directory", e->d, e->dst_name, true,
				     -ENOTDIR);
	else
		fcp_report_failed_in(e->job, "cannot overwrite directory with", e->d, e->name, false,
				     -EISDIR);
	fcp_move_dry_kept(e->job, e->d, e->name, e->st.stx_mode);
	return false;
}

bool fcp_plan_make_room(struct fcp_entry *e)
{
	char *p;

	if (e->job->o->check || !e->dst_mode || S_ISDIR(e->dst_mode) == S_ISDIR(e->st.stx_mode))
		return true;
	/* Not a root copy's own name: "fastcp --delete -T file DIR" must not
	 * remove DIR, it fails as cp -T does. In a taken-up copy, what is
	 * in the way is the killed run's, of a source that changed type. */
	if (!(e->job->o->delete_extra || taken_up(e->d)) || e->d->is_top)
		return !e->job->o->dry_run || dry_in_way(e);
	if (fcp_delete_entry(e->job, e->d, e->dst_name) == 0)
		return true;
	/* What stayed was said with its own path; the item that cannot be
	 * copied is named too, as every failed item is. Its directory's
	 * other extras still go: the source was read whole. */
	p = fcp_dir_src_path(e->d, e->name);
	fcp_report_failed(e->job, "cannot make room (what is in its way in DEST stays) for",
			  p ? p : e->name, 0);
	free(p);
	if (e->d->root)
		atomic_fetch_add(&e->d->root->failed, 1);
	return false;
}

/* A dry run where SOURCEs merge: the first of them to finish d's copy
 * gives it its metadata; the others find it given (delete.h). */
static bool meta_said_before(struct fcp_job *job, struct fcp_dir *d)
{
	char *p = job->merge ? fcp_dir_dst_path(d->parent, d->dst_name) : NULL;
	char *key = p ? fcp_path_join("update metadata\t", p) : NULL;
	bool said = key && fcp_dry_said_before(job, key);

	free(key);
	free(p);
	return said;
}

bool fcp_plan_dir_meta(struct fcp_job *job, struct fcp_dir *d, struct fcp_at *dat)
{
	struct statx dst;
	bool same;

	if (job->o->check) {
		fcp_check_dir(job, d);
		return false;
	}
	if (!fcp_dir_existed(d) || !fcp_plan_looks(job, d))
		return !job->o->dry_run;
	if (!dirs_compared(job->o) && !job->o->dry_run)
		return true;
	dat->exact_xattrs = true;
	same = fcp_sys_fstatx(d->dst_fd, &dst) == 0 &&
	       meta_same(job, &d->st, FCP_AT_FD(d->src_fd), &dst, *dat);
	/* A dry run without --sync, -n, -u or -i would set every directory's
	 * metadata. */
	if (!dirs_compared(job->o))
		same = false;
	unsigned chg = same ? 0 : changes_of(job->o, &d->st, &dst, false);
	struct statx before = dst;

	/* A time that only this job's writes inside changed is put back,
	 * and is no change to report: the directory was up to date. */
	before.stx_mtime = d->dst_mtime0;
	if (chg == FCP_CHG_TIME && !changes_of(job->o, &d->st, &before, false))
		same = true;
	if (job->o->dry_run && !same && meta_said_before(job, d))
		same = true; /* another SOURCE's finish sets it first (delete.h) */
	if (job->o->dry_run)
		show(job, same ? FCP_ACT_SKIP : FCP_ACT_META, d->parent, d->dst_name, S_IFDIR, 0,
		     chg);
	else
		fcp_obs_item(job, same ? FCP_OBS_UNCHANGED : FCP_OBS_META, S_IFDIR, d->parent,
			     d->name, d->dst_name, 0, NULL, chg ? chg : FCP_CHG_XATTR);
	count(job, same ? FCP_ACT_SKIP : FCP_ACT_META, true);
	return !job->o->dry_run && (!same || chg);
}

/*
 * Choosing what to copy. Rules see the path below the copied source
 * directory (its own name not included: a leading '/' anchors there), as
 * rsync does for "SRC/"; the operands themselves are never filtered.
 */

/* An opened .gitignore: its rules, its directory's path length (plus the
 * '/') in the paths matched, and the list of the directory above. */
struct fcp_ignore {
	struct fcp_rules rules;
	size_t base;
	struct fcp_ignore *up;
};

#define IGNORE_MAX (1 << 20)
#define CACHEDIR_SIG "Signature: 8a477f597d28d172789f06886806bc55"

static bool limits(const struct fcp_options *o)
{
	return o->min_size > 0 || o->max_size >= 0 || o->newer_than != LLONG_MIN ||
	       o->older_than != LLONG_MAX;
}

static const struct fcp_rules *rules_of(const struct fcp_options *o)
{
	return o->filter && o->filter->rules.n ? &o->filter->rules : NULL;
}

bool fcp_options_filter(const struct fcp_options *o)
{
	return rules_of(o) || o->gitignore || o->exclude_caches || limits(o);
}

static bool needs_paths(const struct fcp_options *o)
{
	return o->gitignore || (rules_of(o) && rules_of(o)->needs_path);
}

/* Read the ignore file name in d into a list above d->ign, d's own. */
static void load_ignore(struct fcp_job *job, struct fcp_dir *d, const char *name)
{
	struct fcp_ignore *ig;
	char *text;
	ssize_t n = fcp_sys_read_file(d->src_fd, name, IGNORE_MAX, &text);

	/* git does not follow a .gitignore that is a symlink either, and
	 * takes one that is no regular file for none. */
	if (n == -ENOENT || n == -ELOOP || n == -EINVAL)
		return;
	if (n < 0) {
		if (!d->counting)
			fcp_report_failed_in(job, "cannot read ignore file", d, name, false, (int)n);
		return;
	}
	ig = calloc(1, sizeof(*ig));
	if (ig) {
		ig->rules.git = true;
		ig->base = d->depth > 0 ? strlen(d->rel) + 1 : 0;
		ig->up = d->ign;
	}
	if (!ig || fcp_rules_parse(&ig->rules, text, (size_t)n) < 0) {
		if (!d->counting)
			fcp_report_failed_in(job, "out of memory reading", d, name, false, -ENOMEM);
		if (ig)
			fcp_rules_free(&ig->rules);
		free(ig);
	} else {
		d->ign = ig;
		d->own_ign++;
	}
	free(text);
}

/* d's lists: its .gitignore over those of the directories above; at the
 * root of a repository, .git/info/exclude below them all, as in git. */
static void load_ignores(struct fcp_job *job, struct fcp_dir *d)
{
	d->ign = d->depth > 0 ? d->parent->ign : NULL;
	if (d->depth == 0)
		load_ignore(job, d, ".git/info/exclude");
	load_ignore(job, d, ".gitignore");
}

bool fcp_plan_reads(struct fcp_job *job, struct fcp_dir *d)
{
	const struct fcp_options *o = job->o;
	const struct fcp_dir *top = d;

	if (o->one_file_system && d->depth > 0) {
		while (top->depth > 0)
			top = top->parent;
		if (fcp_statx_dev(&top->st) != fcp_statx_dev(&d->st))
			return false;
	}
	if (!fcp_options_filter(o) || d->depth < 0)
		return true;
	if (needs_paths(o) && !d->rel) {
		d->rel = d->depth == 0 ? strdup("") : fcp_path_join(d->parent->rel, d->name);
		if (!d->rel) {
			/* Rules without the path would pick wrongly: skip it. */
			if (!d->counting)
				fcp_report_failed_in(job, "out of memory in", d, NULL, false, -ENOMEM);
			return false;
		}
	}
	if (o->gitignore)
		load_ignores(job, d);
	return true;
}

void fcp_plan_dir_free(struct fcp_dir *d)
{
	for (; d->own_ign > 0; d->own_ign--) {
		struct fcp_ignore *up = d->ign->up;

		fcp_rules_free(&d->ign->rules);
		free(d->ign);
		d->ign = up;
	}
	d->ign = NULL;
	free(d->rel);
	d->rel = NULL;
}

/* Do the rules leave path (name at its end) out? The command line's
 * first, in their order; then the .gitignore files, the deepest first. */
static bool ruled_out(const struct fcp_job *job, const struct fcp_dir *d, const char *path,
		      bool is_dir)
{
	const struct fcp_rules *r = rules_of(job->o);
	const char *name = strrchr(path, '/');
	int m = r ? fcp_rules_match(r, path, is_dir) : 0;

	if (m || !job->o->gitignore)
		return m > 0;
	if (!strcmp(name ? name + 1 : path, ".git"))
		return true;
	for (const struct fcp_ignore *ig = d->ign; ig; ig = ig->up)
		if ((m = fcp_rules_match(&ig->rules, path + ig->base, is_dir)))
			return m > 0;
	return false;
}

/* The path of name (or a path below d) in d below the root copy: in buf when it fits, else
 * malloc'd into *big (NULL: out of memory). */
static const char *entry_path(const struct fcp_dir *d, const char *name, char *buf, size_t cap,
			      char **big)
{
	size_t a = d->rel ? strlen(d->rel) : 0, b = strlen(name);
	char *p = buf;

	*big = NULL;
	if (!d->rel)
		return name;
	if (a + b + 2 > cap && !(p = *big = malloc(a + b + 2)))
		return NULL;
	memcpy(p, d->rel, a);
	p[a] = '/';
	memcpy(p + (a ? a + 1 : 0), name, b + 1);
	return p;
}

static bool rules_leave_out(const struct fcp_job *job, const struct fcp_dir *d,
			    const char *name, bool is_dir)
{
	char buf[1024], *big;
	const char *path = entry_path(d, name, buf, sizeof(buf), &big);
	bool out = path && ruled_out(job, d, path, is_dir);

	free(big);
	return out;
}

/* Is directory name of d a cache (a CACHEDIR.TAG with the signature)? */
static bool cache_tagged(struct fcp_dir *d, const char *name)
{
	int fd = fcp_sys_openat(d->src_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	char *text = NULL;
	bool tagged;

	if (fd < 0)
		return false;
	tagged = fcp_sys_read_file(fd, "CACHEDIR.TAG", strlen(CACHEDIR_SIG), &text) ==
			 (ssize_t)strlen(CACHEDIR_SIG) &&
		 !memcmp(text, CACHEDIR_SIG, strlen(CACHEDIR_SIG));
	free(text);
	close(fd);
	return tagged;
}

static long long mtime_ns(const struct statx *st)
{
	return (long long)st->stx_mtime.tv_sec * 1000000000 + st->stx_mtime.tv_nsec;
}

/* Size (regular files) and time (all but directories) bounds. */
static bool outside_limits(const struct fcp_options *o, const struct statx *st)
{
	long long t = mtime_ns(st);

	if (S_ISREG(st->stx_mode) && ((long long)st->stx_size < o->min_size ||
				      (o->max_size >= 0 && (long long)st->stx_size > o->max_size)))
		return true;
	return t <= o->newer_than || t >= o->older_than;
}

enum fcp_pick fcp_plan_pick(struct fcp_job *job, struct fcp_dir *d, const char *name,
			    unsigned char *type)
{
	const struct fcp_options *o = job->o;
	const struct fcp_rules *r = rules_of(o);
	int flags = o->symlinks == FCP_SYMLINKS_FOLLOW ? 0 : AT_SYMLINK_NOFOLLOW;
	bool typed = (r && r->needs_type) || o->gitignore || o->exclude_caches || limits(o);
	bool stated = false, is_dir;
	struct statx st;

	/* Not told by getdents (or following links): asked. An entry that
	 * cannot be stat'ed goes on, and its copy reports the error. */
	if (typed && (*type == DT_UNKNOWN || (!flags && *type == DT_LNK)) &&
	    fcp_sys_statx(d->src_fd, name, flags, STATX_WANT, &st) == 0) {
		stated = true;
		*type = IFTODT(st.stx_mode);
	}
	is_dir = *type == DT_DIR;
	if ((r || o->gitignore) && rules_leave_out(job, d, name, is_dir))
		return FCP_PICK_RULE;
	if (is_dir)
		return o->exclude_caches && cache_tagged(d, name) ? FCP_PICK_RULE : FCP_PICK_COPY;
	if (!limits(o) ||
	    (!stated && fcp_sys_statx(d->src_fd, name, flags, STATX_WANT, &st) < 0))
		return FCP_PICK_COPY;
	return outside_limits(o, &st) ? FCP_PICK_LIMIT : FCP_PICK_COPY;
}

bool fcp_plan_keeps_extra(struct fcp_job *job, struct fcp_dir *d, const char *below, int dirfd,
			  const char *name)
{
	const struct fcp_options *o = job->o;
	struct statx st;
	bool is_dir;

	/* A taken-up copy is fastcp's own unfinished work: nothing in it is
	 * the user's to keep for a rule. */
	if (o->delete_excluded || (!rules_of(o) && !o->gitignore) || taken_up(d))
		return false;
	/* Not stat'ed: it is no directory to the rules, which then keep it
	 * only if a rule for all kinds matches. */
	is_dir = fcp_sys_statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) == 0 &&
		 S_ISDIR(st.stx_mode);
	return rules_leave_out(job, d, below, is_dir);
}
