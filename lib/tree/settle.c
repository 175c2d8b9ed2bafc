/*
 * settle.c - what the plan decides that is not a copy, carried out
 * (settle.h).
 */
#include "dest/backup.h"
#include "policy/check.h"
#include "policy/plan.h"
#include "engine/debug.h"
#include "tree/dedup.h"
#include "tree/delete.h"
#include "tree/entry.h"
#include "core/hash.h"
#include "tree/hooks.h"
#include "tree/links.h"
#include "dest/manifest.h"
#include "dest/meta.h"
#include "core/node.h"
#include "core/observe.h"
#include "tree/settle.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>

#define STATX_WANT (STATX_BASIC_STATS)

static struct fcp_at src_at(const struct fcp_entry *e)
{
	return e->src_fd >= 0 ? FCP_AT_FD(e->src_fd) : FCP_AT_NAME(e->d->src_fd, e->name);
}

/* The metadata of e's source the job would give the inode there (dst)
 * is there already. */
static bool meta_same(struct fcp_entry *e, const struct statx *dst)
{
	return fcp_plan_meta_diff(e->job, &e->st, src_at(e), dst,
				  FCP_AT_NAME(e->d->dst_fd, e->dst_name)) == 0;
}

/* The source's hash recorded as what the copy at key (st) should hold. A
 * source that cannot be read leaves the copy recorded without a hash (a
 * check counts it as not compared), not with an older record's, and is a
 * failed item: a manifest that misses a file must say so. */
static void record_expected(struct fcp_entry *e, const char *key, const struct statx *st)
{
	struct fcp_hash h;
	int r = fcp_plan_source_hash(e, &h);

	fcp_manifest_expected(e->job, key, st, r == 0 ? &h : NULL);
	if (r < 0 && !e->job->o->check) /* --check's said it (plan.c) */
		fcp_report_failed_in(e->job, "cannot read (to record it in the manifest)", e->d,
				     e->name, false, r);
}

/* --manifest: a file found up to date is recorded too, so that the
 * manifest names every file of DEST (a check of DEST alone reads them
 * all). Its record stays while the file is as it was when recorded; else
 * its source's hash (the manifest's, or read now) is recorded as what the
 * copy should hold, not as read from it: a check compares. --checksum and
 * --move recorded it already, when they compared the content. */
static void record_settled(struct fcp_entry *e, const struct statx *dst, bool changed)
{
	struct statx st = *dst;
	char *key;

	/* Its metadata just updated: the ctime the record keeps is now's. */
	if (!e->job->man || e->job->o->checksum || e->job->o->move ||
	    (changed && fcp_sys_statx(e->d->dst_fd, e->dst_name, AT_SYMLINK_NOFOLLOW,
				      STATX_BASIC_STATS, &st) < 0) ||
	    !S_ISREG(st.stx_mode) || !(key = fcp_manifest_key(e->d, e->dst_name, false)))
		return;
	if (!fcp_manifest_has(e->job, key, &st))
		record_expected(e, key, &st);
	free(key);
}

/* A dry run's line for name in d, of type mode and size bytes. */
static void show(struct fcp_job *job, enum fcp_action a, const struct fcp_dir *d,
		 const char *name, mode_t mode, uint64_t bytes, unsigned changes)
{
	char *p = fcp_dir_dst_path(d, name);

	fcp_report_plan_item(job, fcp_plan_verb(a), mode, p, S_ISREG(mode) ? bytes : 0,
			     a == FCP_ACT_META && !changes ? FCP_CHG_XATTR : changes);
	free(p);
}

/* dir: the summary's table has a row of directories. */
static void count(struct fcp_job *job, enum fcp_action a, bool dir)
{
	if (a == FCP_ACT_SKIP)
		atomic_fetch_add(&job->c.unchanged, 1);
	if (a == FCP_ACT_SKIP && dir)
		atomic_fetch_add(&job->c.unchanged_dirs, 1);
	if (a == FCP_ACT_META)
		atomic_fetch_add(&job->c.updated, 1);
	if (a == FCP_ACT_META && dir)
		atomic_fetch_add(&job->c.updated_dirs, 1);
	if (a == FCP_ACT_KEEP)
		atomic_fetch_add(&job->c.not_replaced, 1);
}

