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
#include "dest.h"
#include "engine.h"
#include "entry.h"
#include "links.h"
#include "meta.h"
#include "sys.h"
#include "observe.h"

#include <errno.h>
#include <unistd.h>

static struct fcp_xfer xfer_of(struct fcp_entry *e, int out)
{
	return (struct fcp_xfer){
		.w = e->w,
		.in = e->src_fd,
		.out = out,
		.size = (off_t)e->st.stx_size,
		.allocated = e->st.stx_blocks * 512,
		.src_dev = fcp_statx_dev(&e->st),
		.dst_dev = e->d->dst_dev,
	};
}

void fcp_file_finish(struct fcp_entry *e, struct fcp_hl_entry *hl, int out,
		     struct fcp_tmp *tmp, int err, const char *what)
{
	if (err < 0)
		goto fail;
	fcp_meta_copy(e->job, FCP_AT_FD(e->src_fd), FCP_AT_NEW(out, e->d, e->create_mode), &e->st,
		      e->d, e->name);
	what = "cannot sync copy of";
	if (e->job->o->fsync && (err = fcp_sys_fsync(out)) < 0)
		goto fail;
	err = fcp_dest_commit_file(e->w, e->d, tmp, out, e->dst_name, &what);
	if (err < 0) {
		fcp_entry_fail(e, what, err);
		goto out;
	}
	atomic_fetch_add(&e->job->c.files, 1);
	fcp_obs_entry(e->job, FCP_OBS_COPY, S_IFREG, e->d, e->name, e->st.stx_size, e->engine);
	goto out;
fail:
	fcp_entry_fail(e, what, err);
	fcp_dest_discard_file(e->job, e->d, tmp, out);
out:
	close(e->src_fd);
	fcp_hl_done(e->w, hl, err == 0);
}

void fcp_file_copy(struct fcp_entry *e)
{
	struct fcp_hl_entry *hl = NULL;
	struct fcp_tmp tmp;
	struct fcp_xfer x;
	bool cloned;
	ssize_t r;
	int out;

	if (fcp_entry_hardlink(e, &hl)) {
		close(e->src_fd);
		return;
	}
	e->create_mode = fcp_meta_create_mode(e->job, &e->st, e->d);
	out = fcp_dest_create(e->w, e->d, &tmp, e->create_mode, e->dst_name);
	if (out < 0) {
		fcp_entry_fail(e, "cannot create copy of", out);
		close(e->src_fd);
		fcp_hl_done(e->w, hl, false);
		return;
	}
	x = xfer_of(e, out);
	/* A clone is one call for the whole file: only a file that was not
	 * cloned is shared out in chunks. */
	r = fcp_data_clone(&x, &cloned);
	if (r >= 0 && !cloned) {
		if (fcp_chunk_start(e, &x, hl, &tmp))
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
		/* c.bytes grew as the engines wrote (engine.h). */
		atomic_fetch_add(&e->job->c.cloned, cloned);
		/* What was not written: cloned (shared), or holes. */
		if (cloned)
			atomic_fetch_add(&e->job->c.cloned_bytes, (unsigned long long)r);
		else if (r < x.size)
			atomic_fetch_add(&e->job->c.holes, (unsigned long long)(x.size - r));
	}
	e->engine = x.engine;
	fcp_file_finish(e, hl, out, &tmp, r < 0 ? (int)r : 0,
			e->job->o->reflink == FCP_REFLINK_ALWAYS ? "cannot clone" : "cannot copy");
}
