/*
 * plan.c - one decision per entry (plan.h): what is at its destination
 * looked at, and the questions of the decision (decide.c) answered.
 *
 * The decision itself is decide.c's, a function of two statx and the
 * options. What it cannot tell from them it asks, and this file answers
 * by reading: the content of both sides (XXH3-128, or the manifest's hash
 * of a file unchanged since), a symlink's target, the xattrs, the mark of
 * a half rewrite, -i's answer on the terminal. Nothing here writes to
 * DEST: what the decision asks for is carried out by settle.c.
 * --check (check.c) asks the same questions, item by item.
 */
#include "base/path.h"
#include "policy/check.h"
#include "policy/decide.h"
#include "core/hash.h"
#include "dest/manifest.h"
#include "dest/meta.h"
#include "core/node.h"
#include "policy/plan.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STATX_WANT (STATX_BASIC_STATS)

/* -n, -u and -i keep what DEST holds: a directory that is there gets its
 * metadata only where it differs from its source's, as under --sync, so
 * the same command again changes nothing (no ctime moved either). */
static bool dirs_compared(const struct fcp_options *o)
{
	return fcp_decide_compares(o) || o->update != FCP_UPDATE_ALL || o->interactive;
}

bool fcp_plan_dir_compared(const struct fcp_job *job)
{
	return dirs_compared(job->o);
}

bool fcp_plan_once(const struct fcp_job *job)
{
	return job->o->interactive || job->o->backup != FCP_BACKUP_NONE || job->o->in_place;
}

bool fcp_plan_taken_up(const struct fcp_dir *d)
{
	return d->root && d->root->adopted;
}

/* Can something be at the names of d in DEST? */
static bool may_exist(const struct fcp_dir *d)
{
	return fcp_dir_existed(d) || d->is_top;
}

bool fcp_plan_decides(const struct fcp_job *job, const struct fcp_dir *d)
{
	return fcp_decide_looks(job->o, may_exist(d), fcp_plan_taken_up(d), true);
}

bool fcp_plan_looks(const struct fcp_job *job, const struct fcp_dir *d)
{
	return fcp_decide_looks(job->o, may_exist(d), fcp_plan_taken_up(d), false);
}

bool fcp_plan_run_looks(const struct fcp_job *job, const struct fcp_dir *d)
{
	return fcp_decide_run_looks(job->o, may_exist(d), fcp_plan_taken_up(d));
}

unsigned fcp_plan_meta_diff(const struct fcp_job *job, const struct statx *st, struct fcp_at sat,
			    const struct statx *dst, struct fcp_at dat)
{
	unsigned keep = job->o->preserve;
	unsigned diff = fcp_decide_meta_diff(job->o, job->is_root, st, dst);

	/* The xattrs last: only --check needs every difference named. */
	if ((keep & (FCP_PRESERVE_XATTR | FCP_PRESERVE_CONTEXT)) && (!diff || job->o->check) &&
	    !fcp_meta_xattrs_same(keep, sat, dat))
		diff |= FCP_PRESERVE_XATTR;
	return diff;
}
/*
 * Read around the page cache? --check reads DEST from its storage (O_DIRECT),
 * as --verify does: a copy checked right after it was made would otherwise
 * be compared as its cached pages hold it, not as the disk does. In 8 MiB
 * reads, --verify's buffer: a direct read has no read-ahead behind it.
 * Sources, and --checksum's reads, go through the cache (the kernel's
 * read-ahead), unless --direct-read=always.
 */
static bool side_direct(const struct fcp_job *job, bool src)
{
	if (job->o->direct_read == FCP_DIRECT_NEVER)
		return false;
	return (!src && job->o->check) || job->o->direct_read == FCP_DIRECT_ALWAYS;
}

/* The XXH3-128 of one side of e (st: that side's inode): the manifest's
 * while the file is unchanged, else read whole (*read set; a source's is
 * recorded, a copy's only once it is found equal: fcp_plan_content).
 * Reading errors are --check's to report; the copy meets a source error
 * itself. */