/*
 * A regular file with more names in the copy (hard links kept): up to
 * date under one name, it must also be the same inode as the copies of
 * its other names. The first name planned tells the hard-link map which
 * inode that is (links.c); a later name found up to date on another inode
 * is linked again, as is every later name of a file copied anew (the copy
 * path). A dry run says "link" for each name after the first that would be
 * linked. Returns true when the name was settled here (linked, said, or
 * queued behind its first name's copy).
 */
static bool link_settled(struct fcp_entry *e, enum fcp_action a)
{
	bool dry = e->job->o->dry_run, up = a == FCP_ACT_SKIP || a == FCP_ACT_META;
	struct fcp_hl_entry *hl;
	int r;

	if (!fcp_entry_links_kept(e) || !S_ISREG(e->st.stx_mode) || (!dry && !up))
		return false;
	/* Several ranks: its other names may be another's; the inode's
	 * owner plans them all once the tree is done (dist.c). */
	if (fcp_hook_defer_link(e))
		return true;
	switch (fcp_hl_claim_found(e->job, &e->st, e->d, e->name, e->dst_name, up ? e->dst_ino : 0,
				   &hl)) {
	case FCP_HL_FIRST:
		return false;
	case FCP_HL_QUEUED:
		return true; /* linked, or said, when the first name is done */
	case FCP_HL_LINK:
		break;
	}
	if (up && fcp_hl_copy_ino(hl) == e->dst_ino)
		return false;
	if (dry) {
		char *p = fcp_dir_dst_path(e->d, e->dst_name);
		fcp_report_plan(e->job, "link", p);
		free(p);
	} else if ((r = fcp_hl_link(e->w, hl, e->d, e->dst_name)) < 0) {
		fcp_entry_fail(e, "cannot create hard link", r);
	}
	return true;
}

/* Does a (of e) keep what it replaces under its backup name (-b)? Not a
 * directory in either place (merged, or refused, as cp does), nor in a
 * taken-up copy, which holds no backup. */
static bool backs_up(const struct fcp_entry *e, enum fcp_action a)
{
	return a == FCP_ACT_REPLACE && e->job->o->backup && !fcp_plan_taken_up(e->d) &&
	       !S_ISDIR(e->dst_mode) && !S_ISDIR(e->st.stx_mode);
}

/* Keep what e replaces under its backup name; false after reporting why
 * not. A backup that would take the source's own name is no backup: the
 * item is refused, as in cp. */
static bool backed_up(struct fcp_entry *e)
{
	/* A root's source is named by its path, not found in a directory. */
	int src = e->d->is_top ? -1 : e->d->src_fd, r;

	if (fcp_backup_is_source(e->w, e->d->dst_fd, src, e->dst_name, &e->st)) {
		fcp_report_failed_in(e->job, "not copied, its backup name is the source:", e->d,
				     e->name, false, 0);
		fcp_entry_stays(e);
		return false;
	}
	r = fcp_backup_make(e->w, e->d->dst_fd, src, e->dst_name);
	if (r < 0) {
		fcp_report_failed_in(e->job, "cannot back up", e->d, e->dst_name, true, r);
		fcp_entry_stays(e);
	}
	return r == 0;
}

/* --attributes-only copies no data, so it replaces none: a non-directory
 * there that is not a regular file beside a regular source (whose
 * metadata it gets: guard()) stays, and the item fails, as in cp. Else a
 * symlink or a device would take the place of a file and its bytes. */
static bool attributes_refused(struct fcp_entry *e)
{
	if (!e->job->o->attributes_only || S_ISDIR(e->dst_mode) || S_ISDIR(e->st.stx_mode))
		return false;
	/* A file over a file is replaced only where guard() found the mark
	 * of a killed --in-place run: its data is not this option's to mend. */
	if (S_ISREG(e->dst_mode) && S_ISREG(e->st.stx_mode) && !fcp_plan_taken_up(e->d))
		fcp_report_failed_in(e->job, "--attributes-only: will not give metadata to a file "
				     "a killed --in-place run left half written (copy it again "
				     "without the option):", e->d, e->dst_name, true, 0);
	else
		fcp_report_failed_in(e->job, "--attributes-only: will not replace", e->d,
				     e->dst_name, true, -EEXIST);
	return true;
}

