/*
 * batch.c - a batch of regular files of one directory.
 *
 * The io_uring engine takes the batch when the job allows it and a clone is
 * not possible between these filesystems (a clone moves no data at all; an
 * in-kernel copy of a small file still waits for each read in turn, where a
 * batch keeps the device's queue full); whatever it
 * hands back, and every batch when io_uring is off, goes one by one through
 * the synchronous path. Both paths give the same result.
 */
#include "engine/engine.h"
#include "core/job.h"
#include "policy/plan.h"
#include "tree/settle.h"
#include "core/worker.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * A remote source (FUSE, NFS, ...) never answers io_uring at once: every
 * open, statx and read of a batch goes to one of io_uring's own worker
 * threads and back, a hand-over more per call than a worker thread's own
 * system call. Through the benchmark's FUSE passthrough with no latency,
 * the synchronous path copied small ×0.1 in 0.62 s against the batch's
 * 0.94 s (system CPU 0.37 against 0.84 s); at 1 ms a round trip, 1.15
 * against 1.23 s. Only more requests in flight than the pool's threads
 * can make beat that: at 10 ms, 2.66 s through io_uring (113 in flight)
 * against 3.36 s (82) at the pool's 128 threads (docs/benchmarks/
 * 2026-12-03-folders-large-slow-source.md). So there the pool grows
 * first (sched.c's governor grows it while its workers wait and CPU is
 * left), and batches go through io_uring only once it is as large as it
 * gets and would still grow. A fixed pool (-j) takes io_uring from the
 * start.
 */
static bool uring_wanted(struct fcp_job *job, struct fcp_dir *d)
{
	const struct fcp_engine *list[3];

	/* --dedup decides per file, after hashing it, whether to write it
	 * at all: the synchronous path (dedup.c). */
	if (job->o->no_io_uring || job->o->fsync || job->o->dry_run || job->o->dedup ||
	    !atomic_load(&job->uring_ok) || (job->remote_src && !fcp_sched_at_limit(job)))
		return false;
	fcp_engine_plan(job, fcp_statx_dev(&d->st), d->dst_dev, list);
	return list[0] != &fcp_engine_clone;
}

/* The files handed back are copied one after another, in the walk's order
 * (on a rotational source, inode order) or, where the batch found their
 * first extents, the device's (engine.h). */
int fcp_order_by_place(const bool *pick, const uint64_t *where, int n, int *order)
{
	int m = 0;

	for (int i = 0; i < n; i++) {
		int j;

		if (!pick[i])
			continue;
		for (j = m++; j > 0 && where[order[j - 1]] > where[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	return m;
}

void fcp_batch_copy(struct fcp_worker *w, struct fcp_item *it)
{
	struct fcp_job *job = fcp_worker_job(w);
	const char *names[FCP_BATCH_MAX];
	bool back[FCP_BATCH_MAX];
	uint64_t where[FCP_BATCH_MAX] = { 0 };
	unsigned short was[FCP_BATCH_MAX] = { 0 };
	int order[FCP_BATCH_MAX], m;
	const char *p = it->name;
	int n = it->count;
	bool once;

	for (int i = 0; i < n; i++, p += strlen(p) + 1)
		names[i] = p;
	if (fcp_dir_pin(job, it->dir) < 0) {
		atomic_fetch_add(&job->c.failed, n - 1); /* the pin counted one */
		goto out;
	}
	/* Where the destination may hold them already, the plan settles
	 * what needs no copy first; the rest is copied as usual (and asked
	 * again, once open, if it goes the synchronous way). A plan that
	 * asks or backs up goes the synchronous way alone, asked once; so
	 * do links (-l, -s) and copies of metadata alone. */
	once = (fcp_plan_looks(job, it->dir) && fcp_plan_once(job)) ||
	       job->o->make != FCP_MAKE_COPY || job->o->attributes_only ||
	       job->o->sparse == FCP_SPARSE_ALWAYS;
	if (fcp_plan_looks(job, it->dir) && !once)
		n = fcp_settle_batch(w, it->dir, names, n, was);
	for (int i = 0; i < n; i++)
		back[i] = true;
	if (n > 0 && !once && uring_wanted(job, it->dir)) {
		int r = fcp_uring_batch(w, it->dir, names, n, was, back, where);
		if (r == -ENOSYS)
			atomic_store(&job->uring_ok, false);
		else if (r > 0)
			atomic_store(&job->uring_used, true);
	}
	m = fcp_order_by_place(back, where, n, order);
	for (int k = 0; k < m; k++)
		fcp_entry_copy_name(w, it->dir, names[order[k]], DT_REG);
	fcp_dir_unpin(job, it->dir);
out:
	fcp_dir_release(w, it->dir);
	free(it);
}
