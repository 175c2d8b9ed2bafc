/*
 * upcalls.h - the calls the core and the destination (dest.c, on the
 * core) make into the floors above them (the status line, the notes a
 * signal prints, a copy taken up), through a
 * table the program's side installs on the job (job->up, job.c). A job
 * without one (a unit test's, the manifest check's) has no status line,
 * no signal notes and no copy taken up: each call is then a no-op.
 *
 * The core and dest stand below them: they must not name their
 * functions, or a change up there would reach down into every module.
 */
#ifndef FCP_UPCALLS_H
#define FCP_UPCALLS_H

#include "core/job.h"

struct fcp_upcalls {
	/* Under err_lock: take the status line away before a message is
	 * printed (progress.c). */
	void (*clear_line)(struct fcp_job *job);
	/* A signal says at once where the unfinished copy of root (key)
	 * stays: at path, made from src, and what then (path NULL: nowhere
	 * now, it has its name) (job.c). The handler is the program's, so
	 * the note is too: the destination (dest.c) only tells it. */
	void (*signal_note)(const void *key, const char *src, const char *path,
			    const char *then);
	/* Has a signal's note said where the copy of root (key) stays
	 * (job.c)? */
	bool (*signal_said)(const void *key);
	/* An item of d (name; NULL: d itself) failed in a stopped run's
	 * copy taken up (leftover.c). */
	void (*failed_taken_up)(struct fcp_job *job, struct fcp_dir *d, const char *name);
};

static inline void fcp_up_clear_line(struct fcp_job *job)
{
	if (job->up)
		job->up->clear_line(job);
}

static inline void fcp_up_signal_note(struct fcp_job *job, const void *key, const char *src,
				      const char *path, const char *then)
{
	if (job->up)
		job->up->signal_note(key, src, path, then);
}

static inline bool fcp_up_signal_said(const struct fcp_job *job, const void *key)
{
	return job->up && job->up->signal_said(key);
}

static inline void fcp_up_failed_taken_up(struct fcp_job *job, struct fcp_dir *d, const char *name)
{
	if (job->up)
		job->up->failed_taken_up(job, d, name);
}

#endif
