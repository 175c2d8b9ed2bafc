/*
 * sched.c - the worker pool: per-worker queues with work stealing.
 *
 * Each worker pushes the items it discovers onto its own deque and pops from
 * the back (depth-first, so the frontier and the number of open directories
 * stay small); idle workers steal from the front of another worker's deque
 * (breadth, so a thief takes a big piece of work). Every deque has its own
 * lock; the only shared lock is the idle lock, taken only by a worker that
 * found nothing to do, and by a pusher when someone is asleep.
 *
 * The pool is elastic when the user did not choose -j and a source or
 * DEST is served over a link (job.c): a governor thread adds workers while
 * the run shows that they wait, not work (its workers off the CPU most of
 * the time, the process short of saturating its CPUs, and items queued
 * that no worker takes up), as on a source behind a slow link, where each
 * lookup, open or read is a round trip and only more of them in flight at
 * once make the copy faster. It grows the pool GOV_FACTOR times at most
 * every few GOV_PERIOD_MS, and stops growing for good once a growth did
 * not raise the rate at which entries are done. At its max, with its
 * workers still waiting and CPU left, it says so (at_limit): a remote
 * source's batches then go through io_uring, whose calls in flight are
 * not bound to a thread each (batch.c).
 */
#include "core/job.h"
#include "core/limiter.h"
#include "core/worker.h"

#include <errno.h>
#include <stddef.h>
#include <time.h>
#include <stdlib.h>

/* A worker of the pool: its own state (worker.c), given to every item it
 * runs, and the pool's part of it, its thread and its deque. */
struct slot {
	struct fcp_worker w;
	pthread_t thread;
	pthread_mutex_t lock;
	struct fcp_item **ring;   /* circular deque of capacity cap */
	size_t head, count, cap;
};

/* The slot of a worker of the pool (the first member of its slot). */
static struct slot *slot_of(struct fcp_worker *w)
{
	return (struct slot *)((char *)w - offsetof(struct slot, w));
}

struct fcp_sched {
	atomic_int n;             /* workers running (or about to) */
	int max;                  /* the pool may grow to this many */
	int started;              /* threads started, worker 0 included */
	struct slot *w;           /* max of them */
	atomic_ulong done;        /* items processed */
	atomic_llong item_ns;     /* the time they took, summed (elastic only) */
	bool elastic;             /* max > the first n: a governor may grow it */
	atomic_bool at_limit;     /* the pool is at max and would grow: its
				     workers wait, CPU is left (batch.c) */
	pthread_t gov;
	bool gov_stop;
	pthread_mutex_t gov_lock;
	pthread_cond_t gov_cond;
	atomic_long queued;       /* items sitting in deques */
	atomic_long outstanding;  /* queued + being processed */
	atomic_int sleepers;
	pthread_mutex_t idle_lock;
	pthread_cond_t idle_cond;
	/* Items not to be taken before their time (retries, limiter.c):
	 * counted in outstanding, not in queued; idle workers look at them
	 * every DELAY_POLL_NS at most while there are any. */
	pthread_mutex_t delay_lock;
	struct fcp_item **delayed;
	long long *due;
	int ndelayed, delay_cap;
	atomic_int has_delayed;
	/* What carries out each kind of item (fcp_sched_handle): one plain
	 * array, so that an item costs one indirect call. */
	fcp_item_fn *handle[FCP_ITEM_KINDS];
};

#define DELAY_POLL_NS 50000000LL

struct fcp_worker *fcp_sched_worker(struct fcp_job *job, int i) { return &job->sched->w[i].w; }

void fcp_sched_handle(struct fcp_job *job, enum fcp_item_kind kind, fcp_item_fn *fn)
{
	job->sched->handle[kind] = fn;
}