/* A file's metadata updated in place: an immutable or append-only one
 * takes none (EPERM, also as root), and the item fails rather than end
 * "copied" with warnings. The dry run says so too. */
static bool meta_refused(struct fcp_entry *e, const struct statx *dst)
{
	if (S_ISDIR(dst->stx_mode) || !fcp_statx_locked(dst))
		return false;
	fcp_report_failed_in(e->job, "cannot update the metadata of immutable or append-only",
			     e->d, e->dst_name, true, -EPERM);
	return true;
}

/* --attributes-only changes a file in place, and with it every other name
 * of that inode: one may be a source (a copy made by -l, another source of
 * the same name) or outside DEST. Such a file is left as it is and the item
 * fails, unless it has the source's metadata already. */
static bool shared_refused(struct fcp_entry *e, const struct statx *dst)
{
	if (!e->job->o->attributes_only || dst->stx_nlink < 2 ||
	    meta_same(e, dst))
		return false;
	fcp_report_failed_in(e->job, "--attributes-only: will not change a file with other names",
			     e->d, e->dst_name, true, 0);
	return true;
}

/*
 * A name in DEST that is the source's own inode (a hard link a -l run
 * made, a bind mount of the source's directory inside DEST) is no copy of
 * it: rewritten in place it would be emptied before it is read, and under
 * --move the source would go with its only data. Unless -l made it (the
 * link is the copy), the item fails "are the same file", as cp's does,
 * and nothing is written through that name. As for a file operand (job.c),
 * cp's --backup and --remove-destination (not in place) copy beside it
 * and rename over that name: the source's inode keeps its bytes. True
 * after saying so.
 */
static bool same_file(struct fcp_entry *e, const struct statx *dst, enum fcp_action a)
{
	const struct fcp_options *o = e->job->o;
	uint64_t sm, dm;
	char *s, *d;
	bool two;

	if (a == FCP_ACT_COPY || a == FCP_ACT_KEEP || o->make != FCP_MAKE_COPY ||
	    S_ISDIR(e->st.stx_mode) || !fcp_statx_same_inode(&e->st, dst) ||
	    (a != FCP_ACT_REPLACE && !o->move))
		return false;
	if (!o->move && (o->backup != FCP_BACKUP_NONE ||
			 ((o->force & FCP_FORCE_REMOVE) && !o->in_place)))
		return false;
	/* A dry run says what the run does: a plain copy does not look at
	 * the name before it puts a new copy there (renamed over it, so the
	 * source's inode keeps its bytes), and never meets this. */
	if (o->dry_run && !fcp_plan_run_looks(e->job, e->d))
		return false;
	s = fcp_dir_src_path(e->d, e->name);
	d = fcp_dir_dst_path(e->d, e->dst_name);
	/* A bind mount, the disk mounted twice: the paths do not tell. */
	two = fcp_sys_mount_id(e->d->src_fd, e->name, AT_SYMLINK_NOFOLLOW, &sm) == 0 &&
	      fcp_sys_mount_id(e->d->dst_fd, e->dst_name, AT_SYMLINK_NOFOLLOW, &dm) == 0 &&
	      sm != dm;
	fcp_report_errorf(e->job, "'%s' and '%s' are the same file%s", s ? s : e->name,
			  d ? d : e->dst_name, two ? FCP_TWO_MOUNTS_WHY : "");
	free(s);
	free(d);
	/* Under --move the kept source is counted where it is named. */
	if (!e->job->o->move)
		atomic_fetch_add(&e->job->c.failed, 1);
	if (e->d->root)
		atomic_fetch_add(&e->d->root->failed, 1);
	return true;
}

