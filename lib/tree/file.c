/*
 * file.c - the pipeline of one regular file:
 *   open (entry.c) -> create (final, unnamed or temporary name, dest.h) -> data
 *   -> [writeback] -> metadata -> [fsync] -> link or rename into place
 * The data step is one call for most files, or chunks copied by several
 * workers for a large one (chunk.c); both end in fcp_file_finish(), so
 * each later stage (hashing, verification, resume records) is one more
 * step there, not a rewrite: the new file gets its final name only when
 * every stage said yes.
 */
#include "engine/debug.h"
#include "tree/dedup.h"
#include "dest/dest.h"
#include "engine/engine.h"
#include "tree/entry.h"
#include "tree/hooks.h"
#include "dest/manifest.h"
#include "core/limiter.h"
#include "tree/links.h"
#include "tree/srcmount.h"
#include "dest/meta.h"
#include "dest/resume.h"
#include "base/sys.h"
#include "core/observe.h"
#include "engine/verify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct fcp_xfer xfer_of(struct fcp_entry *e, int out)
{
	return (struct fcp_xfer){
		.w = e->w,
		.in = e->src_fd,
		.out = out,
		.size = (off_t)e->st.stx_size,
		/* --sparse=never: read as if dense, holes become data. */
		.allocated = e->job->o->sparse == FCP_SPARSE_NEVER ? e->st.stx_size
								   : e->st.stx_blocks * 512,
		.src_dev = fcp_statx_dev(&e->st),
		.dst_dev = e->d->dst_dev,
	};
}

/* The data of a file not cut in chunks: with --verify or --manifest, the
 * source's windows are hashed from the bytes the engine reads and writes
 * (verify.h). */
static ssize_t copy_hashed(struct fcp_entry *e, struct fcp_xfer *x)
{
	struct fcp_vstream v;
	ssize_t r;
	int t;

	if (!e->vsum)
		return fcp_data_copy(x);
	fcp_vsum_free(e->vsum);
	if ((t = fcp_vsum_init(e->vsum, (uint64_t)x->size)) < 0)
		return t;
	fcp_vstream_begin(&v, e->vsum, 0);
	x->vs = &v;
	r = fcp_data_copy(x);
	x->vs = NULL;
	/* Up to the size (a trailing hole is zeros); a file that reports
	 * size 0 was read to its end. */
	t = fcp_vstream_end(&v, x->size ? (uint64_t)x->size : v.pos);
	return r < 0 ? r : t < 0 ? t : r;
}

/* A clone moves no bytes through fastcp: --verify and --manifest read the
 * source, whose blocks the copy now shares, to hash it. */
static int hash_clone_source(struct fcp_entry *e, const struct fcp_xfer *x)
{
	fcp_vsum_free(e->vsum);
	return fcp_vsum_of_fd(e->w, e->src_fd, (uint64_t)x->size, e->vsum);
}

/* After a mismatch: the data once more, cloned or copied as the first
 * time but by this worker alone, the source read (and hashed) anew. */
static int copy_again(struct fcp_entry *e, int out)
{
	struct fcp_xfer x = xfer_of(e, out);
	bool cloned = false;
	ssize_t r = fcp_sys_ftruncate(out, 0);

	e->dd_from = -1; /* not a clone of a first copy now (dedup.h) */
	if (r == 0 && e->cloned)
		r = fcp_data_clone(&x, &cloned);
	if (r < 0)
		return (int)r;
	e->cloned = cloned;
	if (cloned)
		return hash_clone_source(e, &x);
	r = copy_hashed(e, &x);
	return r < 0 ? (int)r : 0;
}

/* --verify: the copy read back from storage; a mismatch is copied once
 * more and read back again, then it is the file's failure. */
static int verify(struct fcp_entry *e, int out)
{
	int r = fcp_verify_readback(e->w, e->d, out, e->vsum, e->cloned);

	if (r != FCP_EVERIFY)
		return r;
	r = copy_again(e, out);
	return r < 0 ? r : fcp_verify_readback(e->w, e->d, out, e->vsum, e->cloned);
}

