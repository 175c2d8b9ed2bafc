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
#include "base/json.h"
#include "core/node.h"
#include "core/observe.h"
#include "base/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>

/* One output of lines. */
struct obs_out {
	int fd;                 /* -1: not asked for */
	const char *what;       /* for the message: "events file" */
	const char *path;       /* as given ("-": standard output) */
	atomic_bool failed;     /* a write failed: no more lines go there */
};

struct fcp_obs {
	struct obs_out events, log;
	int verbose;            /* -v lines (-vv: also what was left as it was) ... */
	bool itemize;           /* ... as --itemize-changes' lines */
	struct obs_out vout;    /* ... on stdout, or stderr under --json */
	pthread_mutex_t lock;   /* one line at a time: a cut one can be undone */
	atomic_bool failed;     /* some write failed: the exit status is 1 */
	struct sigaction old_pipe;
	struct timespec t0;
};

/* Here, below the program's side, since the start event names it too. */
const char *fcp_version(void)
{
	return FCP_VERSION;
}

static const char *const action_name[] = {
	[FCP_OBS_COPY] = "copy", [FCP_OBS_LINK] = "link", [FCP_OBS_MKDIR] = "mkdir",
	[FCP_OBS_UNCHANGED] = "unchanged", [FCP_OBS_UPDATE] = "update",
	[FCP_OBS_DELETE] = "delete", [FCP_OBS_SKIP] = "skip", [FCP_OBS_FAIL] = "fail",
	[FCP_OBS_MOVE] = "move", [FCP_OBS_META] = "update metadata", [FCP_OBS_KEEP] = "keep",
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

	static const struct {
		unsigned bit;
		const char *name;
	} kinds[] = {
		{ FCP_PRESERVE_MODE, "mode" }, { FCP_PRESERVE_OWNER, "ownership" },
		{ FCP_PRESERVE_TIMES, "timestamps" }, { FCP_PRESERVE_XATTR, "xattr" },
		{ FCP_PRESERVE_LINKS, "links" },
	};
	const char *kept[sizeof(kinds) / sizeof(kinds[0])];
	int nkept = 0;

	/* The kinds of metadata kept, by the names of --preserve. */
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (o->preserve & kinds[i].bit)
			kept[nkept++] = kinds[i].name;
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
	fcp_json_strs(&j, "preserve", kept, nkept);
	fcp_json_bool(&j, "no_target_directory", o->no_target_dir);
	fcp_json_bool(&j, "fsync", o->fsync);
	fcp_json_bool(&j, "sync", o->sync);
	fcp_json_bool(&j, "checksum", o->checksum);
	fcp_json_bool(&j, "delete", o->delete_extra);
	fcp_json_bool(&j, "move", o->move);
	fcp_json_bool(&j, "dry_run", o->dry_run && !o->check);
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
	int verbose = o->dry_run ? 0 : o->verbose > 0 ? o->verbose : o->itemize ? 1 : 0;

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
	obs->itemize = o->itemize;
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
		fcp_json_bool(&j, "changed", fcp_stats_changed(s));
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
	       : a == FCP_OBS_SKIP || a == FCP_OBS_UNCHANGED || a == FCP_OBS_KEEP ? "skipped"
										: "ok";
}

/* The user's LC_CTYPE, for cp's quoting alone: the process keeps the C
 * locale (filters match bytes), and uselocale() is per thread. */
static locale_t user_ctype;
static pthread_once_t ctype_once = PTHREAD_ONCE_INIT;

static void ctype_init(void)
{
	user_ctype = newlocale(LC_CTYPE_MASK, "", (locale_t)0);
}

/* Bytes of the printable character at p (n left), or 0: a control
 * character, a byte that is no character of the locale, or one not
 * printable, which cp shows as an escape. */
static size_t printable(const char *p, size_t n)
{
	mbstate_t ps = { 0 };
	wchar_t wc;
	size_t len;

	if ((unsigned char)*p < 0x80)
		return *p >= 0x20 && *p < 0x7f;
	len = mbrtowc(&wc, p, n, &ps);
	return len == (size_t)-1 || len == (size_t)-2 || len == 0 || !iswprint((wint_t)wc) ? 0
											  : len;
}

static void put_escape(FILE *f, unsigned char c)
{
	static const char letter[] = { ['\a'] = 'a', ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n',
				       ['\r'] = 'r', ['\t'] = 't', ['\v'] = 'v' };

	if (c < sizeof(letter) && letter[c])
		fprintf(f, "\\%c", letter[c]);
	else
		fprintf(f, "\\%03o", c);
}

/* As GNU cp -v: 'name'; "it's" where a quote is the only odd character;
 * else ' closed around \' and around $'\n' for what is not printable. The
 * result is a shell word that means the name. */
