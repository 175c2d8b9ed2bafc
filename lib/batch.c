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
#include "engine.h"
#include "job.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool uring_wanted(struct fcp_job *job, struct fcp_dir *d)
{
	const struct fcp_engine *list[3];

	if (job->o->no_io_uring || job->o->fsync || !atomic_load(&job->uring_ok))
		return false;
	fcp_engine_plan(job, fcp_statx_dev(&d->st), d->dst_dev, list);
	return list[0] != &fcp_engine_clone;
}

void fcp_batch_copy(struct fcp_worker *w, struct fcp_item *it)
{
	struct fcp_job *job = fcp_worker_job(w);
	const char *names[FCP_BATCH_MAX];
	bool back[FCP_BATCH_MAX];
	const char *p = it->name;
	int n = it->count;

	for (int i = 0; i < n; i++, p += strlen(p) + 1) {
		names[i] = p;
		back[i] = true;
	}
	if (uring_wanted(job, it->dir)) {
		int r = fcp_uring_batch(w, it->dir, names, n, back);
		if (r == -ENOSYS)
			atomic_store(&job->uring_ok, false);
		else if (r > 0)
			atomic_store(&job->uring_used, true);
	}
	for (int i = 0; i < n; i++)
		if (back[i])
			fcp_entry_copy_name(w, it->dir, names[i], DT_REG);
	fcp_dir_release(w, it->dir);
	free(it);
}
