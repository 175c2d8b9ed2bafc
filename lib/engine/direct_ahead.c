/*
 * direct_ahead.c - a large file's chunk read around the page cache with
 * several reads in flight.
 *
 * A chunk runner (chunk.c) reading with O_DIRECT one 1 MiB read at a time
 * leaves the device one request of it: read, wait, write, read the next.
 * With two runners the source device had 2 to 3 requests in flight where
 * cp -a, through the kernel's read-ahead, kept 4 to 8. Here a data extent
 * of the chunk is read through the worker's io_uring into the direct
 * pipe's AHEAD_DEPTH slots (direct_pipe.c's buffer): every slot's read is
 * in flight at once, and the runner writes the oldest one (in offset
 * order, so --verify hashes in order; under the file's write lock, through
 * the cache, as the synchronous loop does) while the others are read, then
 * issues that slot's next read. Cold large files from a direct-I/O loop:
 * 8 requests in flight, half the time of one read per runner
 * (docs/benchmarks/2026-12-03-large-files-reads-in-flight.md).
 *
 * A read short of its ask by whole blocks is asked again for the rest
 * (direct reads may be); one short by a part of a block, or empty, ends
 * the call there (the source ends, or answers in odd parts): the reads
 * after it are waited for and dropped, and the caller asks again from
 * there, as with any engine. What the pipe cannot do (no io_uring,
 * --no-io-uring, an unaligned start, a filesystem that refuses the direct
 * read's alignment, the kernel short of resources) it leaves to the
 * synchronous loop from where it stopped, by answering with what it
 * wrote, or 0 when nothing.
 */
#include "config.h"
#include "engine/engine.h"
#include "core/limiter.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

/* The direct pipe's buffer (worker.c's FCP_PIPE_BUF_SIZE) in slots. */
#define AHEAD_SLOT ((size_t)1 << 20)
#define AHEAD_DEPTH 4u
/* As direct_pipe.c: older kernels may complete a direct read with -EAGAIN
 * for the caller to issue again; so many times in a call, then the
 * synchronous loop reads on. */
#define AHEAD_AGAIN_MAX 16
#define PENDING INT_MIN

#ifdef HAVE_LIBURING
#include <liburing.h>

struct ahead {
	struct fcp_xfer *x;
	struct io_uring *ring;
	char *buf;                /* AHEAD_DEPTH slots */
	off_t next, end;          /* the next read starts at next; all before end */
	off_t at[AHEAD_DEPTH];    /* where each slot's read starts */
	size_t want[AHEAD_DEPTH]; /* bytes it asks (its length is whole blocks) */
	int res[AHEAD_DEPTH];     /* its result, PENDING while in flight */
	unsigned head, queued;    /* the oldest slot read and not written; how many */
	unsigned inflight, again;
	size_t done;              /* bytes written */
};

static char *slot_buf(struct ahead *a, unsigned s)
{
	return a->buf + (size_t)s * AHEAD_SLOT;
}

static void submit(struct ahead *a, unsigned s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(a->ring);
	size_t len = (a->want[s] + FCP_DIRECT_ALIGN - 1) & ~(size_t)(FCP_DIRECT_ALIGN - 1);

	/* The kernel stops a whole-block read at the end of the file. */
	io_uring_prep_read(sqe, a->x->in, slot_buf(a, s), (unsigned)len, (uint64_t)a->at[s]);
	io_uring_sqe_set_data64(sqe, s);
	a->res[s] = PENDING;
	a->inflight++;
}

/* The next read, into the slot after the newest; false when every slot
 * is taken, the range is all asked for, or the job stops. Submitted by
 * the next wait. */
static bool read_next(struct ahead *a)
{
	unsigned s = (a->head + a->queued) % AHEAD_DEPTH;
	size_t want = a->end - a->next < (off_t)AHEAD_SLOT ? (size_t)(a->end - a->next) : AHEAD_SLOT;

	if (a->queued == AHEAD_DEPTH || a->next >= a->end || fcp_xfer_stopped(a->x))
		return false;
	/* --bwlimit, --iolimit: this read and its write */
	fcp_limit_take(fcp_worker_job(a->x->w), want, 2);
	a->at[s] = a->next;
	a->want[s] = want;
	a->next += (off_t)want;
	a->queued++;
	submit(a, s);
	return true;
}

