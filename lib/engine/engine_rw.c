/*
 * engine_rw.c - pread/pwrite through the worker's buffer: works on every
 * pair of files, and is the last entry of the table.
 */
#include "engine/engine.h"
#include "core/limiter.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <string.h>

/* No read-ahead hints of its own: the kernel's read-ahead follows each
 * sequential stream, chunk runners' interleaved ones too, in larger steps.
 * A POSIX_FADV_WILLNEED for the next MiB at every MiB, measured against
 * none in one table (cold, four 512 MiB files, BENCHMARKS.md): 3.514 s
 * against 2.509 s, and 1.31 s of system time against 0.35 s. */

#define ZERO_BLOCK 4096

static bool all_zero(const char *p, size_t n)
{
	return n && !p[0] && !memcmp(p, p + 1, n - 1);
}

/* --sparse=always: write the blocks of buf that hold data, skip the rest. */
static ssize_t write_data_blocks(struct fcp_xfer *x, const char *buf, size_t n, off_t pos)
{
	for (size_t at = 0; at < n; at += ZERO_BLOCK) {
		size_t len = n - at < ZERO_BLOCK ? n - at : ZERO_BLOCK;
		ssize_t m;

		if (all_zero(buf + at, len))
			continue;
		if ((m = fcp_sys_pwrite_full(x->out, buf + at, len, pos + at)) < 0)
			return m;
	}
	return n;
}

ssize_t fcp_rw_write(struct fcp_xfer *x, const char *buf, size_t n, off_t pos)
{
	ssize_t m;

	fcp_xfer_write_begin(x);
	m = fcp_xfer_zero_holes(x) ? write_data_blocks(x, buf, n, pos)
				   : fcp_sys_pwrite_full(x->out, buf, n, pos);
	fcp_xfer_write_end(x);
	FCP_XFER_IO(x, 1);
	return m;
}

/*
 * The ways a file read with O_DIRECT may go with several requests in
 * flight, tried in this order: a medium file whole (direct_pipe.c), a
 * large file's chunk (direct_ahead.c). Each answers the bytes it copied
 * from off, -errno, or 0 to leave the rest to the next; the synchronous
 * loop of rw_copy is the last, and the only one without io_uring.
 */
static ssize_t (*const direct_ways[])(struct fcp_xfer *x, off_t off, size_t len) = {
	fcp_direct_pipe,
	fcp_direct_ahead,
};

static ssize_t rw_copy(struct fcp_xfer *x, off_t off, size_t len)
{
	size_t bufsz, done = 0;
	ssize_t n;
	char *buf;

	if (x->direct == 0 && off == 0)
		fcp_direct_start(x);
	for (size_t i = 0; x->direct > 0 && i < sizeof(direct_ways) / sizeof(direct_ways[0]); i++)
		if ((n = direct_ways[i](x, off, len)) != 0)
			return n;
	buf = x->direct > 0 ? fcp_worker_direct_buf(x->w, &bufsz) : fcp_worker_buf(x->w, &bufsz);
	if (!buf)
		return -ENOMEM;
	while (done < len) {
		size_t want = len - done < bufsz ? len - done : bufsz;
		off_t pos = off + done;

		/* --bwlimit, --iolimit: this read and its write (a wait there
		 * ends early for a stopped job, seen at once below) */
		fcp_limit_take(fcp_worker_job(x->w), want, 2);
		if ((n = fcp_xfer_stopped(x)) < 0)
			return n;
		n = x->direct > 0 ? fcp_direct_pread(x, buf, want, pos)
				  : fcp_sys_pread_full(x->in, buf, want, pos);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		FCP_XFER_IO(x, 1);
		if (x->vs)
			fcp_vstream_feed(x->vs, buf, (size_t)n, (uint64_t)pos);
		ssize_t m = fcp_rw_write(x, buf, n, pos);
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