int fcp_sched_create(struct fcp_job *job, int threads, int max)
{
	struct fcp_sched *s = calloc(1, sizeof(*s));

	if (!s || fcp_workers_init(job) < 0) {
		free(s);
		return -ENOMEM;
	}
	atomic_init(&s->n, threads > 0 ? threads : 1);
	s->max = max > s->n ? max : s->n;
	s->elastic = s->max > s->n;
	atomic_init(&s->at_limit, !s->elastic);
	s->w = calloc(s->max, sizeof(*s->w));
	if (!s->w) {
		fcp_workers_free(job);
		free(s);
		return -ENOMEM;
	}
	for (int i = 0; i < s->max; i++) {
		fcp_worker_init(&s->w[i].w, job, i);
		pthread_mutex_init(&s->w[i].lock, NULL);
	}
	pthread_mutex_init(&s->idle_lock, NULL);
	pthread_cond_init(&s->idle_cond, NULL);
	pthread_mutex_init(&s->gov_lock, NULL);
	pthread_cond_init(&s->gov_cond, NULL);
	pthread_mutex_init(&s->delay_lock, NULL);
	job->sched = s;
	return 0;
}

static void deque_push(struct slot *q, struct fcp_item *it)
{
	pthread_mutex_lock(&q->lock);
	if (q->count == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 64;
		struct fcp_item **r = malloc(ncap * sizeof(*r));
		if (!r)
			abort(); /* out of memory for the frontier: nothing sane to do */
		for (size_t i = 0; i < q->count; i++)
			r[i] = q->ring[(q->head + i) % q->cap];
		free(q->ring);
		q->ring = r;
		q->head = 0;
		q->cap = ncap;
	}
	q->ring[(q->head + q->count) % q->cap] = it;
	q->count++;
	/* Counted under the deque's lock, so that it never reads below the
	 * number of items a thief can find. */
	atomic_fetch_add(&q->w.job->sched->queued, 1);
	pthread_mutex_unlock(&q->lock);
}

static struct fcp_item *deque_pop(struct slot *q, bool back)
{
	struct fcp_item *it = NULL;

	pthread_mutex_lock(&q->lock);
	if (q->count) {
		if (back) {
			it = q->ring[(q->head + q->count - 1) % q->cap];
		} else {
			it = q->ring[q->head];
			q->head = (q->head + 1) % q->cap;
		}
		q->count--;
		atomic_fetch_sub(&q->w.job->sched->queued, 1);
	}
	pthread_mutex_unlock(&q->lock);
	return it;
}

void fcp_sched_push(struct fcp_worker *w, struct fcp_item *it)
{
	struct fcp_sched *s = w->job->sched;

	atomic_fetch_add(&s->outstanding, 1);
	deque_push(slot_of(w), it);
	if (atomic_load(&s->sleepers)) {
		pthread_mutex_lock(&s->idle_lock);
		pthread_cond_signal(&s->idle_cond);
		pthread_mutex_unlock(&s->idle_lock);
	}
}

void fcp_sched_push_initial(struct fcp_job *job, struct fcp_item *it)
{
	fcp_sched_push(&job->sched->w[0].w, it);
}

void fcp_sched_push_delayed(struct fcp_worker *w, struct fcp_item *it, long long due)
{
	struct fcp_sched *s = w->job->sched;

	atomic_fetch_add(&s->outstanding, 1);
	pthread_mutex_lock(&s->delay_lock);
	if (s->ndelayed == s->delay_cap) {
		int ncap = s->delay_cap ? s->delay_cap * 2 : 16;
		struct fcp_item **d = realloc(s->delayed, ncap * sizeof(*d));
		long long *t = d ? realloc(s->due, ncap * sizeof(*t)) : NULL;
		if (!t)
			abort(); /* out of memory for a few pointers: nothing sane to do */
		s->delayed = d;
		s->due = t;
		s->delay_cap = ncap;
	}
	s->delayed[s->ndelayed] = it;
	s->due[s->ndelayed++] = due;
	atomic_store(&s->has_delayed, s->ndelayed);
	pthread_mutex_unlock(&s->delay_lock);
	/* Sleepers wait without a timeout while nothing is delayed. */
	pthread_mutex_lock(&s->idle_lock);
	pthread_cond_broadcast(&s->idle_cond);
	pthread_mutex_unlock(&s->idle_lock);
}

/* A delayed item whose time has come (any, once the job is stopped), or
 * NULL. */
