/*
 * sched.c - the worker pool: per-worker queues with work stealing.
 *
 * Each worker pushes the items it discovers onto its own deque and pops from
 * the back (depth-first, so the frontier and the number of open directories
 * stay small); idle workers steal from the front of another worker's deque
 * (breadth, so a thief takes a big piece of work). Every deque has its own
 * lock; the only shared lock is the idle lock, taken only by a worker that
 * found nothing to do, and by a pusher when someone is asleep.
 */
#include "engine.h"
#include "job.h"
#include "sys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The read/write engine's buffer. 128 KiB, as cp's: with 1 MiB writes,
 * large cached copies were slower (BENCHMARKS.md, large warm). */
#define FCP_BUF_SIZE (128u << 10)
/* Direct reads (direct.c) have no read-ahead: each is one trip to the
 * device, so they are larger. Only workers that make them get one. */
#define FCP_DIRECT_BUF_SIZE (1u << 20)

struct fcp_worker {
	struct fcp_job *job;
	int id;
	pthread_t thread;
	pthread_mutex_t lock;
	struct fcp_item **ring;   /* circular deque of capacity cap */
	size_t head, count, cap;
	void *buf, *direct_buf;
	void *uring;
	unsigned long tmp_seq;
};

struct fcp_sched {
	int n;
	struct fcp_worker *w;
	atomic_long queued;       /* items sitting in deques */
	atomic_long outstanding;  /* queued + being processed */
	atomic_int sleepers;
	pthread_mutex_t idle_lock;
	pthread_cond_t idle_cond;
};

struct fcp_job *fcp_worker_job(struct fcp_worker *w) { return w->job; }
struct fcp_worker *fcp_sched_worker(struct fcp_job *job, int i) { return &job->sched->w[i]; }

/* A page-aligned buffer of size in *slot, allocated at its first use. */
static void *worker_buffer(void **slot, size_t size, size_t *len)
{
	if (!*slot && posix_memalign(slot, 4096, size))
		*slot = NULL;
	*len = *slot ? size : 0;
	return *slot;
}

void *fcp_worker_buf(struct fcp_worker *w, size_t *len)
{
	return worker_buffer(&w->buf, FCP_BUF_SIZE, len);
}

void *fcp_worker_direct_buf(struct fcp_worker *w, size_t *len)
{
	return worker_buffer(&w->direct_buf, FCP_DIRECT_BUF_SIZE, len);
}

void **fcp_worker_uring_slot(struct fcp_worker *w)
{
	return &w->uring;
}

void fcp_worker_tmpname(struct fcp_worker *w, char *buf, size_t len)
{
	/* worker + sequence is unique within this job, the random prefix
	 * across jobs (other fastcp processes, other PID namespaces, names in
	 * the source: walk.c refuses source names with this prefix). Every
	 * temporary name is made exclusively (O_EXCL, mkdir, link), so even
	 * a collision only costs an EEXIST and a retry (fcp_dest_make). */
	snprintf(buf, len, "%s%x-%lx", w->job->tmp_prefix, (unsigned)w->id, w->tmp_seq++);
}

int fcp_sched_create(struct fcp_job *job, int threads)
{
	struct fcp_sched *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->n = threads > 0 ? threads : 1;
	s->w = calloc(s->n, sizeof(*s->w));
	if (!s->w) {
		free(s);
		return -ENOMEM;
	}
	for (int i = 0; i < s->n; i++) {
		s->w[i].job = job;
		s->w[i].id = i;
		pthread_mutex_init(&s->w[i].lock, NULL);
	}
	pthread_mutex_init(&s->idle_lock, NULL);
	pthread_cond_init(&s->idle_cond, NULL);
	job->sched = s;
	return 0;
}

static void deque_push(struct fcp_worker *w, struct fcp_item *it)
{
	pthread_mutex_lock(&w->lock);
	if (w->count == w->cap) {
		size_t ncap = w->cap ? w->cap * 2 : 64;
		struct fcp_item **r = malloc(ncap * sizeof(*r));
		if (!r)
			abort(); /* out of memory for the frontier: nothing sane to do */
		for (size_t i = 0; i < w->count; i++)
			r[i] = w->ring[(w->head + i) % w->cap];
		free(w->ring);
		w->ring = r;
		w->head = 0;
		w->cap = ncap;
	}
	w->ring[(w->head + w->count) % w->cap] = it;
	w->count++;
	/* Counted under the deque's lock, so that it never reads below the
	 * number of items a thief can find. */
	atomic_fetch_add(&w->job->sched->queued, 1);
	pthread_mutex_unlock(&w->lock);
}

static struct fcp_item *deque_pop(struct fcp_worker *w, bool back)
{
	struct fcp_item *it = NULL;