static int side_hash(struct fcp_entry *e, bool src, const struct statx *st, struct fcp_hash *h,
		     bool *read)
{
	int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (e->job->is_root ? O_NOATIME : 0);
	char *key = e->job->man ? fcp_manifest_key(e->d, src ? e->name : e->dst_name, src) : NULL;
	int fd = -1, r;
	size_t cap;
	void *buf = fcp_worker_buf(e->w, &cap);
	bool direct = false, refused = false;
	struct statx now = { 0 }; /* stx_mode 0: not looked at */

	*read = false;
	/* --move removes the source of a file it finds equal: only the bytes
	 * of both sides, read now, may say so. A record says what was read
	 * while the times were as they are, which bit rot, or a change they
	 * do not show (fcp_statx_racy), leaves them. */
	if (key && !e->job->o->move && fcp_manifest_lookup(e->job, src, key, st, h)) {
		free(key);
		return 0;
	}
	*read = true;
	/* Planned by name (a batch): the source is opened here. */
	if (src && e->src_fd >= 0)
		fd = e->src_fd;
	/* A FIFO or device swapped in since the statx is not opened (sys.c). */
	r = fd >= 0 ? 0 : (fd = fcp_sys_open_regular(src ? e->d->src_fd : e->d->dst_fd,
						    src ? e->name : e->dst_name,
						    flags | O_NONBLOCK | O_NOCTTY, STATX_TYPE, &now));
	if (r >= 0 && st->stx_size > 0 && side_direct(e->job, src)) {
		void *dbuf = fcp_worker_verify_buf(e->w, &cap);

		if (dbuf && fcp_sys_set_direct(fd, true) == 0)
			direct = true, buf = dbuf;
		else
			refused = dbuf != NULL, buf = fcp_worker_buf(e->w, &cap);
	}
	if (r >= 0)
		r = fcp_hash_fd(e->job, fd, st->stx_size, buf, cap, direct, h);
	/* Refused by the fcntl, or by a read (fcp_hash_fd went on without
	 * it): --check says that DEST's bytes came through the page cache. */
	if (direct && r == 0)
		refused = fcp_sys_direct_on(fd) == 0;
	if (refused && r == 0 && !src && e->job->o->check)
		fcp_check_no_direct(e->job, e->d, fd);
	if (direct && fd == e->src_fd) /* the batch's: the copy reads it next */
		fcp_sys_set_direct(fd, false);
	if (r == 0 && key && src)
		fcp_manifest_record(e->job, src, key, st, h);
	/* Both sides were regular files at their statx: one is something
	 * else now (a FIFO, a device, swapped in since). For --check that is
	 * a difference of type, in its words, as the statx would have said. */
	if (r == -ENXIO && now.stx_mode && !S_ISREG(now.stx_mode) && e->job->o->check) {
		char *p = fcp_dir_dst_path(e->d, e->dst_name);

		fcp_check_say(e->job, p ? p : e->dst_name, src ? "type %s != file" : "type file != %s",
			      fcp_check_kind(now.stx_mode));
		free(p);
	} else if (r < 0 && e->job->o->check) {
		fcp_report_failed_in(e->job, "cannot read", e->d, src ? e->name : e->dst_name, !src, r);
	}
	if (fd >= 0 && fd != e->src_fd)
		close(fd);
	free(key);
	return r;
}

