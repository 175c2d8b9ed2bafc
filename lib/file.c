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
#include "debug.h"
#include "dest.h"
#include "engine.h"
#include "entry.h"
#include "links.h"
#include "meta.h"
#include "sys.h"

#include <errno.h>
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

void fcp_file_finish(struct fcp_entry *e, struct fcp_hl_entry *hl, int out,
		     struct fcp_tmp *tmp, int err, const char *what)
{
	struct fcp_at at = FCP_AT_NEW(out, e->d, e->create_mode);

	if (err < 0)
		goto fail;
	/* Rewritten in place: an inode of its own past, not a new one; its
	 * xattrs the source lacks stay, as cp leaves them. */
	if (tmp->in_place)
		at = (struct fcp_at){ .fd = out, .dirfd = -1 };
	fcp_meta_copy(e->job, FCP_AT_FD(e->src_fd), at, &e->st, e->d, e->name);
	what = "cannot sync copy of";
	if (e->job->o->fsync && (err = fcp_sys_fsync(out)) < 0)
		goto fail;
	err = fcp_dest_commit_file(e->w, e->d, tmp, out, e->dst_name, &what);
	if (err < 0) {
		fcp_entry_fail(e, what, err);
		goto out;
	}
	atomic_fetch_add(&e->job->c.files, 1);
	if (e->job->o->debug && e->xfer)
		fcp_debug_file(e->job, e->d, e->name, e->dst_name, e->xfer, e->xfer->wlock);
	else if (e->job->o->debug)
		fcp_debug_item(e->job, e->d, e->name, e->dst_name, "no data (--attributes-only)");
	goto out;
fail:
	fcp_entry_fail(e, what, err);
	fcp_dest_discard_file(e->job, e->d, tmp, out);
out:
	close(e->src_fd);
	fcp_hl_done(e->w, hl, err == 0);
}

/*
 * --in-place: a regular file that the plan found there (never a symlink's
 * target) is opened and emptied, to be rewritten as cp does: the same
 * inode, so its other hard links (where links are not kept) and those who
 * hold it open see the new data. A reader may see it
 * half written, and a copy that fails leaves it so (reported). -ENOENT
 * when there is no such file: the copy is made the usual way.
 */
static int open_in_place(struct fcp_entry *e, struct fcp_tmp *t)
{
	struct statx st;
	int fd, r;

	/* A backup is the old inode: it must keep the old data. */
	if (!e->job->o->in_place || e->job->o->backup || !S_ISREG(e->dst_mode))
		return -ENOENT;
	fd = fcp_sys_openat(e->d->dst_fd, e->dst_name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK |
			    O_NOCTTY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd == -ELOOP || fd == -ENXIO ? -ENOENT : fd;
	/* Swapped since the plan looked: not the file to rewrite. Hard
	 * links kept, one with other names is replaced, as cp -a does. */
	if ((r = fcp_sys_fstatx(fd, &st)) < 0 || !S_ISREG(st.stx_mode) || st.stx_ino != e->dst_ino ||
	    (st.stx_nlink > 1 && (e->job->o->preserve & FCP_PRESERVE_LINKS)) ||
	    (r = fcp_sys_ftruncate(fd, 0)) < 0) {
		close(fd);
		return r < 0 ? r : -ENOENT;
	}
	memset(t, 0, sizeof(*t));
	t->in_place = true;
	e->create_mode = 0;
	return fd;
}

void fcp_file_copy(struct fcp_entry *e)
{
	struct fcp_hl_entry *hl = NULL;
	struct fcp_tmp tmp;
	struct fcp_xfer x;
	bool cloned;
	ssize_t r;
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
	e->create_mode = fcp_meta_create_mode(e->job, &e->st, e->d);
	out = open_in_place(e, &tmp);
	if (out == -ENOENT)
		out = fcp_dest_create(e->w, e->d, &tmp, e->create_mode, e->dst_name);
	if (out < 0) {
		fcp_entry_fail(e, "cannot create copy of", out);
		close(e->src_fd);
		fcp_hl_done(e->w, hl, false);
		return;
	}
	/* --attributes-only: an empty file with the source's metadata. */
	if (e->job->o->attributes_only) {
		fcp_file_finish(e, hl, out, &tmp, 0, NULL);
		return;
	}
	x = xfer_of(e, out);
	/* A clone is one call for the whole file: only a file that was not
	 * cloned is shared out in chunks. */
	r = fcp_data_clone(&x, &cloned);
	if (r >= 0 && !cloned) {
		if (!tmp.in_place && fcp_chunk_start(e, &x, hl, &tmp))
			return;
		r = fcp_data_copy(&x);
	}
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
		atomic_fetch_add(&e->job->c.bytes, (unsigned long long)r);
		atomic_fetch_add(&e->job->c.cloned, cloned);
	}
	e->xfer = &x;
	fcp_file_finish(e, hl, out, &tmp, r < 0 ? (int)r : 0,
			e->job->o->reflink == FCP_REFLINK_ALWAYS ? "cannot clone" : "cannot copy");
}
