/*
 * file.c - the pipeline of one regular file:
 *   open (done by entry.c) -> create temp -> data -> metadata -> [fsync]
 *   -> rename into place.
 * Each later stage (hashing, verification, resume records) is one more
 * step in fcp_file_copy(), not a rewrite: the temporary file is only
 * renamed when every stage said yes.
 */
#include "dest.h"
#include "engine.h"
#include "entry.h"
#include "links.h"
#include "meta.h"
#include "sys.h"

#include <errno.h>
#include <unistd.h>

static int copy_data(struct fcp_entry *e, int out)
{
	struct fcp_xfer x = {
		.w = e->w,
		.in = e->src_fd,
		.out = out,
		.size = (off_t)e->st.stx_size,
		.allocated = e->st.stx_blocks * 512,
		.src_dev = fcp_statx_dev(&e->st),
		.dst_dev = e->d->dst_dev,
	};
	bool cloned;
	ssize_t r;

	r = fcp_data_copy(&x, &cloned);
	if (r < 0)
		return (int)r;
	atomic_fetch_add(&e->job->c.bytes, (unsigned long long)r);
	if (cloned)
		atomic_fetch_add(&e->job->c.cloned, 1);
	return 0;
}

void fcp_file_copy(struct fcp_entry *e)
{
	struct fcp_hl_entry *hl = NULL;
	char tmp[FCP_TMPNAME_MAX];
	int out, r;

	if (fcp_entry_hardlink(e, &hl)) {
		close(e->src_fd);
		return;
	}
	out = fcp_dest_create(e->w, e->d->dst_fd, tmp);
	if (out < 0) {
		fcp_entry_fail(e, "cannot create copy of", out);
		goto done;
	}
	r = copy_data(e, out);
	if (r < 0) {
		fcp_entry_fail(e, e->job->o->reflink == FCP_REFLINK_ALWAYS ? "cannot clone" : "cannot copy", r);
		goto discard;
	}
	fcp_meta_copy(e->job, FCP_AT_FD(e->src_fd), FCP_AT_NEW(out, e->d), &e->st, e->d, e->name);
	if (e->job->o->fsync && (r = fcp_sys_fsync(out)) < 0) {
		fcp_entry_fail(e, "cannot sync copy of", r);
		goto discard;
	}
	r = fcp_sys_close(out);
	out = -1;
	if (r < 0) {
		fcp_entry_fail(e, "cannot write copy of", r);
		goto discard;
	}
	r = fcp_dest_commit(e->d->dst_fd, tmp, e->dst_name);
	if (r < 0) {
		fcp_entry_fail(e, r == -EISDIR ? "cannot overwrite directory with" : "cannot rename copy of", r);
		goto done;
	}
	atomic_fetch_add(&e->job->c.files, 1);
	close(e->src_fd);
	fcp_hl_done(e->w, hl, true);
	return;
discard:
	if (out >= 0)
		close(out);
	fcp_dest_discard(e->d->dst_fd, tmp);
done:
	close(e->src_fd);
	fcp_hl_done(e->w, hl, false);
}
