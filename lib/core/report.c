/*
 * report.c - per-item errors and once-per-kind warnings.
 *
 * Messages follow one shape, `fastcp: cannot open 'a/b': Permission denied`,
 * one line per failure, written under a lock so lines from several workers
 * never interleave. Metadata the destination cannot hold is a warning: the
 * first of each kind is printed, the rest only counted for the summary.
 * A message is made in memory and written whole under the lock, which the
 * status line's thread takes too (progress.c): the line is cleared before
 * the message and redrawn under it, never torn.
 */
#include "core/job.h"
#include "core/node.h"
#include "core/observe.h"
#include "base/sys.h"
#include "core/upcalls.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0. */
static int utf8_len(const unsigned char *p)
{
	int n = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2 : *p >= 0xe0 && *p <= 0xef ? 3
		: *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;

	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms and surrogates are no characters either. */
	if ((n == 3 && ((*p == 0xe0 && p[1] < 0xa0) || (*p == 0xed && p[1] >= 0xa0))) ||
	    (n == 4 && ((*p == 0xf0 && p[1] < 0x90) || (*p == 0xf4 && p[1] >= 0x90))))
		return 0;
	return n;
}

static void put_path(FILE *f, const char *path)
{
	/* Names are bytes: control characters and bytes that are no UTF-8
	 * are shown escaped (\ooo), so that a name with a newline cannot
	 * forge a second message line and every line names one file; a
	 * backslash is doubled, so that "a\012b" is not the name with a
	 * newline. */
	for (const unsigned char *p = (const unsigned char *)path; p && *p;) {
		int n = utf8_len(p);

		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p < 0x20 || *p == 0x7f || !n)
			fprintf(f, "\\%03o", *p);
		else
			fwrite(p, 1, n, f);
		p += n ? n : 1;
	}
}

static const char *err_text(int err)
{
	if (err == FCP_EVERIFY)
		return "read back from storage, it differs from the source (copied twice)";
	return err == FCP_ESHRANK ? "file shrank while being copied" : strerror(-err);
}

/* Where a message is made: in memory, so that it goes out whole. */
struct msg {
	FILE *f;
	char *buf;
	size_t len;
};

static bool msg_open(struct msg *m)
{
	m->buf = NULL;
	m->f = open_memstream(&m->buf, &m->len);
	return m->f != NULL;
}

/* Write m on out under the lock, the status line cleared first. An
 * error (keep) is kept for the summary; a failed item (fail_path) is told
 * to the observers with its path and reason. */
static void msg_send(struct fcp_job *job, struct msg *m, FILE *out, bool keep,
		     const char *fail_path, const char *what, int err)
{
	fclose(m->f);
	pthread_mutex_lock(&job->err_lock);
	fcp_up_clear_line(job);
	fputs(m->buf, out);
	if (keep && job->nerrors < FCP_ERRORS_KEPT) {
		/* Without "fastcp: " and the newline. */
		snprintf(job->errors[job->nerrors++], sizeof(job->errors[0]), "%.*s",
			 (int)(m->len > 9 ? m->len - 9 : 0), m->buf + 8);
	}
	pthread_mutex_unlock(&job->err_lock);
	if (fail_path)
		fcp_obs_failed(job, fail_path, what, err ? err_text(err) : NULL);
	free(m->buf);
}

void fcp_report_error(struct fcp_job *job, const char *what, const char *path, int err)
{
	struct msg m;

	if (!msg_open(&m))
		return;
	fprintf(m.f, "fastcp: %s '", what);
	put_path(m.f, path ? path : "?");
	if (err)
		fprintf(m.f, "': %s\n", err_text(err));
	else
		fputs("'\n", m.f);
	msg_send(job, &m, job->err, true, path ? path : "?", what, err);
}

void fcp_report_refused(struct fcp_job *job, const char *what, const char *path,
			const char *with, const char *advice)
{
	struct msg m;

	atomic_fetch_add(&job->c.failed, 1);
	if (!msg_open(&m))
		return;
	fprintf(m.f, "fastcp: %s '", what);
	put_path(m.f, path);
	fprintf(m.f, "' with %s; %s\n", with, advice);
	msg_send(job, &m, job->err, true, path, what, 0);
}