bool fcp_settle_entry(struct fcp_entry *e)
{
	enum fcp_action a;
	struct fcp_at dst = FCP_AT_NAME(e->d->dst_fd, e->dst_name);
	struct statx dst_st;

	if (e->job->o->check) {
		fcp_check_entry(e);
		return true;
	}
	a = fcp_plan_look(e, &dst_st);
	if (same_file(e, &dst_st, a))
		return true;
	/* Something would be in its directory: -m keeps it (delete.c). */
	if (e->job->o->dry_run)
		atomic_store(&e->d->holds, true);
	if (a == FCP_ACT_REPLACE && attributes_refused(e))
		return true;
	if (a == FCP_ACT_META && (shared_refused(e, &dst_st) || meta_refused(e, &dst_st)))
		return true;
	if (a != FCP_ACT_KEEP && link_settled(e, a))
		return true;
	/* A dry run says what would go to make room (its delete lines)
	 * before the item's own line, as the run removes it first; where
	 * the run would fail the item, it says that instead of its line. */
	if (e->job->o->dry_run && a == FCP_ACT_REPLACE && !fcp_settle_make_room(e))
		return true;
	/* What is in the way stays under -n (said, as the run says it). */
	if (a == FCP_ACT_KEEP && fcp_settle_type_kept(e))
		return true;
	if (e->job->o->dry_run && a == FCP_ACT_KEEP && !S_ISDIR(e->st.stx_mode))
		fcp_move_dry_kept(e->job, e->d, e->name, e->dst_name, e->st.stx_mode);
	/* A file the batch settled unopened (fcp_settle_batch) that the run
	 * would copy: the run opens it next and fails there if it cannot.
	 * The dry run opens it too, so that it fails the item, and holds
	 * its directory's deletions, as the run does. */
	if (e->job->o->dry_run && (a == FCP_ACT_COPY || a == FCP_ACT_REPLACE) && e->src_fd < 0 &&
	    S_ISREG(e->st.stx_mode) && !(e->d->root && e->d->root->dry_renamed)) {
		int fd = fcp_sys_openat(e->d->src_fd, e->name,
					O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW |
						(e->job->is_root ? O_NOATIME : 0), 0);
		if (fd < 0) {
			fcp_entry_fail(e, "cannot open", fd);
			return true;
		}
		close(fd);
	}
	/* -b: a backup the run could not make fails the item there. */
	if (e->job->o->dry_run && backs_up(e, a)) {
		int r = fcp_backup_would(e->job, e->d->dst_fd, e->d->is_top ? -1 : e->d->src_fd,
					 e->dst_name);
		if (r < 0) {
			fcp_report_failed_in(e->job, "cannot back up", e->d, e->dst_name, true, r);
			fcp_entry_stays(e);
			return true;
		}
	}
	if (e->job->o->dry_run) {
		const char *dd = a == FCP_ACT_COPY || a == FCP_ACT_REPLACE ? fcp_dedup_dry_verb(e)
									   : NULL;
		char *p = dd ? fcp_dir_dst_path(e->d, e->dst_name) : NULL;

		if (dd) /* --dedup: "clone" or "link" */
			fcp_report_plan_item(e->job, dd, e->st.stx_mode, p, 0, 0);
		else
			show(e->job, a, e->d, e->dst_name, e->st.stx_mode, e->st.stx_size,
			     e->changes);
		free(p);
		count(e->job, a, false);
		return true;
	}
	if (a == FCP_ACT_REPLACE && !fcp_settle_make_room(e))
		return true;
	/* What a non-directory replaces is kept first (a directory in
	 * either place: merged, or refused, as cp does). */
	if (backs_up(e, a) && !backed_up(e))
		return true;
	if (a == FCP_ACT_META) {
		dst.exact_xattrs = true;
		int r = fcp_meta_copy(e->job, src_at(e), dst, &e->st, e->d, e->name);

		/* Its metadata not read: no copy of it, the source stays. */
		if (r < 0) {
			fcp_move_keep(e->job, &e->st);
			fcp_report_failed_in(e->job, "cannot read the extended attributes of", e->d,
					     e->name, false, r);
			return true;
		}
	}
	/* --move: its content was compared equal (fcp_plan_data_same). */
	if ((a == FCP_ACT_META || a == FCP_ACT_SKIP) && S_ISREG(e->st.stx_mode)) {
		fcp_move_found(e->job, fcp_statx_dev(&e->st), e->st.stx_ino, e->d->dst_fd,
			       e->dst_name);
		record_settled(e, &dst_st, a == FCP_ACT_META);
	}
	count(e->job, a, false);
	if (e->job->o->debug && (a == FCP_ACT_KEEP || a == FCP_ACT_META || a == FCP_ACT_SKIP))
		fcp_debug_item(e->job, e->d, e->name, e->dst_name,
			       a == FCP_ACT_KEEP ? "kept: already there (-n, -u or -i)"
			       : a == FCP_ACT_META ? "metadata updated in place, data the same"
						   : "unchanged (--sync)");
	if (a != FCP_ACT_META && a != FCP_ACT_SKIP && a != FCP_ACT_KEEP)
		return false;
	/* Up to date: its bytes are done (the status line). */
	if (S_ISREG(e->st.stx_mode))
		atomic_fetch_add(&e->job->c.settled_bytes, e->st.stx_size);
	fcp_obs_item(e->job,
		     a == FCP_ACT_META ? FCP_OBS_META : a == FCP_ACT_KEEP ? FCP_OBS_KEEP
									 : FCP_OBS_UNCHANGED,
		     e->st.stx_mode, e->d, e->name, e->dst_name,
		     S_ISREG(e->st.stx_mode) ? e->st.stx_size : 0, NULL,
		     a == FCP_ACT_META && !e->changes ? FCP_CHG_XATTR : e->changes);
	return true;
}

