/*
 * observe.c - a line per item for people (-v, on stdout), for logs (--log)
 * and for programs (--events: NDJSON), and the start and end of the job.
 *
 * Every line is made whole in memory and goes out in one write(2), the
 * files opened with O_APPEND: a reader following the file never sees half
 * a line, and lines of several workers never mix. The end event is written
 * when the job returns, also after SIGINT or SIGTERM (the job stops
 * cleanly, then returns).
 *
 * These outputs are a record of the copy, not the copy: a write that fails
 * (a full disk, a reader of a FIFO that quit) is said once with the path,
 * nothing more is written there (a later line would leave a hole in the
 * record that nothing shows), the copy goes on, and its exit status is 1.
 * A line cut short is taken back from a regular file (sys.c), so the file
 * ends with the last whole line. SIGPIPE is ignored while they are open:
 * a reader that quits must not kill a copy half done.
 */
#include "json.h"
#include "node.h"
#include "observe.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One output of lines. */
struct obs_out {
	int fd;                 /* -1: not asked for */
	const char *what;       /* for the message: "events file" */
	const char *path;       /* as given ("-": standard output) */
	atomic_bool failed;     /* a write failed: no more lines go there */
};

struct fcp_obs {
	struct obs_out events, log;
	bool verbose;           /* -v lines ... */
	struct obs_out vout;    /* ... on stdout, or stderr under --json */
	pthread_mutex_t lock;   /* one line at a time: a cut one can be undone */
	atomic_bool failed;     /* some write failed: the exit status is 1 */
	struct sigaction old_pipe;
	struct timespec t0;
};

static const char *const action_name[] = {
	[FCP_OBS_COPY] = "copy", [FCP_OBS_LINK] = "link", [FCP_OBS_MKDIR] = "mkdir",
	[FCP_OBS_UNCHANGED] = "unchanged", [FCP_OBS_UPDATE] = "update",
	[FCP_OBS_DELETE] = "delete", [FCP_OBS_SKIP] = "skip", [FCP_OBS_FAIL] = "fail",
	[FCP_OBS_MOVE] = "move",
};

static const char *kind_name(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "file";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symlink";
	case 0: return NULL;
	default: return "special";
	}
}

/* One line, whole, to o; the first failure is said (on job) and ends o. */
static void write_line(struct fcp_job *job, struct fcp_obs *obs, struct obs_out *o,
		       const char *p, size_t n)
{
	int err;

	if (o->fd < 0 || atomic_load(&o->failed))
		return;
	pthread_mutex_lock(&obs->lock);
	err = atomic_load(&o->failed) ? 0 : fcp_sys_write_line(o->fd, p, n);
	if (err)
		atomic_store(&o->failed, true);
	pthread_mutex_unlock(&obs->lock);
	if (!err)
		return;
	atomic_store(&obs->failed, true);
	if (!strcmp(o->path, "-"))
		fcp_report_errorf(job, "cannot write %s to standard output: %s; nothing more "
				       "is written there, the copy goes on", o->what, strerror(-err));
	else
		fcp_report_errorf(job, "cannot write %s '%s': %s; nothing more is written "
				       "there, the copy goes on", o->what, o->path, strerror(-err));
}

static void send_json(struct fcp_job *job, struct fcp_obs *obs, struct fcp_json *j)
{
	fcp_json_raw(j, "\n");
	if (!j->oom)
		write_line(job, obs, &obs->events, j->p, j->len);
	fcp_json_free(j);
}

static double elapsed(const struct fcp_obs *obs)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - obs->t0.tv_sec) + (t.tv_nsec - obs->t0.tv_nsec) / 1e9;
}

static void event_begin(struct fcp_obs *obs, struct fcp_json *j, const char *event)
{
	fcp_json_init(j);
	fcp_json_open(j, NULL);
	fcp_json_str(j, "event", event);
	fcp_json_num(j, "elapsed", elapsed(obs));
}

static int open_out(struct fcp_job *job, const char *path, const char *what)
{
	int fd;

	if (!strcmp(path, "-"))
		return STDOUT_FILENO;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		fcp_report_errorf(job, "cannot open %s file '%s': %s", what, path, strerror(errno));
	return fd < 0 ? -2 : fd;
}

