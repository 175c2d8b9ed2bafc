/*
 * chunk.c - a large file copied by several workers at once.
 *
 * The file is cut into CHUNK_SIZE pieces; each copies the data extents of
 * its range at their offsets (copy_file_range or pread/pwrite, as the
 * engine table decides), so holes stay holes. The size is set first, so a
 * trailing hole is already right.
 *
 * The workers on a file are runners: each takes the next chunk not yet
 * taken until none is left. The worker that opened the file is the first
 * runner; helpers, work items any idle worker may steal, are added only
 * while the job has fewer runners than CPUs: on cached data a copy is CPU
 * work, and more writers than CPUs were measured to cost several times the
 * system time (they contend in the kernel), while on a cold cache a runner
 * per CPU keeps the device as busy as more did (BENCHMARKS.md). Their
 * reads run in parallel, their writes one at a time (struct fcp_xfer).
 * Each chunk written is handed to an idle worker to start its writeback.
 * The last runner out finishes the file through the same fcp_file_finish()
 * as every other file: metadata, rename into place.
 */
#include "dest.h"
#include "engine.h"
#include "entry.h"
#include "links.h"
#include "sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK_SIZE ((off_t)32 << 20)
_Static_assert(FCP_LARGE_MIN >= 2 * CHUNK_SIZE, "a large file has two chunks at least");

struct fcp_bigfile {
	struct fcp_entry e;     /* with its own copies of the names */
	struct fcp_xfer x;
	struct fcp_hl_entry *hl;
	pthread_mutex_t wlock;  /* x.wlock: one runner writes at a time */
	int chunks;
	atomic_int next;        /* the next chunk nobody took yet */
	atomic_int runners;     /* runners not finished yet */
	atomic_int err;         /* first error, 0 if none */
	atomic_llong eof;       /* where the source ended, if early: it shrank */
	atomic_ullong bytes;
	struct fcp_tmp tmp;
	char names[];
};

static void run(struct fcp_worker *w, struct fcp_bigfile *b);
static void leave(struct fcp_worker *w, struct fcp_bigfile *b);

bool fcp_chunk_start(struct fcp_entry *e, const struct fcp_xfer *x, struct fcp_hl_entry *hl,
		     const struct fcp_tmp *tmp)
{
	size_t n1 = strlen(e->name) + 1, n2 = strlen(e->dst_name) + 1;
	struct fcp_bigfile *b;
	int helpers;

	if (x->size < FCP_LARGE_MIN || fcp_sched_threads(e->job) < 2 ||
	    fcp_sys_ftruncate(x->out, x->size) < 0)
		return false;
	b = calloc(1, sizeof(*b) + n1 + n2);
	if (!b)
		return false;
	b->e = *e;
	b->e.name = memcpy(b->names, e->name, n1);
	b->e.dst_name = memcpy(b->names + n1, e->dst_name, n2);
	b->x = *x;
	pthread_mutex_init(&b->wlock, NULL);
	b->x.wlock = &b->wlock;
	b->x.direct = -1; /* the kernel's read-ahead serves the chunks' streams */
	b->hl = hl;
	b->tmp = *tmp;
	if (b->tmp.final) /* the entry's name goes away when it returns */
		b->tmp.final = b->e.dst_name;
	b->chunks = (int)((x->size + CHUNK_SIZE - 1) / CHUNK_SIZE);
	atomic_init(&b->eof, x->size);
	/* Helpers only for the CPUs no runner uses yet (this one counts). */
	helpers = e->job->cpus - atomic_load(&e->job->chunk_runners) - 1;
	if (helpers > b->chunks - 1)
		helpers = b->chunks - 1;
	if (helpers > fcp_sched_threads(e->job) - 1)
		helpers = fcp_sched_threads(e->job) - 1;
	if (helpers < 0)
		helpers = 0;
	atomic_init(&b->runners, helpers + 1);
	/* The directory stays open until the file lands, its descriptors
	 * too (a nested pin of the caller's, so it cannot fail): the file
	 * in it, under a temporary or a final name, can always be named,
	 * finished or removed. A directory given back and then replaced
	 * could not be re-opened, and the file would be left in it. */
	atomic_fetch_add(&e->d->pending, 1);
	fcp_dir_pin(e->job, e->d);
	for (int i = 0; i < helpers; i++) {
		struct fcp_item *it = calloc(1, sizeof(*it));
		if (!it)
			abort(); /* a few bytes per helper: nothing sane to do without */
		it->kind = FCP_ITEM_CHUNK;
		it->dir = e->d;
		it->ctx = b;
		fcp_sched_push(e->w, it);
	}
	run(e->w, b);
	return true;
}