	pthread_mutex_lock(&w->lock);
	if (w->count) {
		if (back) {
			it = w->ring[(w->head + w->count - 1) % w->cap];
		} else {
			it = w->ring[w->head];
			w->head = (w->head + 1) % w->cap;
		}
		w->count--;
		atomic_fetch_sub(&w->job->sched->queued, 1);
	}
	pthread_mutex_unlock(&w->lock);
	return it;
}

void fcp_sched_push(struct fcp_worker *w, struct fcp_item *it)
{
	struct fcp_sched *s = w->job->sched;

	atomic_fetch_add(&s->outstanding, 1);
	deque_push(w, it);
	if (atomic_load(&s->sleepers)) {
		pthread_mutex_lock(&s->idle_lock);
		pthread_cond_signal(&s->idle_cond);
		pthread_mutex_unlock(&s->idle_lock);
	}
}

void fcp_sched_push_initial(struct fcp_job *job, struct fcp_item *it)
{
	fcp_sched_push(&job->sched->w[0], it);
}

static struct fcp_item *next_item(struct fcp_worker *w)
{
	struct fcp_sched *s = w->job->sched;
	struct fcp_item *it = deque_pop(w, true);

	for (int i = 1; !it && i < s->n; i++)
		it = deque_pop(&s->w[(w->id + i) % s->n], false);
	return it;
}

/* Sleep until there is something to steal or the job is done. Returns false
 * when the job is done. The sleeper count and the queued count are both
 * seq_cst atomics, so a pusher either sees the sleeper or the sleeper sees
 * the item: no lost wake-up. */
static bool wait_for_work(struct fcp_sched *s)
{
	bool more;

	pthread_mutex_lock(&s->idle_lock);
	atomic_fetch_add(&s->sleepers, 1);
	while (atomic_load(&s->queued) == 0 && atomic_load(&s->outstanding) > 0)
		pthread_cond_wait(&s->idle_cond, &s->idle_lock);
	atomic_fetch_sub(&s->sleepers, 1);
	more = atomic_load(&s->outstanding) > 0;
	pthread_mutex_unlock(&s->idle_lock);
	return more;
}

static void process(struct fcp_worker *w, struct fcp_item *it)
{
	switch (it->kind) {
	case FCP_ITEM_SCAN:
		fcp_walk_scan(w, it->dir);
		free(it);
		break;
	case FCP_ITEM_BATCH:
		fcp_batch_copy(w, it);
		break;
	case FCP_ITEM_ENTRY:
		fcp_entry_copy(w, it);
		break;
	case FCP_ITEM_CHUNK:
		fcp_chunk_copy(w, it);
		break;
	case FCP_ITEM_WRITEBACK:
		fcp_chunk_writeback(w, it);
		break;
	}
}

static void *worker_main(void *arg)
{
	struct fcp_worker *w = arg;
	struct fcp_sched *s = w->job->sched;

	for (;;) {
		struct fcp_item *it = next_item(w);

		if (!it) {
			if (!wait_for_work(s))
				break;
			continue;
		}
		process(w, it);
		if (atomic_fetch_sub(&s->outstanding, 1) == 1) {
			pthread_mutex_lock(&s->idle_lock);
			pthread_cond_broadcast(&s->idle_cond);
			pthread_mutex_unlock(&s->idle_lock);
		}
	}
	return NULL;
}

int fcp_sched_run(struct fcp_job *job)
{
	struct fcp_sched *s = job->sched;
	int started = 1;

	for (int i = 1; i < s->n; i++, started++)
		if (pthread_create(&s->w[i].thread, NULL, worker_main, &s->w[i]))
			break; /* fewer threads still finish the job */
	worker_main(&s->w[0]);
	for (int i = 1; i < started; i++)
		pthread_join(s->w[i].thread, NULL);
	/* A ring belongs to the thread that made it (SINGLE_ISSUER: any other
	 * gets EEXIST), and the next run (the next round of operands) starts
	 * new threads: each makes its own again when it needs one. */
	for (int i = 0; i < s->n; i++) {
		fcp_uring_worker_free(s->w[i].uring);
		s->w[i].uring = NULL;
	}
	return started;
}

int fcp_sched_threads(const struct fcp_job *job)
{
	return job->sched->n;
}

void fcp_sched_destroy(struct fcp_job *job)
{
	struct fcp_sched *s = job->sched;

	if (!s)
		return;
	for (int i = 0; i < s->n; i++) {
		free(s->w[i].ring);
		free(s->w[i].buf);
		free(s->w[i].direct_buf);
		fcp_uring_worker_free(s->w[i].uring);
		pthread_mutex_destroy(&s->w[i].lock);
	}
	free(s->w);
	free(s);
	job->sched = NULL;
}