/* The bytes of a copy that is not made count for nothing (the summary's
 * bytes are the data in the copies); a try again counts its own. Those
 * of a large file's runners are counted by chunk (chunk.c): not here. */
static void uncount(struct fcp_entry *e)
{
	if (e->xfer && e->xfer->counted)
		atomic_fetch_sub(&e->job->c.bytes, (unsigned long long)e->xfer->counted);
}

void fcp_file_finish(struct fcp_entry *e, struct fcp_hl_entry *hl, int out,
		     struct fcp_tmp *tmp, int err, const char *what)
{
	struct fcp_at at = FCP_AT_NEW(out, e->d, e->create_mode);
	struct fcp_hash h;

	if (err < 0)
		goto fail;
	what = "cannot verify copy of";
	if (e->vsum && e->job->o->verify && (err = verify(e, out)) < 0)
		goto fail;
	/* --manifest: the hash of the bytes written (verified, with --verify). */
	if (e->vsum)
		fcp_vsum_hash(e->vsum, &h);
	/* Rewritten in place: an inode of its own past, not a new one; its
	 * xattrs the source lacks stay, as cp leaves them, and so does its
	 * mode where the source's is not given (--no-preserve=mode): a
	 * private file is not opened to others. */
	if (tmp->in_place)
		at = (struct fcp_at){ .fd = out, .dirfd = -1, .existed = true };
	what = "cannot read the extended attributes of";
	if ((err = fcp_meta_copy(e->job, FCP_AT_FD(e->src_fd), at, &e->st, e->d, e->name)) < 0)
		goto fail;
	what = "cannot sync copy of";
	if (e->job->o->fsync && (err = fcp_sys_fsync(out)) < 0)
		goto fail;
	/* Whole, with its metadata: no longer a rewrite half done. */
	if (tmp->in_place)
		fcp_sys_removexattr(out, -1, NULL, FCP_INPLACE_MARKER);
	err = fcp_dest_commit_file(e->w, e->d, tmp, out, e->dst_name, &what);
	if (err < 0) {
		uncount(e);
		fcp_entry_fail(e, what, err);
		goto out;
	}
	atomic_fetch_add(&e->job->c.files, 1);
	if (e->job->o->debug && e->xfer)
		fcp_debug_file(e->job, e->d, e->name, e->dst_name, e->xfer, e->xfer->wlock);
	else if (e->job->o->debug)
		fcp_debug_item(e->job, e->d, e->name, e->dst_name, "no data (--attributes-only)");
	/* What was there before is replaced: an "update" (VOCABULARY). */
	if (e->dst_mode)
		atomic_fetch_add(&e->job->c.replaced, 1);
	fcp_obs_item(e->job, e->dst_mode ? FCP_OBS_UPDATE : FCP_OBS_COPY, S_IFREG, e->d, e->name,
		     e->dst_name, e->st.stx_size, e->engine, e->changes);
	fcp_manifest_copied(e->job, e->d, e->dst_name, e->vsum ? &h : NULL);
	if (e->vsum && hl)
		fcp_hl_set_hash(hl, &h);
	fcp_move_made(e->job, fcp_statx_dev(&e->st), e->st.stx_ino, e->d->dst_fd, e->dst_name);
	goto out;
fail:
	fcp_dest_discard_file(e->job, e->d, tmp, out);
	uncount(e);
	/* A transient error: tried again from scratch (its copy is gone, its
	 * name free), or its last failure. */
	if (!fcp_retry_later(e, err))
		fcp_entry_fail(e, what, err);
out:
	close(e->src_fd);
	fcp_dedup_done(e->w, e, err == 0);
	fcp_hl_done(e->w, hl, err == 0);
}

/* Has the file to rewrite (st) other names? Counted where links are not
 * kept: the user asked for them to see the new data. */
static bool shared(struct fcp_entry *e, const struct statx *st)
{
	if (st->stx_nlink < 2)
		return false;
	if (!(e->job->o->preserve & FCP_PRESERVE_LINKS))
		atomic_fetch_add(&e->job->c.in_place_shared, 1);
	return true;
}

/* --in-place onto a file that a mount shows in DEST and that is a file
 * of SOURCE (srcmount.h): its rewrite would empty a source, perhaps
 * before it is read, perhaps the one being copied. Refused: a copy made
 * the usual way could not take its name either (rename(2) onto a mount
 * point fails). True after saying so; the item failed. */