static struct fcp_item *take_delayed(struct fcp_sched *s, const struct fcp_job *job)
{
	long long now = fcp_now_ns();
	struct fcp_item *it = NULL;
	bool stopped = atomic_load(&job->stop);

	pthread_mutex_lock(&s->delay_lock);
	for (int i = 0; i < s->ndelayed && !it; i++) {
		if (stopped || s->due[i] <= now) {
			it = s->delayed[i];
			s->delayed[i] = s->delayed[--s->ndelayed];
			s->due[i] = s->due[s->ndelayed];
		}
	}
	atomic_store(&s->has_delayed, s->ndelayed);
	pthread_mutex_unlock(&s->delay_lock);
	return it;
}

static struct fcp_item *next_item(struct fcp_worker *w)
{
	struct fcp_sched *s = w->job->sched;
	struct fcp_item *it = deque_pop(slot_of(w), true);
	int n = atomic_load(&s->n);

	for (int i = 1; !it && i < n; i++)
		it = deque_pop(&s->w[(w->id + i) % n], false);
	if (!it && atomic_load(&s->has_delayed))
		it = take_delayed(s, w->job);
	return it;
}

/* Wait on the idle condition until the monotonic time t at most. */
static void idle_wait_until(struct fcp_sched *s, long long t)
{
	long long d = t - fcp_now_ns();
	struct timespec until;

	if (d <= 0)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += d / 1000000000LL;
	until.tv_nsec += d % 1000000000LL;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_cond_timedwait(&s->idle_cond, &s->idle_lock, &until);
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
	while (atomic_load(&s->queued) == 0 && atomic_load(&s->outstanding) > 0) {
		if (atomic_load(&s->has_delayed)) {
			/* Back to next_item() when the first one is due, or
			 * soon (a stop makes them all due). */
			long long next;
			pthread_mutex_lock(&s->delay_lock);
			next = fcp_now_ns() + DELAY_POLL_NS;
			for (int i = 0; i < s->ndelayed; i++)
				next = s->due[i] < next ? s->due[i] : next;
			pthread_mutex_unlock(&s->delay_lock);
			idle_wait_until(s, next);
			break;
		}
		pthread_cond_wait(&s->idle_cond, &s->idle_lock);
	}
	atomic_fetch_sub(&s->sleepers, 1);
	more = atomic_load(&s->outstanding) > 0;
	pthread_mutex_unlock(&s->idle_lock);
	return more;
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
		/* Only the governor reads the items' times: a fixed pool
		 * takes no clock per item. */
		long long t0 = s->elastic ? fcp_now_ns() : 0;

		s->handle[it->kind](w, it);
		if (s->elastic)
			atomic_fetch_add_explicit(&s->item_ns, fcp_now_ns() - t0,
						  memory_order_relaxed);
		atomic_fetch_add_explicit(&s->done, 1, memory_order_relaxed);
		if (atomic_fetch_sub(&s->outstanding, 1) == 1) {
			pthread_mutex_lock(&s->idle_lock);
			pthread_cond_broadcast(&s->idle_cond);
			pthread_mutex_unlock(&s->idle_lock);
		}
	}
	return NULL;
}

#define GOV_PERIOD_MS 50
#define GOV_BUSY 0.5     /* grow while workers run less than this share */
#define GOV_CPU 0.8      /* and the process uses less than this share of its CPUs */
#define GOV_GAIN 1.1     /* a growth must raise the rate this much */
#define GOV_WINDOW 2     /* periods a rate is measured over, against lumps */
#define GOV_FACTOR 4     /* the pool's growth at a time */

