/*
 * direct_pipe.c - a cold medium file copied with several direct requests
 * in flight.
 *
 * A medium file read around the page cache (direct.c) by the synchronous
 * loop has one request in flight: read 1 MiB, wait, copy it into DEST's page
 * cache, read the next. That copy into the page cache was a sixth of all
 * CPU of a cold mixed copy on the benchmark machine (perf record -a, 2 CPUs
 * and both busy). Here the file goes through the worker's io_uring in
 * PIPE_DEPTH slots of PIPE_SLOT: every slot's read is in flight at once,
 * and each slot's data is written to DEST with O_DIRECT as soon as it is
 * read, from the same buffer: no copy, and the device sees several
 * requests of the file at once instead of one. Direct writes wait for the
 * device, so they pay only where the file has several slots to overlap:
 * files of PIPE_MIN and more (a direct write per file of 500 KB made the
 * folders workload slower: docs/benchmarks/
 * 2026-12-02-medium-files-direct-write.md).
 *
 * DEST gets its size first: every direct write then lands inside the file,
 * where XFS takes it under a shared lock, instead of growing it (which
 * waits for the writes before it). The file's last partial block cannot be
 * written directly; it is written through the cache after the rest.
 *
 * Anything the pipe cannot do (no io_uring, a filesystem that refuses
 * O_DIRECT or its alignment) leaves the file to the synchronous loop from
 * its start: the pipe answers 0, having copied nothing that counts, and a
 * refusal turns it off for the rest of the job.
 */
#include "config.h"
#include "engine/engine.h"
#include "core/limiter.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <stdlib.h>

#define PIPE_SLOT ((size_t)1 << 20)
#define PIPE_DEPTH 4
#define PIPE_MIN ((off_t)2 << 20)
/* Older kernels may complete a direct request with -EAGAIN (the device's
 * queue was full) for the caller to issue again: up to this many times in
 * a file, then the synchronous loop copies it. */
#define PIPE_AGAIN_MAX 16

/* What the job's pipes learned (job->direct_pipe, made before the
 * workers start). */
struct fcp_direct_pipe_state {
	atomic_bool refused; /* O_DIRECT refused on a copy: no more pipes */
};

int fcp_direct_pipe_init(struct fcp_job *job)
{
	job->direct_pipe = calloc(1, sizeof(*job->direct_pipe));
	return job->direct_pipe ? 0 : -ENOMEM;
}

void fcp_direct_pipe_free(struct fcp_job *job)
{
	free(job->direct_pipe);
	job->direct_pipe = NULL;
}

#ifdef HAVE_LIBURING
#include <liburing.h>

enum { OP_READ, OP_WRITE };

struct pipe {
	struct fcp_xfer *x;
	struct io_uring *ring;
	char *buf;               /* PIPE_DEPTH slots */
	off_t end;               /* the range is [0, end) */
	off_t next;              /* the next slot's read starts here */
	off_t eof;               /* the source ended here (end if it did not) */
	off_t at[PIPE_DEPTH];    /* offset of each slot's data */
	size_t want[PIPE_DEPTH]; /* bytes asked of each slot's read */
	size_t wlen[PIPE_DEPTH]; /* bytes of each slot's direct write */
	size_t tail;             /* bytes after the last whole block before eof */
	char *tail_buf;          /* where they are (a slot) */
	unsigned inflight;
	unsigned again;          /* -EAGAIN completions issued again */
	uint64_t counted;        /* bytes added to the job's count */
	int err;                 /* the first error */
	bool refused;            /* EINVAL: the synchronous loop does the file */
};

static char *slot_buf(struct pipe *p, unsigned s)
{
	return p->buf + (size_t)s * PIPE_SLOT;
}

static bool going(struct pipe *p)
{
	return !p->err && !p->refused && (p->err = fcp_xfer_stopped(p->x)) == 0;
}

static void submit(struct pipe *p, unsigned s, int op, size_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(p->ring);

	if (op == OP_READ)
		io_uring_prep_read(sqe, p->x->in, slot_buf(p, s), (unsigned)len, (uint64_t)p->at[s]);
	else
		io_uring_prep_write(sqe, p->x->out, slot_buf(p, s), (unsigned)len, (uint64_t)p->at[s]);
	io_uring_sqe_set_data64(sqe, (uint64_t)s << 1 | (uint64_t)op);
	p->inflight++;
}

/* A slot's read asks for whole blocks: the kernel stops at the end of the
 * file. */
static size_t read_len(const struct pipe *p, unsigned s)
{
	return (p->want[s] + FCP_DIRECT_ALIGN - 1) & ~(size_t)(FCP_DIRECT_ALIGN - 1);
}

static void read_next(struct pipe *p, unsigned s)
{
	size_t want = p->end - p->next < (off_t)PIPE_SLOT ? (size_t)(p->end - p->next) : PIPE_SLOT;

	if (p->next >= p->eof || !going(p))
		return;
	/* --bwlimit, --iolimit: this read and its write */
	fcp_limit_take(fcp_worker_job(p->x->w), want, 2);
	p->at[s] = p->next;
	p->want[s] = want;
	p->next += (off_t)want;
	submit(p, s, OP_READ, read_len(p, s));
}

