/*
 * engine_uring.c - the io_uring ring of each worker.
 *
 * One ring per worker thread, made on first use with the buffers its
 * rounds read into, and the one way to run a round on it: submit what is
 * queued and wait for every completion. The batch of small files
 * (batch_uring.c, which opens, creates and finishes them) and the batched
 * compare of --check (check_uring.c) both run on it; this file knows
 * nothing of files, only of bytes between descriptors.
 */
#include "config.h"
#include "engine/engine.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBURING
#include <liburing.h>

#define RING_ENTRIES (4 * FCP_BATCH_MAX) /* at most 3 ops per file in a round */

struct fcp_uring {
	struct io_uring ring;
	char *arena;
	char *varena; /* --verify: aligned read-back buffers of one round */
};

/* The ops the batch of small files needs (batch_uring.c); a kernel
 * without one of them is "no io_uring". */
static bool probe_ops(struct io_uring *ring)
{
	static const int ops[] = { IORING_OP_OPENAT, IORING_OP_READ,
				   IORING_OP_WRITE, IORING_OP_CLOSE, IORING_OP_RENAMEAT,
				   IORING_OP_LINKAT, IORING_OP_FADVISE };
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	bool ok = p != NULL;

	for (size_t i = 0; ok && i < sizeof(ops) / sizeof(ops[0]); i++)
		ok = io_uring_opcode_supported(p, ops[i]);
	if (p)
		io_uring_free_probe(p);
	return ok;
}

/* The worker's ring goes with the thread that made it (worker.h). */
static void ring_free(void *p)
{
	struct fcp_uring *u = p;

	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u->arena);
	free(u->varena);
	free(u);
}

static struct fcp_uring *ring_get(struct fcp_worker *w)
{
	struct fcp_uring *u = fcp_worker_uring(w);

	if (u)
		return u;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	/* One thread submits and reaps each ring: completions can wait until
	 * it asks for them instead of interrupting it (6.1+; else plain). */
	if (io_uring_queue_init(RING_ENTRIES, &u->ring,
				IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN) < 0 &&
	    io_uring_queue_init(RING_ENTRIES, &u->ring, 0) < 0) {
		free(u);
		return NULL;
	}
	if (!probe_ops(&u->ring) || !(u->arena = malloc(FCP_URING_ARENA))) {
		io_uring_queue_exit(&u->ring);
		free(u);
		return NULL;
	}
	fcp_worker_set_uring(w, u, ring_free);
	return u;
}

struct io_uring *fcp_uring_ring(struct fcp_worker *w)
{
	struct fcp_uring *u = ring_get(w);

	return u ? &u->ring : NULL;
}

char *fcp_uring_arena(struct fcp_worker *w)
{
	struct fcp_uring *u = ring_get(w);

	return u ? u->arena : NULL;
}

char *fcp_uring_varena(struct fcp_worker *w)
{
	struct fcp_uring *u = ring_get(w);

	if (!u)
		return NULL;
	if (!u->varena && posix_memalign((void **)&u->varena, FCP_DIRECT_ALIGN, FCP_URING_VARENA))
		u->varena = NULL;
	return u->varena;
}

const char *fcp_uring_available(void)
{
	struct io_uring ring;
	bool ok;

	if (io_uring_queue_init(8, &ring, 0) < 0)
		return "synchronous (io_uring refused by this kernel or its settings)";
	ok = probe_ops(&ring);
	io_uring_queue_exit(&ring);
	return ok ? NULL : "synchronous (this kernel's io_uring lacks an operation fastcp needs)";
}
/*
 * Submit the queued ops and give all `expect` completions to cb; it
 * returns only when nothing of this round is in flight, so no completion
 * can ever be read as another round's. Transient refusals (EINTR, EAGAIN,
 * EBUSY: the kernel is short of resources) are waited out. Anything else
 * would mean a broken ring with requests still in flight, which this
 * process cannot account for safely: it stops rather than guess.
 */
void fcp_uring_wait(struct io_uring *ring, unsigned expect,
		    void (*cb)(void *ctx, uint64_t data, int res), void *ctx)
{
	unsigned seen = 0;

	while (seen < expect) {
		struct io_uring_cqe *cqe;
		unsigned head, got = 0;
		/* One kernel entry submits what is queued and waits for it. */
		int r = io_uring_submit_and_wait(ring, 1);

		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
			fprintf(stderr, "fastcp: io_uring failed: %s\n", strerror(-r));
			abort();
		}
		io_uring_for_each_cqe(ring, head, cqe) {
			cb(ctx, io_uring_cqe_get_data64(cqe), cqe->res);
			got++;
		}
		io_uring_cq_advance(ring, got);
		seen += got;
	}
}

#else /* !HAVE_LIBURING */

struct io_uring *fcp_uring_ring(struct fcp_worker *w)
{
	return NULL;
}

const char *fcp_uring_available(void)
{
	return "synchronous (built without liburing)";
}

#endif