int fcp_plan_content(struct fcp_entry *e, const struct statx *dst)
{
	struct fcp_hash a, b;
	bool read, dst_read = false;
	int r = side_hash(e, true, &e->st, &a, &read);
	char *key;

	if (r == 0)
		r = side_hash(e, false, dst, &b, &dst_read);
	if (r < 0)
		return r;
	/* A copy's hash is recorded only when it matches its source's: a
	 * damaged copy's would later pass for the truth (--check --manifest
	 * FILE DEST compares against it). */
	if (dst_read && fcp_hash_equal(&a, &b) && e->job->man &&
	    (key = fcp_manifest_key(e->d, e->dst_name, false))) {
		fcp_manifest_record(e->job, false, key, dst, &b);
		free(key);
	}
	/* Found different: a side whose hash the manifest gave may be the
	 * one that is wrong (its bytes rotted, its times unchanged), and the
	 * copy's record may say otherwise too. Neither is trusted again:
	 * the next run reads both, and says it again. */
	if (!fcp_hash_equal(&a, &b) && e->job->man) {
		for (int side = 0; side < 2; side++) {
			key = fcp_manifest_key(e->d, side ? e->name : e->dst_name, side);
			if (key && (side ? !read : !dst_read))
				fcp_manifest_distrust(e->job, side, key);
			free(key);
		}
	}
	return fcp_hash_equal(&a, &b);
}

/* Does the link there point where the copy would point it? With
 * --symlinks=rewrite that is the source's target re-pointed into DEST
 * (as entry.c makes it), so that a check of such a copy can pass and a
 * sync leaves it. */
static bool same_target(struct fcp_entry *e)
{
	char *a = NULL, *b = NULL, *want = NULL;
	bool same = fcp_sys_readlinkat(e->d->src_fd, e->name, &a) >= 0 &&
		    fcp_sys_readlinkat(e->d->dst_fd, e->dst_name, &b) >= 0;

	if (same && e->job->o->symlinks == FCP_SYMLINKS_REWRITE)
		want = fcp_link_rewrite(a, e->d->root->src_abs, e->d->root->dst_abs);
	same = same && !strcmp(want ? want : a, b);
	free(a);
	free(b);
	free(want);
	return same;
}

/* -i: ask on the terminal's stderr and read the answer from stdin, as cp
 * does. One question at a time: the workers wait for it in turn. */
static bool ask(struct fcp_entry *e)
{
	static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
	char *p = fcp_dir_dst_path(e->d, e->dst_name), line[128];
	bool yes;

	pthread_mutex_lock(&one_at_a_time);
	pthread_mutex_lock(&e->job->err_lock);
	fprintf(e->job->err, "fastcp: overwrite '%s'? ", p ? p : e->dst_name);
	fflush(e->job->err);
	pthread_mutex_unlock(&e->job->err_lock);
	yes = fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y');
	/* The rest of a long answer is no second answer. */
	while (!strchr(line, '\n') && fgets(line, sizeof(line), stdin))
		;
	pthread_mutex_unlock(&one_at_a_time);
	free(p);
	return yes;
}

/* Did a killed --in-place run leave this file half rewritten (its mark,
 * file.c)? Its mtime is then the time of its last write, newer than its
 * source's: -u would keep it, the quick check of --size-only pass it. */
static bool half_rewritten(const struct fcp_entry *e)
{
	void *val = NULL;
	ssize_t n = fcp_sys_getxattr(-1, e->d->dst_fd, e->dst_name, FCP_INPLACE_MARKER, &val);

	free(val);
	return n >= 0;
}

static struct fcp_at src_at(const struct fcp_entry *e)
{
	return e->src_fd >= 0 ? FCP_AT_FD(e->src_fd) : FCP_AT_NAME(e->d->src_fd, e->name);
}

int fcp_plan_source_hash(struct fcp_entry *e, struct fcp_hash *h)
{
	bool read;

	return side_hash(e, true, &e->st, h, &read);
}

/* The facts of e against dst (NULL: nothing there), with what a batch
 * compared already. */
static struct fcp_facts facts_of(const struct fcp_entry *e, const struct statx *dst)
{
	struct fcp_facts f = { .src = &e->st, .dst = dst, .may_exist = may_exist(e->d),
			       .taken_up = fcp_plan_taken_up(e->d), .is_root = e->job->is_root,
			       .move_rerun = e->d->root && e->d->root->move_rerun };

	f.answer[FCP_Q_CONTENT] = e->content;
	return f;
}