/* A failed op: issued again, or the end of the pipe for this file. */
static void on_error(struct pipe *p, unsigned s, int op, int res)
{
	if ((res == -EAGAIN || res == -EINTR) && p->again < PIPE_AGAIN_MAX && going(p)) {
		p->again++;
		submit(p, s, op, op == OP_READ ? read_len(p, s) : p->wlen[s]);
	} else if (res == -EINVAL || res == -EAGAIN || res == -EINTR) {
		p->refused = true;
	} else if (!p->err) {
		p->err = res;
	}
}

static void count_bytes(struct pipe *p, size_t n)
{
	FCP_XFER_BYTES(p->x, n);
	p->counted += n;
}

static void on_read(struct pipe *p, unsigned s, int res)
{
	size_t got, whole;

	if (res < 0) {
		on_error(p, s, OP_READ, res);
		return;
	}
	got = (size_t)res < p->want[s] ? (size_t)res : p->want[s];
	if (p->at[s] >= p->eof)
		return; /* past an end seen by an earlier slot */
	whole = got & ~(size_t)(FCP_DIRECT_ALIGN - 1);
	/* A read short of its ask: the source ends here (it shrank, or it
	 * answers in parts), and so does the pipe's copy; the caller asks
	 * again from there. What follows the last whole block before the
	 * end (here, or at the file's end) is the tail, written through the
	 * cache once O_DIRECT is off. No slot reads past the end after
	 * this, so the tail's slot is not used again. */
	if (got < p->want[s])
		p->eof = p->at[s] + (off_t)got;
	if (got < p->want[s] || got > whole) {
		p->tail = got - whole;
		p->tail_buf = slot_buf(p, s) + whole;
	}
	p->wlen[s] = whole;
	if (whole && going(p))
		submit(p, s, OP_WRITE, whole);
}

static void on_write(struct pipe *p, unsigned s, int res)
{
	size_t len = p->wlen[s];

	if (res < 0) {
		on_error(p, s, OP_WRITE, res);
		return;
	}
	/* A direct write short of its length: the rest through the usual
	 * call, which reports why (ENOSPC) if it cannot either. */
	if ((size_t)res < len) {
		ssize_t r = fcp_sys_pwrite_full(p->x->out, slot_buf(p, s) + res, len - (size_t)res,
						p->at[s] + res);
		FCP_XFER_IO(p->x, 1);
		if (r < 0) {
			on_error(p, s, OP_WRITE, (int)r);
			return;
		}
	}
	count_bytes(p, len);
	read_next(p, s);
}

/* One completion of this pipe's; only its requests are on the ring now
 * (every other user of it waits for all of its own). */
static void on_cqe(void *ctx, uint64_t data, int res)
{
	struct pipe *p = ctx;
	unsigned s = (unsigned)(data >> 1);

	if (s >= PIPE_DEPTH)
		abort();
	p->inflight--;
	FCP_XFER_IO(p->x, 1);
	if ((data & 1) == OP_READ)
		on_read(p, s, res);
	else
		on_write(p, s, res);
}

/* Completions until nothing is in flight: each may issue the next
 * request of its slot, submitted by the next wait. */
static void run(struct pipe *p)
{
	while (p->inflight)
		fcp_uring_wait(p->ring, p->inflight, on_cqe, p);
}

ssize_t fcp_direct_pipe(struct fcp_xfer *x, off_t off, size_t len)
{
	struct fcp_job *job = fcp_worker_job(x->w);
	struct pipe p = { .x = x, .end = (off_t)len, .eof = (off_t)len };
	ssize_t r;

	/* The whole of a medium file read directly, into a new (empty)
	 * DEST, with nothing to see the bytes on their way. */
	if (off != 0 || (off_t)len != x->size || x->size < PIPE_MIN || x->size > FCP_LARGE_MIN ||
	    x->direct <= 0 || x->wlock || x->vs || fcp_xfer_zero_holes(x) || job->o->no_io_uring ||
	    !atomic_load(&job->uring_ok) || atomic_load(&job->direct_pipe->refused) ||
	    !(p.buf = fcp_worker_pipe_buf(x->w)) || !(p.ring = fcp_uring_ring(x->w)))
		return 0;
	if (fcp_sys_ftruncate(x->out, x->size) < 0 || fcp_sys_set_direct(x->out, true) < 0) {
		atomic_store(&job->direct_pipe->refused, true);
		fcp_sys_ftruncate(x->out, 0);
		return 0;
	}
	for (unsigned s = 0; s < PIPE_DEPTH; s++)
		read_next(&p, s);
	run(&p);
	fcp_sys_set_direct(x->out, false);
	if (p.err)
		return p.err;
	if (p.refused) {
		/* Nothing of it counts: the loop copies it all again. */
		atomic_store(&job->direct_pipe->refused, true);
		atomic_fetch_sub(&job->c.bytes, (unsigned long long)p.counted);
		r = fcp_sys_ftruncate(x->out, 0);
		return r < 0 ? r : 0;
	}
	if (p.tail) {
		r = fcp_sys_pwrite_full(x->out, p.tail_buf, p.tail, p.eof - (off_t)p.tail);
		FCP_XFER_IO(x, 1);
		if (r < 0)
			return r;
		count_bytes(&p, p.tail);
	}
	if (p.eof < p.end && (r = fcp_sys_ftruncate(x->out, p.eof)) < 0)
		return r;
	x->piped = true;
	return p.eof;
}

#else /* !HAVE_LIBURING */

ssize_t fcp_direct_pipe(struct fcp_xfer *x, off_t off, size_t len)
{
	return 0;
}

#endif
