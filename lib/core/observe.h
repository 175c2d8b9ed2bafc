/*
 * observe.h - who watches a job: -v lines, --log, --events (observe.c) and
 * the status line (progress.c). The job tells them what it did; a job
 * nobody watches pays one test of a NULL pointer per item.
 */
#ifndef FCP_OBSERVE_H
#define FCP_OBSERVE_H

#include "core/job.h"

struct fcp_json;

/* What was done with an item: the first word of --log lines and of -vv's
 * lines for items left as they were, and "action" in events. The words are
 * the man page's VOCABULARY, the same as --dry-run's (fcp_plan_verb). */
enum fcp_obs_action {
	FCP_OBS_COPY, FCP_OBS_LINK, FCP_OBS_MKDIR, FCP_OBS_UNCHANGED,
	FCP_OBS_UPDATE,         /* its data replaced what DEST held */
	FCP_OBS_DELETE, FCP_OBS_SKIP, FCP_OBS_FAIL,
	FCP_OBS_MOVE, /* --move: a source renamed, or removed after its copy */
	FCP_OBS_META,           /* "update metadata": the data was the same */
	FCP_OBS_KEEP,           /* -n, -u, -i: what DEST held is kept */
};

/* What differs between an item and what DEST held (--itemize-changes'
 * letters, as rsync's): set by the plan (plan.c). */
enum {
	FCP_CHG_CONTENT = 1 << 0, /* c: --checksum found other content */
	FCP_CHG_SIZE = 1 << 1,    /* s */
	FCP_CHG_TIME = 1 << 2,    /* t: modification time */
	FCP_CHG_PERMS = 1 << 3,   /* p */
	FCP_CHG_OWNER = 1 << 4,   /* o */
	FCP_CHG_GROUP = 1 << 5,   /* g */
	FCP_CHG_XATTR = 1 << 6,   /* x: none of the above, so xattrs or ACLs */
	FCP_CHG_TYPE = 1 << 7,    /* another type was there: all is new */
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
/* --delete under -b: path was renamed to its backup name, backup. */
void fcp_obs_backup(struct fcp_job *job, mode_t mode, const char *path, const char *backup);
void fcp_obs_entry_(struct fcp_job *job, enum fcp_obs_action a, mode_t mode,
		    const struct fcp_dir *d, const char *name, const char *dst_name,
		    uint64_t bytes, const char *engine, unsigned changes);
/* The same for entry name of d, by its source and destination paths (made
 * only when somebody wants them). */
static inline void fcp_obs_entry(struct fcp_job *job, enum fcp_obs_action a, mode_t mode,
				 const struct fcp_dir *d, const char *name, uint64_t bytes,
				 const char *engine)
{
	if (job->obs_items)
		fcp_obs_entry_(job, a, mode, d, name, name, bytes, engine, 0);
}
/* The same where its copy has another name (dst_name), and what differed
 * from what DEST held there (FCP_CHG_*; 0: nothing was there). */
static inline void fcp_obs_item(struct fcp_job *job, enum fcp_obs_action a, mode_t mode,
				const struct fcp_dir *d, const char *name, const char *dst_name,
				uint64_t bytes, const char *engine, unsigned changes)
{
	if (job->obs_items)
		fcp_obs_entry_(job, a, mode, d, name, dst_name, bytes, engine, changes);
}
/* The --itemize-changes line of an item that the word verb (VOCABULARY)
 * says, of type mode (0: a file), at path in DEST, with what differed
 * (FCP_CHG_*): malloc'ed, with its newline; NULL for a word that changes
 * nothing rsync would itemize. */
char *fcp_obs_itemized(const char *verb, mode_t mode, const char *path, unsigned changes);
/* Quote path as GNU cp -v does (its shell-escape style, by the user's
 * LC_CTYPE) into a malloc'ed string. */
char *fcp_obs_quote(const char *path);
/* A failed item (report.c): what failed and why. */
void fcp_obs_failed(struct fcp_job *job, const char *path, const char *what, const char *why);

/* A line of --dry-run ("plan": its action and path) or of --check (a
 * "difference": what differs, and the path), as an event; with the two
 * mtimes an "mtime" difference is about (or NULL), exact
 * ("SECONDS.NANOSECONDS" since the epoch), for programs. */
void fcp_obs_plan_times(struct fcp_job *job, const char *verb, const char *path,
			const char *const times[2]);

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