int fcp_settle_batch(struct fcp_worker *w, struct fcp_dir *d, const char **names, int n,
		   unsigned short *was)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct fcp_entry e[FCP_BATCH_MAX];
	struct statx dst[FCP_BATCH_MAX];
	int r[FCP_BATCH_MAX], same[FCP_BATCH_MAX];
	const char *mine[FCP_BATCH_MAX];
	bool compare = job->o->check || job->o->checksum;
	int left = 0, m = 0;

	/* Under -L a name's stat is its target's: the entry path sorts it. */
	if (job->o->symlinks == FCP_SYMLINKS_FOLLOW)
		return n;
	for (int i = 0; i < n; i++) {
		e[m] = (struct fcp_entry){ .w = w, .job = job, .d = d, .name = names[i],
					   .dst_name = names[i], .src_fd = -1 };
		/* Anything odd (gone, no longer a file) is the entry path's. */
		if (fcp_sys_statx(d->src_fd, names[i], AT_SYMLINK_NOFOLLOW, STATX_WANT, &e[m].st) < 0 ||
		    !S_ISREG(e[m].st.stx_mode)) {
			was[left] = 0;
			names[left++] = names[i];
		} else
			mine[m++] = names[i];
	}
	/* --check and --checksum: the contents compared together first
	 * (check_uring.c), each entry then checked or planned as one by one. */
	if (compare)
		fcp_compare_batch(w, e, m, dst, r, same);
	for (int i = 0; i < m; i++) {
		if (job->o->check) {
			fcp_check_found(&e[i], r[i], &dst[i], same[i]);
			continue;
		}
		if (compare) {
			e[i].content = same[i] < 0 ? 0 : same[i] ? 1 : -1;
			e[i].dst_st = r[i] == 0 ? &dst[i] : NULL;
		}
		if (fcp_settle_entry(&e[i]))
			continue;
		was[left] = e[i].dst_mode ? (unsigned short)(FCP_PLAN_WAS | e[i].changes) : 0;
		names[left++] = mine[i];
	}
	return left;
}

bool fcp_settle_type_kept(struct fcp_entry *e)
{
	if (S_ISDIR(e->dst_mode) == S_ISDIR(e->st.stx_mode))
		return false;
	char *p;

	/* A dry run lists it kept, and fails it as the run does. */
	if (e->job->o->dry_run)
		show(e->job, FCP_ACT_KEEP, e->d, e->dst_name, e->st.stx_mode, 0, 0);
	/* Its source is not in DEST: exit 1, as cp -n. A choice the user
	 * made, not an error met: the directory's extras still go. Under
	 * --move its source stays, named here only. */
	p = fcp_dir_dst_path(e->d, e->dst_name);
	fcp_report_failed(e->job, S_ISDIR(e->dst_mode)
					  ? "not replaced (-n), a directory in the way of a file:"
					  : "not replaced (-n), a non-directory in the way of a directory:",
			  p ? p : e->dst_name, 0);
	fcp_entry_stays(e);
	free(p);
	count(e->job, FCP_ACT_KEEP, false);
	return true;
}

