/*
 * observe.h - who watches a job: -v lines, --log, --events (observe.c) and
 * the status line (progress.c). The job tells them what it did; a job
 * nobody watches pays one test of a NULL pointer per item.
 */
#ifndef FCP_OBSERVE_H
#define FCP_OBSERVE_H

#include "job.h"

struct fcp_json;

/* What was done with an item: the first word of -v and --log lines, and
 * "action" in events. */
enum fcp_obs_action {
	FCP_OBS_COPY, FCP_OBS_LINK, FCP_OBS_MKDIR, FCP_OBS_UNCHANGED, FCP_OBS_UPDATE,
	FCP_OBS_DELETE, FCP_OBS_SKIP, FCP_OBS_FAIL,
	FCP_OBS_MOVE, /* --move: a source renamed, or removed after its copy */
};

/* Open --events and --log, set job->obs (NULL when nobody watches) and
 * emit the start event. Returns 0, or -1 after reporting why. */
int fcp_obs_open(struct fcp_job *job, char *const *srcs, int nsrc, const char *dst);
/* The end event (the summary), then close what fcp_obs_open opened.
 * Returns the job's exit status, 1 instead of 0 where a line could not be
 * written (said when it happened). */
int fcp_obs_close(struct fcp_job *job, const struct fcp_stats *s, int status);

/* One item is done, skipped or failed. mode: its type (0: not known). */
void fcp_obs_record(struct fcp_job *job, enum fcp_obs_action a, mode_t mode, const char *path,
		    uint64_t bytes, const char *engine, const char *reason);
void fcp_obs_entry_(struct fcp_job *job, enum fcp_obs_action a, mode_t mode,
		    const struct fcp_dir *d, const char *name, uint64_t bytes, const char *engine);
/* The same for entry name of d, by its source path (made only when
 * somebody wants it). */
static inline void fcp_obs_entry(struct fcp_job *job, enum fcp_obs_action a, mode_t mode,
				 const struct fcp_dir *d, const char *name, uint64_t bytes,
				 const char *engine)
{
	if (job->obs_items)
		fcp_obs_entry_(job, a, mode, d, name, bytes, engine);
}
/* A failed item (report.c): what failed and why. */
void fcp_obs_failed(struct fcp_job *job, const char *path, const char *what, const char *why);

/* A line of --dry-run ("plan": its action and path) or of --check (a
 * "difference": what differs, and the path), as an event. */
void fcp_obs_plan(struct fcp_job *job, const char *verb, const char *path);

/* The totals the status line shows, for the periodic progress events. */
struct fcp_totals {
	double elapsed;
	uint64_t bytes_done, files_done;
	uint64_t bytes_total, files_total, dirs_total; /* when !counting */
	bool counting;         /* the pre-scan has not finished */
	double percent, bytes_rate, files_rate, eta; /* eta < 0: not known */
};
void fcp_obs_progress(struct fcp_job *job, const struct fcp_totals *t);
/* The pre-scan has counted everything. */
void fcp_obs_totals(struct fcp_job *job, const struct fcp_totals *t);

/* progress.c: the status line and the pre-scan, threads of their own. */
int fcp_progress_start(struct fcp_job *job, char *const *srcs, int nsrc);
/* Stop them and take the line away (the summary comes in its place). */
void fcp_progress_stop(struct fcp_job *job);
/* Under err_lock: take the line away before a message is printed; the
 * status thread draws it again under the message. */
void fcp_progress_clear(struct fcp_job *job);

/* stats.c: the summary's members, in a JSON object being built. */
void fcp_stats_json(const struct fcp_stats *s, struct fcp_json *j);

#endif