void fcp_report_failed_pair(struct fcp_job *job, const char *what, const char *a,
			    const char *between, const char *b)
{
	struct msg m;

	atomic_fetch_add(&job->c.failed, 1);
	if (!msg_open(&m))
		return;
	fprintf(m.f, "fastcp: %s '", what);
	put_path(m.f, a ? a : "?");
	fprintf(m.f, "' %s '", between);
	put_path(m.f, b ? b : "?");
	fputs("'\n", m.f);
	msg_send(job, &m, job->err, true, a ? a : "?", what, 0);
}

void fcp_report_errorf(struct fcp_job *job, const char *fmt, ...)
{
	struct msg m;
	va_list ap;

	if (!msg_open(&m))
		return;
	va_start(ap, fmt);
	fputs("fastcp: ", m.f);
	vfprintf(m.f, fmt, ap);
	fputc('\n', m.f);
	va_end(ap);
	msg_send(job, &m, job->err, true, NULL, NULL, 0);
}

void fcp_job_stop(struct fcp_job *job, int err)
{
	int none = 0;

	/* The reason first, the flag second: whoever sees the flag can
	 * rely on the reason. */
	atomic_compare_exchange_strong(&job->stop_errno, &none, err);
	atomic_store(&job->stop, true);
}

/* Refusals that every later write to the destination would meet too. */
static bool stops_job(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EROFS;
}

/* An item cut short by a stop that was asked for (a signal; a rank's
 * stop): the stop is said once in the summary, and the item is one not
 * copied, not a failed one ("Interrupted system call"). sys.c retries
 * every EINTR, so one seen here is the job's own stop. */
static bool stopped_item(struct fcp_job *job, int err)
{
	if ((err != -EINTR && err != -ECANCELED) || !atomic_load(&job->stop))
		return false;
	atomic_fetch_add(&job->c.not_copied, 1);
	return true;
}

/* Errors that a destination gone as a whole gives for everything: a
 * filesystem shut down after an I/O error (XFS, ext4), a device pulled
 * out, a FUSE server that died. One bad block gives them too. */
static bool gone_class(int err)
{
	return err == -EIO || err == -ENODEV || err == -ENOTCONN;
}

/* Is the destination gone, not only an item? Then its own directory
 * cannot even be stat'ed (an XFS shut down answers EIO to that too);
 * a source's read error or one bad block leaves it readable. */
static bool dest_gone(const struct fcp_dir *d, int err)
{
	int fd = !d ? -1 : d->dst_fd >= 0 ? d->dst_fd : d->root ? d->root->dst_fd : -1;
	struct statx st;

	return gone_class(err) && fd >= 0 && fcp_sys_fstatx(fd, &st) == err;
}

/* The destination that stopped the job fails all that was in flight the
 * same way: said once, counted as not copied. */
static bool stopped_by(struct fcp_job *job, int err)
{
	return (stops_job(err) || gone_class(err)) && atomic_load(&job->stop_errno) == err;
}

/* Say once why the job stops: the destination of d is gone. */
static void say_gone(struct fcp_job *job, const struct fcp_dir *d, int err)
{
	/* The copy as the user named it (DEST or DEST/SOURCE's name). */
	char *p = d->root && d->root->dst_abs ? strdup(d->root->dst_abs) : fcp_dir_dst_path(d, NULL);

	fcp_report_errorf(job, "the destination '%s' fails as a whole (%s): stopping, nothing "
			       "new is started", p ? p : "?", strerror(-err));
	free(p);
}

/* stop: err means that nothing more can be written to the destination;
 * gone: the directory in which it was found gone as a whole (or NULL). */
static void report_failed(struct fcp_job *job, const char *what, const char *path, int err,
			  bool stop, const struct fcp_dir *gone)
{
	int none = 0;

	if (err == FCP_ERR_REFUSED || stopped_item(job, err))
		return; /* said and counted where it was refused, or stopped */
	if (stopped_by(job, err) ||
	    (stop && !atomic_compare_exchange_strong(&job->stop_errno, &none, err) && none == err)) {
		/* The refusal that stopped the job, met again by an item that
		 * was in flight: one line has said it (not 5,000), and the
		 * item counts with the ones not copied. */
		atomic_fetch_add(&job->c.not_copied, 1);
		return;
	}
	if (stop)
		atomic_store(&job->stop, true);
	fcp_report_error(job, what, path, err);
	atomic_fetch_add(&job->c.failed, 1);
	if (gone)
		say_gone(job, gone, err);
}