static double seconds(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Start workers n .. want-1 (the governor's, or the run's first ones). */
static void start_workers(struct fcp_sched *s, int want)
{
	for (int i = atomic_load(&s->n); i < want; i++) {
		if (pthread_create(&s->w[i].thread, NULL, worker_main, &s->w[i].w))
			break; /* fewer threads still finish the job */
		s->started++;
		/* Seen by thieves only once it runs: its deque is empty. */
		atomic_store(&s->n, i + 1);
	}
}

/* Entries other than directories done so far: the governor's measure of
 * progress. Items are too coarse (one batch holds many files), and the
 * directories come in a burst at the start, while the walk makes them
 * and before the files flow: a rate measured then looked like a loss. */
static unsigned long long entries_done(const struct fcp_job *job)
{
	return atomic_load(&job->c.files) + atomic_load(&job->c.symlinks) +
	       atomic_load(&job->c.unchanged) + atomic_load(&job->c.hardlinks) +
	       atomic_load(&job->c.failed);
}

/* One period as the governor saw it. */
struct gov_period {
	double rate;    /* entries done per second */
	double running; /* the share of the time a worker was on a CPU */
	double cpu;     /* the share of the process's CPUs it used */
};

/* Whether the pool should grow after period p: its workers wait rather
 * than work, the process leaves CPU time unused (a machine whose CPUs it
 * saturates gains nothing from more threads, and only pays for their
 * switches), and there is work that no worker takes up. */
static bool gov_wants_more(struct fcp_sched *s, const struct gov_period *p)
{
	return p->running < GOV_BUSY && p->cpu < GOV_CPU && atomic_load(&s->queued) > 0 &&
	       atomic_load(&s->sleepers) == 0;
}

/* Seconds an item has taken on average so far: a worker started now
 * finishes its first one about that much later. */
static double item_seconds(struct fcp_sched *s)
{
	unsigned long items = atomic_load(&s->done);

	return items ? atomic_load(&s->item_ns) * 1e-9 / items : 0;
}

/* The rate between the progress samples (t, d) and now's. */
#define RATE(t, d, t1, d1) ((t1) > (t) ? ((d1) - (d)) / ((t1) - (t)) : 0)

/*
 * Grow, then look: a growth is kept, and may be followed by the next,
 * when the rate after it beats the rate before it. The new workers first
 * get as long as an item takes (each finishes nothing before), then the
 * rate is measured over twice that, at least GOV_WINDOW periods, and
 * compared with the rate over as long before the growth: shorter windows
 * were too lumpy to compare (one batch finishes many files at once; at
 * 1 ms a round trip, a batch took 50 to 100 ms, at 10 ms half a second).
 * The first growth that did not raise the rate ends the growing for good:
 * a source or device that is as busy as it gets gains nothing from more
 * waiters. The machine-wide I/O stall (PSI) that decided before was
 * another job's as often as this one's on a shared machine.
 */
#define GOV_HIST 64

static void *governor(void *arg)
{
	struct fcp_sched *s = arg;
	struct fcp_job *job = s->w[0].w.job;
	double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
	double ht[GOV_HIST], hd[GOV_HIST];  /* progress samples, a ring */
	double rate_before = 0, settled = 0, since = 0, window = 0, d_settled = 0;
	int nh = 0;
	struct timespec until;

	ht[0] = wall, hd[0] = entries_done(job), nh = 1;
	pthread_mutex_lock(&s->gov_lock);
	while (!s->gov_stop) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += GOV_PERIOD_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		if (pthread_cond_timedwait(&s->gov_cond, &s->gov_lock, &until) != ETIMEDOUT)
			continue;
		double w1 = seconds(CLOCK_MONOTONIC), c1 = seconds(CLOCK_PROCESS_CPUTIME_ID);
		double d1 = entries_done(job);
		int n = atomic_load(&s->n), k;
		struct gov_period p = {
			.running = (c1 - cpu) / ((w1 - wall) * n),
			.cpu = (c1 - cpu) / ((w1 - wall) * job->cpus),
		};

		wall = w1, cpu = c1;
		ht[nh % GOV_HIST] = w1, hd[nh % GOV_HIST] = d1, nh++;
		if (since > 0) { /* a growth is being judged */
			if (!settled && w1 >= since + item_seconds(s))
				settled = w1, d_settled = d1;
			if (!settled || w1 < settled + window)
				continue;
			p.rate = RATE(settled, d_settled, w1, d1);
			if (p.rate < rate_before * GOV_GAIN)
				break;
			since = 0;
		}
		window = 2 * item_seconds(s);
		if (window < GOV_WINDOW * GOV_PERIOD_MS * 1e-3)
			window = GOV_WINDOW * GOV_PERIOD_MS * 1e-3;
		/* the newest sample at least a window old, else the oldest */
		for (k = nh - 1; k > 0 && k > nh - GOV_HIST && ht[k % GOV_HIST] > w1 - window; k--) {}
		if (w1 - ht[k % GOV_HIST] < window || !gov_wants_more(s, &p))
			continue;
		if (n >= s->max) { /* more in flight only another way */
			atomic_store(&s->at_limit, true);
			continue;
		}
		rate_before = RATE(ht[k % GOV_HIST], hd[k % GOV_HIST], w1, d1);
		since = w1;
		settled = 0;
		start_workers(s, n * GOV_FACTOR < s->max ? n * GOV_FACTOR : s->max);
	}
	pthread_mutex_unlock(&s->gov_lock);
	return NULL;
}

