/*
 * engine_rw.c - pread/pwrite through the worker's buffer: works on every
 * pair of files, and is the last entry of the table.
 */
#include <fcntl.h>
#include "engine.h"
#include "sys.h"

#include <errno.h>

/* Reads are asked for this far ahead, whatever the buffer size. */
#define READ_AHEAD ((off_t)1 << 20)

static ssize_t rw_copy(struct fcp_xfer *x, off_t off, size_t len)
{
	size_t bufsz, done = 0;
	char *buf = fcp_worker_buf(x->w, &bufsz);

	if (!buf)
		return -ENOMEM;
	while (done < len) {
		size_t want = len - done < bufsz ? len - done : bufsz;
		off_t pos = off + done;
		ssize_t n;

		/* At each read-ahead step, ask for the next one now, so the
		 * device reads it while this one is written: one stream keeps
		 * the disk busy. */
		if (pos % READ_AHEAD == 0 && done + READ_AHEAD < len)
			fcp_sys_posix_fadvise(x->in, pos + READ_AHEAD, READ_AHEAD,
					      POSIX_FADV_WILLNEED);
		n = fcp_sys_pread_full(x->in, buf, want, pos);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		fcp_xfer_write_begin(x);
		ssize_t m = fcp_sys_pwrite_full(x->out, buf, n, pos);
		fcp_xfer_write_end(x);
		if (m < 0)
			return m;
		done += n;
		if ((size_t)n < want)
			break;
	}
	return done;
}

const struct fcp_engine fcp_engine_rw = { "read/write", 2, false, rw_copy };
