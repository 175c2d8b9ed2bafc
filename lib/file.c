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

static bool same_fs(const struct fcp_entry *e)
{
	/* Compare the destination directory's filesystem once per file;
	 * one fstat is cheaper than a failed clone or a wrong engine. */
	struct statx dst;

	if (fcp_sys_fstatx(e->d->dst_fd, &dst) < 0)
		return false;
	return dst.stx_dev_major == e->st.stx_dev_major && dst.stx_dev_minor == e->st.stx_dev_minor;
}

static int copy_data(struct fcp_entry *e, int out)
{
	struct fcp_xfer x = {
		.w = e->w,
		.in = e->src_fd,
		.out = out,
		.size = (off_t)e->st.stx_size,
		.allocated = e->st.stx_blocks * 512,
		.same_fs = false,
	};
	bool cloned;
	ssize_t r;

	/* Only reflink=never cares: there, copy_file_range may clone. */
	if (e->job->o->reflink == FCP_REFLINK_NEVER)
		x.same_fs = same_fs(e);
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
	fcp_meta_copy(e->job, FCP_AT_FD(e->src_fd), FCP_AT_FD(out), &e->st, e->d, e->name);
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