static bool source_mounted(struct fcp_entry *e, int fd, const struct statx *st)
{
	char *src, *p;
	bool holds;

	if (!fcp_srcmount_point(e->d->dst_fd, fd, st) ||
	    !(src = fcp_srcmount_find(e->job, fd, st, 0, &holds)))
		return false;
	p = fcp_dir_dst_path(e->d, e->dst_name);
	if (e->d->root)
		atomic_fetch_add(&e->d->root->failed, 1); /* not whole (fcp_dest_unhide) */
	atomic_store(&e->d->failed_in, true);
	fcp_report_failed_pair(e->job, "--in-place: will not rewrite a SOURCE file mounted "
			       "inside DEST:", p, "is", src);
	free(p);
	free(src);
	return true;
}

/*
 * --in-place: a regular file that the plan found there (never a symlink's
 * target) is opened and emptied, to be rewritten as cp does: the same
 * inode, so those who hold it open see the new data (one with other
 * names is replaced instead: shared()). A reader may see it
 * half written, and a copy that fails leaves it so (reported). -ENOENT
 * when there is no such file: the copy is made the usual way.
 */
static int open_in_place(struct fcp_entry *e, struct fcp_tmp *t)
{
	/* Before it is emptied, it is marked unfinished (an xattr, taken off
	 * once it is whole) and gets an mtime no finished copy has (the epoch) until
	 * the source's is set last: a copy killed half way, whose writes
	 * gave it a newer mtime than its source's, is then copied again by
	 * -u and --sync instead of being kept for good (plan.c). */
	static const struct timespec unfinished[2] = { { 0, UTIME_OMIT }, { 0, 0 } };
	struct statx st;
	int fd, r, when, mark;

	/* A backup is the old inode: it must keep the old data. */
	if (!e->job->o->in_place || e->job->o->backup || !S_ISREG(e->dst_mode))
		return -ENOENT;
	fd = fcp_sys_openat(e->d->dst_fd, e->dst_name,
			    fcp_dest_flags(e->job, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
						       O_CLOEXEC), 0);
	if (fd < 0)
		return fd == -ELOOP || fd == -ENXIO ? -ENOENT : fd;
	/* Swapped since the plan looked: not the file to rewrite. One with
	 * other names is replaced whole, never rewritten: another name may
	 * be a source (a copy made by -l, another SOURCE) or an older
	 * snapshot made by cp -al or rsync --link-dest, whose data the
	 * rewrite would destroy. Where links are not kept that is said at
	 * the end (counted); where they are, cp -a replaces it too. */
	if ((r = fcp_sys_fstatx(fd, &st)) < 0 || !S_ISREG(st.stx_mode) || st.stx_ino != e->dst_ino ||
	    shared(e, &st)) {
		close(fd);
		return r < 0 ? r : -ENOENT;
	}
	if (source_mounted(e, fd, &st)) {
		close(fd);
		return -ECANCELED;
	}
	/* Marked before it is emptied, by either sign: the epoch mtime needs
	 * its owner, the xattr where they cannot be set is missing. Where
	 * neither holds (a file of another owner on such a filesystem), a
	 * killed rewrite could not be told: the copy is made the usual way. */
	when = fcp_sys_futimens(fd, unfinished);
	mark = fcp_sys_fsetxattr(fd, FCP_INPLACE_MARKER, "", 0);
	if ((when < 0 && mark < 0) || (r = fcp_sys_ftruncate(fd, 0)) < 0) {
		close(fd);
		return when < 0 && mark < 0 ? -ENOENT : r;
	}
	memset(t, 0, sizeof(*t));
	t->in_place = true;
	e->create_mode = 0;
	return fd;
}