static void quote_to(FILE *f, const char *path)
{
	size_t n = strlen(path), k;
	bool quote = false, plain = true, open = true;

	for (const char *p = path; *p; p += k ? k : 1) {
		k = printable(p, n - (size_t)(p - path));
		quote |= *p == '\'';
		plain &= k && !strchr("\"$`\\!", *p);
	}
	if (quote && plain) {
		fprintf(f, "\"%s\"", path);
		return;
	}
	fputc('\'', f);
	for (const char *p = path; *p; p += k ? k : 1) {
		k = printable(p, n - (size_t)(p - path));
		/* Out of $'...' into '...'; a quote's '\'' closes and opens. */
		if (k && !open && *p != '\'')
			fputs("''", f);
		else if (!k && open)
			fputs("'$'", f);
		open = k != 0;
		if (!k)
			put_escape(f, (unsigned char)*p);
		else if (*p == '\'')
			fputs("'\\''", f);
		else
			fwrite(p, 1, k, f);
	}
	fputc('\'', f);
}

char *fcp_obs_quote(const char *path)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	locale_t old;

	if (!f)
		return NULL;
	pthread_once(&ctype_once, ctype_init);
	old = user_ctype ? uselocale(user_ctype) : (locale_t)0;
	quote_to(f, path);
	if (user_ctype)
		uselocale(old);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The -v line, as cp's, rm's and mv's: what was made from what (a
 * metadata-only update in its own words, the copy named); NULL
 * where -v says nothing (failures are on stderr; what was left as it was
 * is listed from -vv). */
static char *cp_line(int verbose, enum fcp_obs_action a, mode_t mode, const char *src,
		     const char *dst)
{
	char *qs = fcp_obs_quote(src), *qd = dst ? fcp_obs_quote(dst) : NULL, *line = NULL;
	int r = 0;

	switch (a) {
	case FCP_OBS_COPY: case FCP_OBS_UPDATE: case FCP_OBS_MKDIR: case FCP_OBS_LINK:
		r = qs && qd ? asprintf(&line, "%s -> %s\n", qs, qd) : 0;
		break;
	case FCP_OBS_META: /* no data copied: cp's arrow would say there was */
		r = qd || qs ? asprintf(&line, "%s %s\n", action_name[a], qd ? qd : qs) : 0;
		break;
	case FCP_OBS_DELETE: /* its path is the destination's; dst: its backup (-b), as mv -v */
		r = qs && qd  ? asprintf(&line, "renamed %s -> %s (backup)\n", qs, qd)
		    : qs ? asprintf(&line, "removed %s%s\n", S_ISDIR(mode) ? "directory " : "", qs)
			 : 0;
		break;
	case FCP_OBS_MOVE:
		r = qs ? asprintf(&line, "removed %s\n", qs) : 0;
		break;
	case FCP_OBS_UNCHANGED: case FCP_OBS_KEEP: case FCP_OBS_SKIP:
		r = verbose > 1 && (qd || qs) ? asprintf(&line, "%s %s\n", action_name[a], qd ? qd : qs)
					     : 0;
		break;
	case FCP_OBS_FAIL:
		break;
	}
	free(qs);
	free(qd);
	return r < 0 ? NULL : line;
}

static const struct {
	const char *verb;
	enum fcp_obs_action a;
} verbs[] = {
	{ "copy", FCP_OBS_COPY }, { "update", FCP_OBS_UPDATE }, { "update metadata", FCP_OBS_META },
	{ "unchanged", FCP_OBS_UNCHANGED }, { "keep", FCP_OBS_KEEP }, { "link", FCP_OBS_LINK },
	{ "mkdir", FCP_OBS_MKDIR }, { "delete", FCP_OBS_DELETE }, { "clone", FCP_OBS_COPY },
	{ "move", FCP_OBS_MOVE }, { "skip", FCP_OBS_SKIP }, { "backup", FCP_OBS_DELETE },
};

static char type_letter(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return 'd';
	case S_IFLNK: return 'L';
	case S_IFCHR: case S_IFBLK: return 'D';
	case S_IFIFO: case S_IFSOCK: return 'S';
	default: return 'f';
	}
}

/* rsync's YXcstpoguax: Y what was done ('>' data written, 'c' made, 'h'
 * a hard link, '.' nothing or only metadata), X the type, then a letter
 * per attribute that differed ("+++++++++" for a new item). */
