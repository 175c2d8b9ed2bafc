/*
 * limiter.c - retries and rate limits (limiter.h).
 *
 * A retry is a new ENTRY item for the file's name, handed to the scheduler
 * as a delayed item: no worker sleeps through --retry-wait, and the copy
 * starts from scratch (the source re-opened and re-planned, a new
 * temporary), as if the file were met for the first time.
 *
 * The rate limits are token buckets kept as one "theoretical arrival time"
 * each (GCRA): a taker moves it on by the cost of what it takes and sleeps
 * until it is within BURST_NS of now. Lock-free, and with many takers the
 * sum of their rates is the limit.
 */
#include "core/limiter.h"
#include "core/node.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The credit an idle bucket gathers: this much time's worth goes at once. */
#define BURST_NS 50000000LL
/* A sleeping taker looks at the job's stop this often. */
#define NAP_NS 20000000LL

/* The job's buckets (job->limit, made before the workers start): written
 * by every taker, through the const job they are given. */
struct fcp_limit_state {
	atomic_llong bw_tat, io_tat; /* --bwlimit, --iolimit */
};

int fcp_limit_init(struct fcp_job *job)
{
	job->limit = calloc(1, sizeof(*job->limit));
	return job->limit ? 0 : -ENOMEM;
}

void fcp_limit_free(struct fcp_job *job)
{
	free(job->limit);
	job->limit = NULL;
}

long long fcp_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

bool fcp_retry_transient(int err)
{
	return err == -EIO || err == -EAGAIN || err == -EINTR || err == -ETIMEDOUT ||
	       err == -ESTALE || err == -EBUSY;
}

bool fcp_retry_later(struct fcp_entry *e, int err)
{
	struct fcp_job *job = e->job;
	struct fcp_retry *r;
	struct fcp_item *it;
	char *path;

	/* EINTR after a signal is our own stop, not the source's. */
	if (e->attempt >= job->o->retries || !fcp_retry_transient(err) || atomic_load(&job->stop))
		return false;
	it = fcp_item_new(FCP_ITEM_ENTRY, e->d, e->name, e->dst_name, DT_UNKNOWN);
	r = malloc(sizeof(*r));
	if (!it || !r) {
		free(it);
		free(r);
		return false;
	}
	*r = (struct fcp_retry){ e->attempt + 1, err,
				 fcp_now_ns() + (long long)(job->o->retry_wait * 1e9) };
	it->ctx = r;
	path = fcp_dir_src_path(e->d, e->name);
	pthread_mutex_lock(&job->err_lock);
	fprintf(job->err, "fastcp: retrying '%s' (%d/%d) after: %s\n", path ? path : e->name,
		r->attempt + 1, job->o->retries + 1, strerror(-err));
	pthread_mutex_unlock(&job->err_lock);
	free(path);
	atomic_fetch_add(&e->d->pending, 1); /* the item's, released when it is done */
	fcp_sched_push_delayed(e->w, it, r->due);
	return true;
}

/* Sleep until the monotonic time t, or until the job stops. */
static void nap_until(const struct fcp_job *job, long long t)
{
	for (long long now = fcp_now_ns(); now < t && !atomic_load(&job->stop);
	     now = fcp_now_ns()) {
		long long d = t - now < NAP_NS ? t - now : NAP_NS;
		struct timespec ts = { d / 1000000000LL, d % 1000000000LL };
		nanosleep(&ts, NULL);
	}
}

/* Reserve units at unit_ns each on the bucket tat; returns when they may go. */
static void bucket_take(const struct fcp_job *job, atomic_llong *tat, double unit_ns,
			uint64_t units)
{
	long long cost = (long long)(unit_ns * (double)units), now = fcp_now_ns();
	long long old = atomic_load(tat), t;

	do
		t = (old > now ? old : now) + cost;
	while (!atomic_compare_exchange_weak(tat, &old, t));
	if (t - BURST_NS > now)
		nap_until(job, t - BURST_NS);
}

void fcp_limit_take(const struct fcp_job *job, uint64_t bytes, uint64_t ops)
{
	const struct fcp_options *o = job->o;

	if (o->bwlimit && bytes)
		bucket_take(job, &job->limit->bw_tat, 1e9 / (double)o->bwlimit, bytes);
	if (o->iolimit && ops)
		bucket_take(job, &job->limit->io_tat, 1e9 / (double)o->iolimit, ops);
}

size_t fcp_limit_read(const struct fcp_job *job, size_t want, uint64_t left, size_t align)
{
	want = fcp_limit_step(job, want);
	if (align && want < left)
		want &= ~(align - 1);
	fcp_limit_take(job, want, 1);
	return want;
}

size_t fcp_limit_step(const struct fcp_job *job, size_t want)
{
	uint64_t step = job->o->bwlimit / 100;

	if (!job->o->bwlimit)
		return want;
	if (step < 65536)
		step = 65536;
	return want < step ? want : (size_t)step;
}