void fcp_file_copy(struct fcp_entry *e)
{
	struct fcp_hl_entry *hl = NULL;
	struct fcp_resume rs = { 0 };
	/* --attributes-only copies no data: nothing to resume. */
	bool resumable = fcp_resume_wanted(e) && !e->job->o->attributes_only, cloned = false;
	struct fcp_vsum sum = { 0 };
	struct fcp_tmp tmp;
	struct fcp_xfer x;
	ssize_t r = 0;
	int out;

	if (e->job->o->make != FCP_MAKE_COPY) {
		fcp_entry_link(e);
		close(e->src_fd);
		return;
	}
	if (fcp_entry_hardlink(e, &hl)) {
		close(e->src_fd);
		return;
	}
	if (fcp_dedup_settled(e, hl))
		return;
	e->create_mode = fcp_meta_create_mode(e->job, &e->st, e->d);
	/* A file to resume is never rewritten in place: its record is on
	 * the copy under a name of its own. */
	if (resumable)
		out = fcp_resume_open(e, &tmp, &rs);
	else if ((out = open_in_place(e, &tmp)) == -ENOENT)
		out = fcp_dest_create(e->w, e->d, &tmp, e->create_mode, e->dst_name,
				      fcp_hook_may_share(e->job, e->st.stx_size));
	if (rs.found)
		e->create_mode = 0; /* a killed run made it: its mode is set at the end */
	if (out < 0) {
		/* (-ECANCELED: refused, said) */
		if (out != -ECANCELED && !fcp_retry_later(e, out))
			fcp_entry_fail(e, "cannot create copy of", out);
		close(e->src_fd);
		fcp_dedup_done(e->w, e, false);
		fcp_hl_done(e->w, hl, false);
		return;
	}
	/* --attributes-only: an empty file with the source's metadata. */
	if (e->job->o->attributes_only) {
		fcp_file_finish(e, hl, out, &tmp, 0, NULL);
		return;
	}
	x = xfer_of(e, out);
	e->vsum = fcp_copy_hashed(e->job) ? &sum : NULL;
	/* A clone is one call for the whole file: only a file that was not
	 * cloned is shared out in chunks (with a hash of their own). */
	if (e->dd_from >= 0) /* --dedup: a clone of its first copy */
		r = fcp_dedup_clone(e, out, &cloned);
	if (!rs.done && r >= 0 && !cloned)
		r = fcp_data_clone(&x, &cloned);
	e->cloned = cloned;
	if (r >= 0 && !cloned) {
		if (!tmp.in_place && fcp_chunk_start(e, &x, hl, &tmp, resumable ? &rs : NULL)) {
			e->vsum = NULL;
			return;
		}
		r = copy_hashed(e, &x);
	} else if (r >= 0 && e->vsum) {
		int t = hash_clone_source(e, &x);
		r = t < 0 ? t : r;
	}
	if (rs.found) /* copied whole after all: its record goes */
		fcp_resume_forget(out);
	/* Start writing a medium file back now: the device writes it while
	 * the next ones are read, instead of all at the final sync (mixed
	 * workload cold: 0.84x the time). Not for small files (the writeback
	 * of many small files is CPU work, measured no faster), nor for large
	 * ones: sync_file_range waits while it queues that much (one worker
	 * copying four 512 MiB files, warm: 1.76 s before the final sync
	 * instead of 0.35 s, 2.036 s in all against 1.895 s), and the
	 * kernel's own writeback starts on them anyway; chunks of large
	 * ones are written back by idle workers instead (chunk.c). */
	if (r > FCP_SMALL_MAX && r <= FCP_LARGE_MIN && !cloned)
		fcp_sys_writeback_start(out, 0, 0);
	if (r >= 0) {
		/* c.bytes grew as the engines wrote (engine.h). */
		atomic_fetch_add(&e->job->c.cloned, cloned);
		/* What was not written: cloned (shared), or holes. */
		if (cloned)
			atomic_fetch_add(&e->job->c.cloned_bytes, (unsigned long long)r);
		else if (r < x.size)
			atomic_fetch_add(&e->job->c.holes, (unsigned long long)(x.size - r));
	}
	e->xfer = &x;
	e->engine = x.used ? x.used->name : NULL;
	fcp_file_finish(e, hl, out, &tmp, r < 0 ? (int)r : 0,
			e->job->o->reflink == FCP_REFLINK_ALWAYS ? "cannot clone" : "cannot copy");
	fcp_vsum_free(&sum);
	e->vsum = NULL;
}