void fcp_report_failed(struct fcp_job *job, const char *what, const char *path, int err)
{
	report_failed(job, what, path, err, stops_job(err), NULL);
}

void fcp_report_leftover_in(struct fcp_job *job, const char *what, const struct fcp_dir *d,
			    const char *name, int err)
{
	bool gone = !stops_job(err) && dest_gone(d, err);
	char *p;

	/* The destination stopped the job: the items in flight fail with
	 * it, counted as not copied, and so cannot their leftovers go (a
	 * later run names them). One line has said why. */
	if (stopped_by(job, err))
		return;
	p = fcp_dir_dst_path(d, name);
	if (gone) {
		report_failed(job, what, p, err, true, d);
	} else {
		if (stops_job(err))
			fcp_job_stop(job, err);
		fcp_report_error(job, what, p, err);
		atomic_fetch_add(&job->c.failed, 1);
	}
	free(p);
}

void fcp_report_failed_in(struct fcp_job *job, const char *what, const struct fcp_dir *d,
			  const char *name, bool dst, int err)
{
	char *p;

	if (stopped_item(job, err))
		return;
	p = dst ? fcp_dir_dst_path(d, name) : fcp_dir_src_path(d, name);
	/* A new root copy with a failed item is not whole (fcp_dest_unhide),
	 * and a directory with one keeps what the source lacks (--delete):
	 * the flag is the directory's only state written by its children. */
	if (d && d->root)
		atomic_fetch_add(&d->root->failed, 1);
	if (d)
		atomic_store(&((struct fcp_dir *)d)->failed_in, true);
	bool gone = !stops_job(err) && dest_gone(d, err);

	report_failed(job, what, p, err, stops_job(err) || gone, gone ? d : NULL);
	free(p);
	if (d && d->root && d->root->adopted)
		fcp_up_failed_taken_up(job, (struct fcp_dir *)d, name);
}

static const char *warn_name[FCP_WARN_KINDS] = {
	[FCP_WARN_OWNER] = "ownership",
	[FCP_WARN_XATTR] = "extended attributes",
	[FCP_WARN_ACL] = "ACLs",
	[FCP_WARN_LABEL] = "security labels",
	[FCP_WARN_TIMES] = "timestamps",
	[FCP_WARN_MODE] = "permissions",
};

void fcp_report_warn(struct fcp_job *job, enum fcp_warn_kind kind, const char *path, int err)
{
	/* The directories finished after a read-only or full destination
	 * stopped the job cannot take their metadata either: the failure
	 * has said so, and what was not copied is counted. */
	if (stopped_by(job, err))
		return;
	struct msg m;

	if (atomic_fetch_add(&job->c.warnings[kind], 1) != 0 || !msg_open(&m))
		return;
	fprintf(m.f, "fastcp: warning: cannot preserve %s of '", warn_name[kind]);
	put_path(m.f, path ? path : "?");
	fprintf(m.f, "': %s (further ones only counted)\n", err_text(err));
	msg_send(job, &m, job->err, false, NULL, NULL, 0);
}

void fcp_report_left(struct fcp_job *job, const char *src, const struct fcp_root *root)
{
	unsigned long long failed = atomic_load(&root->failed);
	struct msg m;

	/* A signal said where the copy stays, as this would: once is enough. */
	if (atomic_load(&job->stop) && fcp_up_signal_said(job, root))
		return;
	if (!msg_open(&m))
		return;
	fputs("fastcp: the unfinished copy of '", m.f);
	put_path(m.f, src);
	fputs("' is left as '", m.f);
	put_path(m.f, root->left);
	/* The same command takes it up (leftover.c): never a second one.
	 * Without a birth time or a marker it is held instead: the user
	 * renames it, and --sync finishes it. */
	if (atomic_load(&job->stop))
		fputs("': the copy was stopped; ", m.f);
	else if (atomic_load(&root->stale))
		fputs("': parts of it could not be checked against their source (failed "
		      "above); ", m.f);
	else
		fprintf(m.f, "': %llu item%s failed (--atomic); ", failed, failed == 1 ? "" : "s");
	if (root->src_strong && !root->unmarked)
		fputs("the same command finishes it", m.f);
	else
		fprintf(m.f, "renamed to '%s', the same command with --sync finishes it",
			root->name ? root->name : "?");
	fputs(atomic_load(&job->stop)	     ? "\n"
	      : atomic_load(&root->stale) ? " once they can be\n"
					     : " once they can be copied\n",
	      m.f);
	msg_send(job, &m, job->err, false, NULL, NULL, 0);
}