static char *itemized(enum fcp_obs_action a, mode_t mode, const char *path, unsigned chg,
		      int verbose)
{
	static const char attr[] = "cstpoguax";
	static const unsigned bit[] = { FCP_CHG_CONTENT, FCP_CHG_SIZE, FCP_CHG_TIME,
					FCP_CHG_PERMS, FCP_CHG_OWNER, FCP_CHG_GROUP,
					0, 0, FCP_CHG_XATTR };
	char code[12], *p = text_path(path), *line = NULL;
	const char *slash = S_ISDIR(mode) && path[0] && path[strlen(path) - 1] != '/' ? "/" : "";
	bool data = S_ISREG(mode) || !mode;
	int r = -1;

	if (!p)
		return NULL;
	code[0] = a == FCP_OBS_LINK			  ? 'h'
		  : (a == FCP_OBS_COPY || a == FCP_OBS_UPDATE) && data ? '>'
		  : a == FCP_OBS_COPY || a == FCP_OBS_MKDIR || a == FCP_OBS_UPDATE ? 'c'
										: '.';
	code[1] = type_letter(mode);
	for (int i = 0; i < 9; i++)
		code[2 + i] = a == FCP_OBS_UNCHANGED || a == FCP_OBS_KEEP ? ' '
			      : a == FCP_OBS_COPY || a == FCP_OBS_MKDIR || a == FCP_OBS_LINK ||
					chg & FCP_CHG_TYPE
				      ? '+'
			      : chg & bit[i] ? attr[i]
					     : '.';
	code[11] = 0;
	switch (a) {
	case FCP_OBS_DELETE:
		r = asprintf(&line, "*deleting   %s%s\n", p, slash);
		break;
	case FCP_OBS_MOVE: /* rsync has none: the source removed (--move) */
		r = asprintf(&line, "*moved      %s%s\n", p, slash);
		break;
	case FCP_OBS_FAIL: case FCP_OBS_SKIP:
		break;
	case FCP_OBS_UNCHANGED: case FCP_OBS_KEEP:
		if (verbose > 1)
			r = asprintf(&line, "%s %s%s\n", code, p, slash);
		break;
	default:
		r = asprintf(&line, "%s %s%s\n", code, p, slash);
	}
	free(p);
	return r < 0 ? NULL : line;
}

char *fcp_obs_itemized(const char *verb, mode_t mode, const char *path, unsigned changes)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verbs[i].verb, verb))
			return itemized(verbs[i].a, verbs[i].a == FCP_OBS_MKDIR ? S_IFDIR : mode,
					path, changes, 2);
	return NULL;
}

static void text_lines(struct fcp_job *job, struct fcp_obs *obs, enum fcp_obs_action a,
		       mode_t mode, const char *path, const char *dst, uint64_t bytes,
		       const char *reason, unsigned changes)
{
	char *p = text_path(path), *line;
	int n;

	if (!p)
		return;
	line = !obs->verbose ? NULL
	       : obs->itemize ? itemized(a, mode, dst && a != FCP_OBS_DELETE ? dst : path, changes,
					 obs->verbose)
			      : cp_line(obs->verbose, a, mode, path, dst);
	if (line) {
		write_line(job, obs, &obs->vout, line, strlen(line));
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

/* path: the source's (DEST's for a deletion), dst: its copy's or NULL. */
static void record(struct fcp_job *job, enum fcp_obs_action a, mode_t mode, const char *path,
		   const char *dst, uint64_t bytes, const char *engine, const char *reason,
		   unsigned changes)
{
	struct fcp_obs *obs = job->obs;
	struct fcp_json j;

	if (!obs)
		return;
	text_lines(job, obs, a, mode, path, dst, bytes, reason, changes);
	if (obs->events.fd < 0)
		return;
	event_begin(obs, &j, a == FCP_OBS_FAIL ? "failed" : !strcmp(result_of(a), "skipped") ? "skipped" : "done");
	fcp_json_str(&j, "action", action_name[a]);
	fcp_json_str(&j, "kind", kind_name(mode));
	fcp_json_str(&j, "path", path);
	if (dst)
		fcp_json_str(&j, "dest", dst);
	fcp_json_u64(&j, "bytes", bytes);
	fcp_json_str(&j, "engine", engine);
	fcp_json_str(&j, "reason", reason);
	fcp_json_close(&j);
	send_json(job, obs, &j);
}

void fcp_obs_record(struct fcp_job *job, enum fcp_obs_action a, mode_t mode, const char *path,
		    uint64_t bytes, const char *engine, const char *reason)
{
	record(job, a, mode, path, NULL, bytes, engine, reason, 0);
}

void fcp_obs_backup(struct fcp_job *job, mode_t mode, const char *path, const char *backup)
{
	record(job, FCP_OBS_DELETE, mode, path, backup, 0, NULL, "kept under its backup name (-b)", 0);
}

void fcp_obs_entry_(struct fcp_job *job, enum fcp_obs_action a, mode_t mode,
		    const struct fcp_dir *d, const char *name, const char *dst_name,
		    uint64_t bytes, const char *engine, unsigned changes)
{
	char *p = fcp_dir_src_path(d, name), *q = fcp_dir_dst_path(d, dst_name);

	if (p)
		record(job, a, mode, p, q, bytes, engine, NULL, changes);
	free(p);
	free(q);
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

void fcp_obs_plan_times(struct fcp_job *job, const char *verb, const char *path,
			const char *const times[2])
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
	if (times) {
		fcp_json_str(&j, "source_mtime", times[0]);
		fcp_json_str(&j, "dest_mtime", times[1]);
	}
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