static void start_event(struct fcp_job *job, char *const *srcs, int nsrc, const char *dst)
{
	static const char *const symlinks[] = { "keep", "follow", "rewrite", "skip" };
	static const char *const reflink[] = { "auto", "always", "never" };
	const struct fcp_options *o = job->o;
	struct fcp_json j;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	event_begin(job->obs, &j, "start");
	fcp_json_str(&j, "version", fcp_version());
	fcp_json_str(&j, "time", when);
	fcp_json_strs(&j, "sources", (const char *const *)srcs, nsrc);
	fcp_json_str(&j, "dest", dst);
	fcp_json_open(&j, "options");
	fcp_json_u64(&j, "threads", (uint64_t)(o->threads > 0 ? o->threads : 0));
	fcp_json_str(&j, "symlinks", symlinks[o->symlinks]);
	fcp_json_str(&j, "reflink", reflink[o->reflink]);
	fcp_json_u64(&j, "preserve", o->preserve);
	fcp_json_bool(&j, "no_target_directory", o->no_target_dir);
	fcp_json_bool(&j, "fsync", o->fsync);
	fcp_json_bool(&j, "sync", o->sync);
	fcp_json_bool(&j, "checksum", o->checksum);
	fcp_json_bool(&j, "delete", o->delete_extra);
	fcp_json_bool(&j, "move", o->move);
	fcp_json_bool(&j, "dry_run", o->dry_run);
	fcp_json_close(&j);
	fcp_json_close(&j);
	send_json(job, job->obs, &j);
}

static void out_init(struct obs_out *o, int fd, const char *what, const char *path)
{
	o->fd = fd;
	o->what = what;
	o->path = path ? path : "-";
	atomic_init(&o->failed, false);
}

int fcp_obs_open(struct fcp_job *job, char *const *srcs, int nsrc, const char *dst)
{
	const struct fcp_options *o = job->o;
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct fcp_obs *obs;
	int efd = -1, lfd = -1;

	/* A dry run has its own line per entry. */
	bool verbose = o->verbose > 0 && !o->dry_run;

	job->obs = NULL;
	if (!o->events && !o->log && !verbose)
		return 0;
	if ((o->events && (efd = open_out(job, o->events, "events")) == -2) ||
	    (o->log && (lfd = open_out(job, o->log, "log")) == -2)) {
		if (efd > STDOUT_FILENO)
			close(efd);
		return -1;
	}
	if (!(obs = calloc(1, sizeof(*obs)))) {
		fcp_report_errorf(job, "out of memory");
		return -1;
	}
	out_init(&obs->events, efd, "events file", o->events);
	out_init(&obs->log, lfd, "log file", o->log);
	obs->verbose = verbose;
	out_init(&obs->vout, verbose ? o->json ? STDERR_FILENO : STDOUT_FILENO : -1, "-v lines",
		 o->json ? "standard error" : "-");
	pthread_mutex_init(&obs->lock, NULL);
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &obs->old_pipe);
	clock_gettime(CLOCK_MONOTONIC, &obs->t0);
	job->obs = obs;
	job->obs_items = true;
	if (efd >= 0)
		start_event(job, srcs, nsrc, dst);
	return 0;
}

/* A record that could not be written whole makes the exit status 1. */
static int with_outputs(const struct fcp_obs *obs, int status)
{
	return atomic_load(&obs->failed) && status == FCP_EXIT_OK ? FCP_EXIT_PARTIAL : status;
}

int fcp_obs_close(struct fcp_job *job, const struct fcp_stats *s, int status)
{
	struct fcp_obs *obs = job->obs;
	struct fcp_json j;

	if (!obs)
		return status;
	status = with_outputs(obs, status);
	if (obs->events.fd >= 0) {
		event_begin(obs, &j, "end");
		fcp_json_u64(&j, "exit_status", (uint64_t)status);
		fcp_json_open(&j, "summary");
		fcp_stats_json(s, &j);
		fcp_json_close(&j);
		fcp_json_close(&j);
		send_json(job, obs, &j);
	}
	status = with_outputs(obs, status);
	if (obs->events.fd > STDOUT_FILENO)
		close(obs->events.fd);
	if (obs->log.fd > STDOUT_FILENO)
		close(obs->log.fd);
	sigaction(SIGPIPE, &obs->old_pipe, NULL);
	pthread_mutex_destroy(&obs->lock);
	job->obs_items = false;
	job->obs = NULL;
	free(obs);
	return status;
}

/* A path in a text line: control characters and '\' as \ooo (a name
 * with a tab or a newline cannot forge a field or a line). */
static char *text_path(const char *path)
{
	size_t n = strlen(path);
	char *out = malloc(4 * n + 1), *q = out;

	if (!out)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			q += sprintf(q, "\\%03o", *p);
		else
			*q++ = (char)*p;
	}
	*q = 0;
	return out;
}

/* An entry left as it was (left out, or already up to date) is skipped,
 * as robocopy counts the files it finds the same. */
static const char *result_of(enum fcp_obs_action a)
{
	return a == FCP_OBS_FAIL ? "failed"
	       : a == FCP_OBS_SKIP || a == FCP_OBS_UNCHANGED ? "skipped" : "ok";
}