void fcp_report_named_partial(struct fcp_job *job, const char *src, const struct fcp_dir *d,
			      const char *name, unsigned long long failed)
{
	char *p = fcp_dir_dst_path(d, name);
	struct msg m;

	if (msg_open(&m)) {
		fputs("fastcp: the copy of '", m.f);
		put_path(m.f, src ? src : "?");
		fputs("' has its name '", m.f);
		put_path(m.f, p ? p : name);
		fprintf(m.f, "' without the %llu item%s that failed (named above)\n", failed,
			failed == 1 ? "" : "s");
		msg_send(job, &m, job->err, false, NULL, NULL, 0);
	}
	free(p);
}

/* "fastcp: HEAD 'path'TAIL: why" on stderr, no error of its own. */
static void say_dir(struct fcp_job *job, const char *head, const char *path, const char *tail,
		    const char *why)
{
	struct msg m;

	if (!msg_open(&m))
		return;
	fprintf(m.f, "fastcp: %s '", head);
	put_path(m.f, path ? path : "?");
	fprintf(m.f, "'%s: %s\n", tail, why);
	msg_send(job, &m, job->err, false, NULL, NULL, 0);
}

void fcp_report_held(struct fcp_job *job, const char *path, const char *why)
{
	say_dir(job, "deletions held back in", path, "", why);
}

void fcp_report_unchecked(struct fcp_job *job, const char *path, const char *why)
{
	say_dir(job, "not checked: what", path, " holds beyond the names its source listed", why);
}

/* A dry run's count of what it would do, for its closing line; a copy
 * by its kind (a hard link's mode is not given: 0). */
static void count_plan(struct fcp_job *job, const char *verb, mode_t mode, uint64_t bytes)
{
	int kind = S_ISREG(mode) ? 0 : S_ISDIR(mode) ? 1 : S_ISLNK(mode) ? 2 : !mode ? 3 : 4;

	if (!strcmp(verb, "update")) {
		atomic_fetch_add(&job->c.plan_replaced, 1);
		atomic_fetch_add(&job->c.plan_replaced_bytes, bytes);
	} else if (!strcmp(verb, "copy") || !strcmp(verb, "mkdir") || !strcmp(verb, "link") ||
		   !strcmp(verb, "clone")) {
		atomic_fetch_add(&job->c.plan_copied, 1);
		atomic_fetch_add(&job->c.plan_kind[!strcmp(verb, "mkdir") ? 1 : kind], 1);
		atomic_fetch_add(&job->c.plan_copied_bytes, bytes);
	}
	/* A move takes out of SOURCE what it copies, replaces or finds in
	 * place (a directory once emptied: not counted, as what filters leave
	 * out keeps it). */
	if (job->o->move && kind != 1 && strcmp(verb, "mkdir") && strcmp(verb, "keep") &&
	    strcmp(verb, "delete") && strcmp(verb, "backup") && strcmp(verb, "fail"))
		atomic_fetch_add(&job->c.plan_moved, 1);
}

