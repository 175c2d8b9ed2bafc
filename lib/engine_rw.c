/*
 * engine_rw.c - pread/pwrite through the worker's buffer: works on every
 * pair of files, and is the last entry of the table.
 */
#include "engine.h"
#include "sys.h"

#include <errno.h>

/* No read-ahead hints of its own: the kernel's read-ahead follows each
 * sequential stream, chunk runners' interleaved ones too, in larger steps.
 * A POSIX_FADV_WILLNEED for the next MiB at every MiB, measured against
 * none in one table (cold, four 512 MiB files, BENCHMARKS.md): 3.514 s
 * against 2.509 s, and 1.31 s of system time against 0.35 s. */

static ssize_t rw_copy(struct fcp_xfer *x, off_t off, size_t len)
{
	size_t bufsz, done = 0;
	char *buf;

	if (x->direct == 0 && off == 0)
		fcp_direct_start(x);
	buf = x->direct > 0 ? fcp_worker_direct_buf(x->w, &bufsz) : fcp_worker_buf(x->w, &bufsz);
	if (!buf)
		return -ENOMEM;
	while (done < len) {
		size_t want = len - done < bufsz ? len - done : bufsz;
		off_t pos = off + done;
		ssize_t n = fcp_xfer_stopped(x);

		if (n < 0)
			return n;
		n = x->direct > 0 ? fcp_direct_pread(x, buf, want, pos)
				  : fcp_sys_pread_full(x->in, buf, want, pos);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		if (x->vs)
			fcp_vstream_feed(x->vs, buf, (size_t)n, (uint64_t)pos);
		fcp_xfer_write_begin(x);
		ssize_t m = fcp_sys_pwrite_full(x->out, buf, n, pos);
		fcp_xfer_write_end(x);
		FCP_XFER_IO(x, 2);
		if (m < 0)
			return m;
		FCP_XFER_BYTES(x, n);
		done += n;
		if ((size_t)n < want)
			break;
	}
	return done;
}

const struct fcp_engine fcp_engine_rw = { "read/write", 2, false, rw_copy };
