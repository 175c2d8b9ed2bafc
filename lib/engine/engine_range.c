/*
 * engine_range.c - copy_file_range: the kernel moves the bytes, without a
 * round trip through user memory (and server-side on NFS).
 */
#include "engine/engine.h"
#include "core/limiter.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>

/* One call moves at most this much, so that a stopped job is seen soon
 * even on a slow source (and another runner gets the write lock). */
#define RANGE_STEP ((size_t)8 << 20)

static ssize_t range_copy(struct fcp_xfer *x, off_t off, size_t len)
{
	off_t in_off = off, out_off = off;
	size_t done = 0;

	while (done < len) {
		struct fcp_job *job = fcp_worker_job(x->w);
		size_t step = fcp_limit_step(job, len - done < RANGE_STEP ? len - done : RANGE_STEP);
		ssize_t n;

		fcp_limit_take(job, step, 1); /* --bwlimit, --iolimit */
		if ((n = fcp_xfer_stopped(x)) < 0)
			return done ? (ssize_t)done : n;
		/* It writes too: one writer at a time (struct fcp_xfer). */
		fcp_xfer_write_begin(x);
		n = fcp_sys_copy_file_range(x->in, &in_off, x->out, &out_off, step);
		fcp_xfer_write_end(x);
		FCP_XFER_IO(x, 1);
		/* Report progress first; the error comes back on the next call. */
		if (n < 0)
			return done ? (ssize_t)done : n;
		if (n == 0) {
			/* End of file came early: the file shrank, or it is
			 * one whose data copy_file_range cannot see (procfs
			 * and sysfs answered 0 on some kernels since Linux
			 * 5.3), or a read error the kernel's splice fallback
			 * answered with 0 (FUSE). One byte read tells; if
			 * there is more, plain reads take the rest. */
			char c;
			ssize_t r = fcp_sys_pread(x->in, &c, 1, in_off);
			if (r != 0)
				return done ? (ssize_t)done : r > 0 ? -EINVAL : r;
			break;
		}
		done += n;
		FCP_XFER_BYTES(x, n);
	}
	return done;
}

const struct fcp_engine fcp_engine_range = { "copy_file_range", 1, false, range_copy };