/* The same bytes, but not the copy a fresh one would be where --check
 * looks beyond them: its holes filled, or its inode another source file's
 * copy too (check.h). Copied again, so that the two agree. */
static bool shape_differs(struct fcp_entry *e, const struct statx *dst)
{
	return fcp_check_holes_filled(e, dst) || fcp_check_links_taken(e, dst);
}

/* -s: is the name there a symlink to the source's path as given, the one
 * this run would make? */
static bool symlink_there(struct fcp_entry *e, const struct statx *dst)
{
	char *want, *have = NULL;
	bool same;

	if (!S_ISLNK(dst->stx_mode) || !(want = fcp_dir_src_path(e->d, e->name)))
		return false;
	same = fcp_sys_readlinkat(e->d->dst_fd, e->dst_name, &have) >= 0 && !strcmp(want, have);
	free(want);
	free(have);
	return same;
}

/* Answer question q of e's decision (dst: what is there) by reading. */
static bool answer(struct fcp_entry *e, const struct statx *dst, enum fcp_question q)
{
	switch (q) {
	case FCP_Q_CONTENT:
		return fcp_plan_content(e, dst) == 1;
	case FCP_Q_TARGET:
		return same_target(e);
	case FCP_Q_XATTRS:
		return fcp_meta_xattrs_same(e->job->o->preserve, src_at(e),
					    FCP_AT_NAME(e->d->dst_fd, e->dst_name));
	case FCP_Q_MARK:
		return half_rewritten(e);
	case FCP_Q_USER:
		return ask(e);
	case FCP_Q_WROTE:
		return fcp_move_wrote(e->job, dst);
	case FCP_Q_LINKED:
		return symlink_there(e, dst);
	case FCP_Q_SHAPE:
		return shape_differs(e, dst);
	default:
		return false;
	}
}

bool fcp_plan_data_same(struct fcp_entry *e, const struct statx *dst)
{
	struct fcp_facts f = facts_of(e, dst);
	int r;

	while ((r = fcp_decide_data_same(e->job->o, &f)) < 0)
		f.answer[-r] = answer(e, dst, (enum fcp_question)-r) ? 1 : -1;
	return r;
}

enum fcp_action fcp_plan_look(struct fcp_entry *e, struct statx *dst)
{
	struct fcp_facts f;
	struct fcp_decision dc;

	if (!fcp_plan_looks(e->job, e->d) || e->d->dst_fd < 0)
		return FCP_ACT_COPY;
	/* Any error but "nothing there" is the copy's to meet and report.
	 * A batch's content decision goes with the statx it was made by. */
	if (e->dst_st)
		*dst = *e->dst_st;
	else if (fcp_sys_statx(e->d->dst_fd, e->dst_name, AT_SYMLINK_NOFOLLOW, STATX_WANT, dst) < 0)
		return FCP_ACT_COPY;
	e->dst_mode = dst->stx_mode;
	e->dst_ino = dst->stx_ino;
	e->changes = (unsigned char)fcp_decide_changes(e->job->o, &e->st, dst, e->content < 0);
	f = facts_of(e, dst);
	while ((dc = fcp_decide(e->job->o, &f)).ask != FCP_Q_NONE)
		f.answer[dc.ask] = answer(e, dst, dc.ask) ? 1 : -1;
	return dc.act;
}

enum fcp_action fcp_plan_entry(struct fcp_entry *e)
{
	struct statx dst;

	return fcp_plan_look(e, &dst);
}

unsigned fcp_plan_changes(const struct fcp_options *o, const struct statx *s,
			  const struct statx *d)
{
	return fcp_decide_changes(o, s, d, false);
}

const char *fcp_plan_verb(enum fcp_action a)
{
	static const char *const verbs[] = {
		[FCP_ACT_COPY] = "copy", [FCP_ACT_REPLACE] = "update",
		[FCP_ACT_META] = "update metadata", [FCP_ACT_SKIP] = "unchanged",
		[FCP_ACT_KEEP] = "keep",
	};
	return verbs[a];
}