static void on_cqe(void *ctx, uint64_t data, int res)
{
	struct ahead *a = ctx;

	if (data >= AHEAD_DEPTH)
		abort(); /* not this pipe's: the ring is broken */
	a->inflight--;
	a->res[data] = res;
	FCP_XFER_IO(a->x, 1);
}

/* The oldest slot's result, once it is in; a transient refusal is issued
 * again (a bounded number of times). */
static int wait_head(struct ahead *a)
{
	unsigned s = a->head;

	for (;;) {
		while (a->res[s] == PENDING)
			fcp_uring_wait(a->ring, 1, on_cqe, a);
		if ((a->res[s] != -EAGAIN && a->res[s] != -EINTR) || a->again >= AHEAD_AGAIN_MAX)
			return a->res[s];
		a->again++;
		submit(a, s);
	}
}

/* Write slot s's got bytes, hashed first for --verify; 0 or -errno. */
static int write_slot(struct ahead *a, unsigned s, size_t got)
{
	ssize_t m;

	if (a->x->vs)
		fcp_vstream_feed(a->x->vs, slot_buf(a, s), got, (uint64_t)a->at[s]);
	m = fcp_rw_write(a->x, slot_buf(a, s), got, a->at[s]);
	if (m < 0)
		return (int)m;
	FCP_XFER_BYTES(a->x, got);
	return 0;
}

/* Slots in offset order until none is left or one is short: 0, or
 * -errno (a->done says how far it came). */
static int run(struct ahead *a)
{
	while (read_next(a))
		;
	while (a->queued) {
		unsigned s = a->head;
		int r = wait_head(a);
		size_t got;

		if (r < 0)
			return r;
		got = (size_t)r < a->want[s] ? (size_t)r : a->want[s];
		if (got && (r = write_slot(a, s, got)) < 0)
			return r;
		a->done += got;
		/* Short by whole blocks: not the end of the file (that ends a
		 * read mid-block, or with 0), the rest is asked again. */
		if (got && got < a->want[s] && got % FCP_DIRECT_ALIGN == 0) {
			a->at[s] += (off_t)got;
			a->want[s] -= got;
			submit(a, s);
			continue;
		}
		a->head = (s + 1) % AHEAD_DEPTH;
		a->queued--;
		if (got < a->want[s])
			break;
		while (read_next(a))
			;
	}
	return 0;
}

ssize_t fcp_direct_ahead(struct fcp_xfer *x, off_t off, size_t len)
{
	struct fcp_job *job = fcp_worker_job(x->w);
	struct ahead a = { .x = x, .next = off, .end = off + (off_t)len };
	int r;

	/* A chunk's data (a shared file, written under its lock) read
	 * directly from an aligned start, more than one slot of it. */
	if (!x->wlock || x->direct <= 0 || off % FCP_DIRECT_ALIGN || len <= AHEAD_SLOT ||
	    job->o->no_io_uring || !atomic_load(&job->uring_ok) ||
	    !(a.buf = fcp_worker_pipe_buf(x->w)) || !(a.ring = fcp_uring_ring(x->w)))
		return 0;
	r = run(&a);
	/* Nothing of this call stays on the worker's ring. */
	while (a.inflight)
		fcp_uring_wait(a.ring, a.inflight, on_cqe, &a);
	x->ahead |= a.done > 0;
	/* Refused here (the alignment, the kernel's resources): the
	 * synchronous loop goes on from the first byte not written (the
	 * caller asks again from there, and this call answers 0). */
	if (r == -EINVAL || r == -EAGAIN || r == -EINTR)
		return (ssize_t)a.done;
	/* Stopped (a signal, a full destination): why, not a short count. */
	if (r == 0 && a.done < len && (r = fcp_xfer_stopped(x)) == 0)
		return (ssize_t)a.done;
	return r < 0 ? r : (ssize_t)a.done;
}

#else /* !HAVE_LIBURING */

ssize_t fcp_direct_ahead(struct fcp_xfer *x, off_t off, size_t len)
{
	return 0;
}

#endif