int fcp_sched_run(struct fcp_job *job)
{
	struct fcp_sched *s = job->sched;
	int want = atomic_load(&s->n);
	bool gov;

	atomic_store(&s->n, 1);
	s->started = 1;
	s->gov_stop = false;
	start_workers(s, want);
	gov = s->elastic && !pthread_create(&s->gov, NULL, governor, s);
	worker_main(&s->w[0].w);
	/* No work is left: stop the governor before joining, so that no
	 * worker is started behind the joins. */
	if (gov) {
		pthread_mutex_lock(&s->gov_lock);
		s->gov_stop = true;
		pthread_cond_signal(&s->gov_cond);
		pthread_mutex_unlock(&s->gov_lock);
		pthread_join(s->gov, NULL);
	}
	for (int i = 1; i < s->started; i++)
		pthread_join(s->w[i].thread, NULL);
	/* A ring belongs to the thread that made it (SINGLE_ISSUER: any other
	 * gets EEXIST), and the next run (the next round of operands) starts
	 * new threads: each makes its own again when it needs one. */
	for (int i = 0; i < s->max; i++)
		fcp_worker_thread_done(&s->w[i].w);
	int used = s->started;
	/* The next round starts from the size this one reached. */
	atomic_store(&s->n, used);
	return used;
}

void fcp_sched_hold(struct fcp_job *job)
{
	atomic_fetch_add(&job->sched->outstanding, 1);
}

void fcp_sched_unhold(struct fcp_job *job)
{
	struct fcp_sched *s = job->sched;

	if (atomic_fetch_sub(&s->outstanding, 1) == 1) {
		pthread_mutex_lock(&s->idle_lock);
		pthread_cond_broadcast(&s->idle_cond);
		pthread_mutex_unlock(&s->idle_lock);
	}
}

bool fcp_sched_idle(struct fcp_job *job)
{
	return atomic_load(&job->sched->outstanding) <= 1;
}

int fcp_sched_give(struct fcp_job *job, enum fcp_item_kind kind, int max,
		   bool (*fn)(struct fcp_item *it, void *arg), void *arg)
{
	struct fcp_sched *s = job->sched;
	int n = atomic_load(&s->n), taken = 0;
	bool more = true;

	for (int i = 0; i < n && more && taken < max; i++) {
		struct slot *q = &s->w[i];

		pthread_mutex_lock(&q->lock);
		for (size_t k = 0; k < q->count && more && taken < max; k++) {
			struct fcp_item *it = q->ring[(q->head + k) % q->cap];

			if (it->kind != kind)
				continue;
			more = fn(it, arg);
			taken += it->kind != kind;
		}
		pthread_mutex_unlock(&q->lock);
	}
	return taken;
}

int fcp_sched_threads(const struct fcp_job *job)
{
	return atomic_load(&job->sched->n);
}

bool fcp_sched_at_limit(const struct fcp_job *job)
{
	return atomic_load(&job->sched->at_limit);
}

void fcp_sched_destroy(struct fcp_job *job)
{
	struct fcp_sched *s = job->sched;

	if (!s)
		return;
	for (int i = 0; i < s->max; i++) {
		free(s->w[i].ring);
		fcp_worker_free(&s->w[i].w);
		pthread_mutex_destroy(&s->w[i].lock);
	}
	free(s->w);
	free(s->delayed);
	free(s->due);
	free(s);
	job->sched = NULL;
	fcp_workers_free(job);
}