static void plan_line(struct fcp_job *job, const char *verb, mode_t mode, const char *path,
		      uint64_t bytes, unsigned changes, const char *const times[2])
{
	const struct fcp_options *o = job->o;
	bool same = !strcmp(verb, "unchanged") || !strcmp(verb, "keep");
	char *line = o->itemize && !o->check ? fcp_obs_itemized(verb, mode, path ? path : "?",
								  changes)
					     : NULL;
	struct msg m;

	if (!o->check)
		count_plan(job, verb, mode, bytes);
	fcp_obs_plan_times(job, verb, path ? path : "?", times);
	/* A dry run lists what would change, as rsync -n and robocopy /L;
	 * what is left as it was from -vv. Not under --move: what is in place
	 * leaves SOURCE, a change the preview must show. */
	if ((same && o->verbose < 2 && !o->move) || !msg_open(&m)) {
		free(line);
		return;
	}
	if (line) {
		fputs(line, m.f);
		free(line);
	} else {
		fprintf(m.f, "%s '", verb);
		put_path(m.f, path ? path : "?");
		fputs("'\n", m.f);
	}
	/* --json: stdout is the one JSON object, and nothing else. */
	msg_send(job, &m, o->out ? o->out : o->json ? stderr : stdout, false, NULL, NULL, 0);
}

void fcp_report_plan_item(struct fcp_job *job, const char *verb, mode_t mode, const char *path,
			  uint64_t bytes, unsigned changes)
{
	plan_line(job, verb, mode, path, bytes, changes, NULL);
}

void fcp_report_plan_times(struct fcp_job *job, const char *verb, const char *path,
			   const char *const times[2])
{
	plan_line(job, verb, 0, path, 0, 0, times);
}

void fcp_report_plan(struct fcp_job *job, const char *verb, const char *path)
{
	plan_line(job, verb, 0, path, 0, 0, NULL);
}

void fcp_report_leftover(struct fcp_job *job, const char *path, bool dir, const char *of,
			 bool taken, bool sure)
{
	struct msg m;

	if (!msg_open(&m))
		return;
	fputs("fastcp: '", m.f);
	put_path(m.f, path);
	if (dir && of) {
		/* Only a copy of that very source takes it up (leftover.c). */
		fputs("' is an unfinished copy of '", m.f);
		put_path(m.f, of);
		fputs(taken ? "' left by an interrupted run; its name is taken now: remove it "
			      "once that source is copied\n"
			    : "' left by an interrupted run; copying that source here again "
			      "finishes it, or remove it\n",
		      m.f);
	} else if (dir) {
		fputs(sure ? "' is an unfinished copy left by an interrupted run, of a source it "
			     "does not record; remove it\n"
			   : "' has the name of an unfinished copy of an interrupted run, but "
			     "fastcp cannot tell that it made it there (an earlier version's, or a "
			     "copy of one): remove it if it is one\n",
		      m.f);
	} else {
		fputs(sure ? "' is a temporary file left by an interrupted run; remove it\n"
			   : "' has the name of a temporary file of an interrupted run, but fastcp "
			     "cannot tell that it made it there (an earlier version's, or a copy "
			     "of one): remove it if it is one\n",
		      m.f);
	}
	msg_send(job, &m, job->err, false, NULL, NULL, 0);
}

void fcp_report_lost_name(struct fcp_job *job, const char *path, const char *of)
{
	struct msg m;

	if (!msg_open(&m))
		return;
	fputs("fastcp: '", m.f);
	put_path(m.f, path);
	fputs("' is a finished copy", m.f);
	if (of) {
		fputs(" of '", m.f);
		put_path(m.f, of);
		fputc('\'', m.f);
	}
	fputs(" that another run gave its name to first; compare the two, and remove one\n", m.f);
	msg_send(job, &m, job->err, false, NULL, NULL, 0);
}

const char *fcp_warn_kind_name(enum fcp_warn_kind kind)
{
	return warn_name[kind];
}

const char *fcp_file_kind_name(mode_t mode, bool cp_words)
{
	static const struct {
		mode_t type;
		const char *name, *cp;
	} kinds[] = {
		{ S_IFREG, "a regular file", "regular file" },
		{ S_IFLNK, "a symlink", "symbolic link" },
		{ S_IFIFO, "a FIFO", "special file" },
		{ S_IFCHR, "a character device", "special file" },
		{ S_IFBLK, "a block device", "special file" },
		{ S_IFSOCK, "a socket", "special file" },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((mode & S_IFMT) == kinds[i].type)
			return cp_words ? kinds[i].cp : kinds[i].name;
	return cp_words ? "special file" : "another kind of file";
}