static void text_lines(struct fcp_job *job, struct fcp_obs *obs, enum fcp_obs_action a,
		       const char *path, uint64_t bytes, const char *reason)
{
	char *p = text_path(path), *line;
	int n;

	if (!p)
		return;
	if (obs->verbose && (n = asprintf(&line, "%s '%s'\n", action_name[a], p)) > 0) {
		write_line(job, obs, &obs->vout, line, (size_t)n);
		free(line);
	}
	if (obs->log.fd >= 0 &&
	    (n = asprintf(&line, "%s\t%s\t%llu\t%s\t%s\n", action_name[a], p,
			  (unsigned long long)bytes, result_of(a), reason ? reason : "-")) > 0) {
		write_line(job, obs, &obs->log, line, (size_t)n);
		free(line);
	}
	free(p);
}

void fcp_obs_record(struct fcp_job *job, enum fcp_obs_action a, mode_t mode, const char *path,
		    uint64_t bytes, const char *engine, const char *reason)
{
	struct fcp_obs *obs = job->obs;
	struct fcp_json j;

	if (!obs)
		return;
	text_lines(job, obs, a, path, bytes, reason);
	if (obs->events.fd < 0)
		return;
	event_begin(obs, &j, a == FCP_OBS_FAIL ? "failed" : !strcmp(result_of(a), "skipped") ? "skipped" : "done");
	fcp_json_str(&j, "action", action_name[a]);
	fcp_json_str(&j, "kind", kind_name(mode));
	fcp_json_str(&j, "path", path);
	fcp_json_u64(&j, "bytes", bytes);
	fcp_json_str(&j, "engine", engine);
	fcp_json_str(&j, "reason", reason);
	fcp_json_close(&j);
	send_json(job, obs, &j);
}

void fcp_obs_entry_(struct fcp_job *job, enum fcp_obs_action a, mode_t mode,
		    const struct fcp_dir *d, const char *name, uint64_t bytes, const char *engine)
{
	char *p = fcp_dir_src_path(d, name);

	if (p)
		fcp_obs_record(job, a, mode, p, bytes, engine, NULL);
	free(p);
}

void fcp_obs_failed(struct fcp_job *job, const char *path, const char *what, const char *why)
{
	char *reason = NULL;

	if (!job->obs_items)
		return;
	if (asprintf(&reason, why ? "%s: %s" : "%s", what ? what : "failed", why) < 0)
		reason = NULL;
	fcp_obs_record(job, FCP_OBS_FAIL, 0, path, 0, NULL, reason);
	free(reason);
}

void fcp_obs_plan(struct fcp_job *job, const char *verb, const char *path)
{
	struct fcp_json j;
	size_t n = strlen(verb);
	char what[160];

	if (!job->obs || job->obs->events.fd < 0)
		return;
	/* --check's words end in a colon before the path of its line. */
	snprintf(what, sizeof(what), "%.*s", (int)(n && verb[n - 1] == ':' ? n - 1 : n), verb);
	event_begin(job->obs, &j, job->o->check ? "difference" : "plan");
	fcp_json_str(&j, job->o->check ? "what" : "action", what);
	fcp_json_str(&j, "path", path);
	fcp_json_close(&j);
	send_json(job, job->obs, &j);
}

static void totals_json(struct fcp_json *j, const struct fcp_totals *t)
{
	fcp_json_bool(j, "counting", t->counting);
	fcp_json_u64(j, "bytes_done", t->bytes_done);
	fcp_json_u64(j, "files_done", t->files_done);
	if (!t->counting) {
		fcp_json_u64(j, "bytes_total", t->bytes_total);
		fcp_json_u64(j, "files_total", t->files_total);
		fcp_json_u64(j, "directories_total", t->dirs_total);
		fcp_json_num(j, "percent", t->percent);
	}
	fcp_json_num(j, "bytes_per_second", t->bytes_rate);
	fcp_json_num(j, "files_per_second", t->files_rate);
	if (t->eta >= 0)
		fcp_json_num(j, "eta_seconds", t->eta);
}

void fcp_obs_progress(struct fcp_job *job, const struct fcp_totals *t)
{
	struct fcp_json j;

	if (!job->obs || job->obs->events.fd < 0)
		return;
	event_begin(job->obs, &j, "progress");
	totals_json(&j, t);
	fcp_json_close(&j);
	send_json(job, job->obs, &j);
}

void fcp_obs_totals(struct fcp_job *job, const struct fcp_totals *t)
{
	struct fcp_json j;

	if (!job->obs || job->obs->events.fd < 0)
		return;
	event_begin(job->obs, &j, "totals");
	fcp_json_u64(&j, "files", t->files_total);
	fcp_json_u64(&j, "bytes", t->bytes_total);
	fcp_json_u64(&j, "directories", t->dirs_total);
	fcp_json_close(&j);
	send_json(job, job->obs, &j);
}