static void land_last(struct fcp_worker *w, struct fcp_bigfile *b)
{
	struct fcp_dir *d = b->e.d;
	int err = atomic_load(&b->err);
	off_t eof = atomic_load(&b->eof);

	if (!err && eof < b->x.size)
		err = FCP_ESHRANK;
	/* c.bytes grew as the engines wrote (engine.h). */
	if (!err && atomic_load(&b->bytes) < (unsigned long long)b->x.size)
		atomic_fetch_add(&b->e.job->c.holes, b->x.size - atomic_load(&b->bytes));
	b->e.engine = "chunks";
	b->e.w = w;
	fcp_file_finish(&b->e, b->hl, b->x.out, &b->tmp, err, "cannot copy");
	fcp_dir_unpin(b->e.job, d); /* pinned since fcp_chunk_start() */
	pthread_mutex_destroy(&b->wlock);
	free(b);
	fcp_dir_release(w, d);
}

/*
 * The chunk just written goes to the device now, by another worker: the
 * device writes while the runners copy, instead of all at the final sync.
 * sync_file_range() waits while it queues that much, so a runner calling
 * it would stop copying (measured 2.5x slower); an idle worker blocks
 * instead. The item holds the file like a runner, so the file lands
 * after its last writeback was queued.
 */
static void push_writeback(struct fcp_worker *w, struct fcp_bigfile *b, int i)
{
	struct fcp_item *it = calloc(1, sizeof(*it));

	if (!it)
		return; /* the final sync writes it instead */
	atomic_fetch_add(&b->runners, 1);
	it->kind = FCP_ITEM_WRITEBACK;
	it->dir = b->e.d;
	it->ctx = b;
	it->count = i;
	fcp_sched_push(w, it);
}

void fcp_chunk_writeback(struct fcp_worker *w, struct fcp_item *it)
{
	struct fcp_bigfile *b = it->ctx;
	off_t off = (off_t)it->count * CHUNK_SIZE;

	free(it);
	if (!atomic_load(&b->err))
		fcp_sys_writeback_start(b->x.out, off, CHUNK_SIZE);
	leave(w, b);
}

/* Copy chunk i of b; a skipped chunk fails the file, whatever else happened. */
static void copy_one(struct fcp_worker *w, struct fcp_bigfile *b, int i)
{
	struct fcp_xfer x = b->x;
	off_t off = (off_t)i * CHUNK_SIZE;
	off_t end = i + 1 < b->chunks ? off + CHUNK_SIZE : b->x.size;
	off_t eof = b->x.size; /* lowered only if the source ends early */
	int none = 0;

	x.w = w;
	if (atomic_load(&b->err) || atomic_load(&b->e.job->stop)) {
		int why = atomic_load(&b->e.job->stop_errno);
		atomic_compare_exchange_strong(&b->err, &none, why ? why : -ECANCELED);
		return;
	}
	ssize_t r = fcp_data_copy_chunk(&x, off, end, &eof);
	if (r < 0)
		atomic_compare_exchange_strong(&b->err, &none, (int)r);
	else {
		atomic_fetch_add(&b->bytes, (unsigned long long)r);
	}
	if (r > 0)
		push_writeback(w, b, i);
	for (long long cur = atomic_load(&b->eof);
	     eof < cur && !atomic_compare_exchange_weak(&b->eof, &cur, eof);)
		;
}

/* Take chunks until none is left; the last runner out lands the file
 * (every chunk taken was copied by a runner before it left). */
static void run(struct fcp_worker *w, struct fcp_bigfile *b)
{
	struct fcp_job *job = b->e.job;
	int i;

	atomic_fetch_add(&job->chunk_runners, 1);
	while ((i = atomic_fetch_add(&b->next, 1)) < b->chunks)
		copy_one(w, b, i);
	atomic_fetch_sub(&job->chunk_runners, 1);
	leave(w, b);
}

/* A runner or a writeback leaves the file; the last one lands it. */
static void leave(struct fcp_worker *w, struct fcp_bigfile *b)
{
	if (atomic_fetch_sub(&b->runners, 1) == 1)
		land_last(w, b);
}

void fcp_chunk_copy(struct fcp_worker *w, struct fcp_item *it)
{
	struct fcp_bigfile *b = it->ctx;

	free(it);
	run(w, b);
}