/* A dry run: what is in e's way stays (no --delete), so the run's mkdir
 * or rename would fail there. Said with the run's words, once, as the run
 * says it (under --move, its source's staying is not said again); false. */
static bool dry_in_way(struct fcp_entry *e)
{
	if (S_ISDIR(e->st.stx_mode))
		fcp_report_failed_in(e->job, "cannot replace non-directory", e->d, e->dst_name, true,
				     -ENOTDIR);
	else
		fcp_report_failed_in(e->job, "cannot overwrite directory with", e->d, e->name, false,
				     -EISDIR);
	return false;
}

bool fcp_settle_make_room(struct fcp_entry *e)
{
	char *p;

	if (e->job->o->check || !e->dst_mode || S_ISDIR(e->dst_mode) == S_ISDIR(e->st.stx_mode))
		return true;
	/* Not a root copy's own name: "fastcp --delete -T file DIR" must not
	 * remove DIR, it fails as cp -T does. In a taken-up copy, what is
	 * in the way is the killed run's, of a source that changed type. */
	if (!(e->job->o->delete_extra || fcp_plan_taken_up(e->d)) || e->d->is_top)
		return !e->job->o->dry_run || dry_in_way(e);
	if (fcp_delete_entry(e->job, e->d, e->dst_name) == 0)
		return true;
	/* What stayed was said with its own path; the item that cannot be
	 * copied is named too, as every failed item is. Its directory's
	 * other extras still go: the source was read whole. */
	p = fcp_dir_src_path(e->d, e->name);
	fcp_report_failed(e->job, "cannot make room (what is in its way in DEST stays) for",
			  p ? p : e->name, 0);
	fcp_entry_stays(e);
	free(p);
	if (e->d->root)
		atomic_fetch_add(&e->d->root->failed, 1);
	return false;
}

/* A dry run where SOURCEs merge: the first of them to finish d's copy
 * gives it its metadata; the others find it given (delete.h). */
static bool meta_said_before(struct fcp_job *job, struct fcp_dir *d)
{
	char *p = job->merge ? fcp_dir_dst_path(d->parent, d->dst_name) : NULL;
	char *key = p ? fcp_path_join("update metadata\t", p) : NULL;
	bool said = key && fcp_dry_said_before(job, key);

	free(key);
	free(p);
	return said;
}

bool fcp_settle_dir_meta(struct fcp_job *job, struct fcp_dir *d, struct fcp_at *dat)
{
	struct statx dst;
	bool same;

	if (job->o->check) {
		fcp_check_dir(job, d);
		return false;
	}
	if (!fcp_dir_existed(d) || !fcp_plan_looks(job, d))
		return !job->o->dry_run;
	if (!fcp_plan_dir_compared(job) && !job->o->dry_run)
		return true;
	dat->exact_xattrs = true;
	same = fcp_sys_fstatx(d->dst_fd, &dst) == 0 &&
	       fcp_plan_meta_diff(job, &d->st, FCP_AT_FD(d->src_fd), &dst, *dat) == 0;
	/* A dry run without --sync, -n, -u or -i would set every directory's
	 * metadata. */
	if (!fcp_plan_dir_compared(job))
		same = false;
	unsigned chg = same ? 0 : fcp_decide_changes(job->o, &d->st, &dst, false);
	struct statx before = dst;

	/* A time that only this job's writes inside changed is put back,
	 * and is no change to report: the directory was up to date. */
	before.stx_mtime = d->dst_mtime0;
	if (chg == FCP_CHG_TIME && !fcp_decide_changes(job->o, &d->st, &before, false))
		same = true;
	if (job->o->dry_run && !same && meta_said_before(job, d))
		same = true; /* another SOURCE's finish sets it first (delete.h) */
	if (job->o->dry_run)
		show(job, same ? FCP_ACT_SKIP : FCP_ACT_META, d->parent, d->dst_name, S_IFDIR, 0,
		     chg);
	else
		fcp_obs_item(job, same ? FCP_OBS_UNCHANGED : FCP_OBS_META, S_IFDIR, d->parent,
			     d->name, d->dst_name, 0, NULL, chg ? chg : FCP_CHG_XATTR);
	count(job, same ? FCP_ACT_SKIP : FCP_ACT_META, true);
	return !job->o->dry_run && (!same || chg);
}

