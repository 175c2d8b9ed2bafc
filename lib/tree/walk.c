/*
 * walk.c - scan one directory and finish it when its children are done.
 *
 * Scanning only reads names (getdents via readdir on a dup of the source
 * fd); the type from getdents rides along so that entry.c can skip work it
 * does not need. Finishing applies the directory's own metadata after every
 * child landed: a read-only directory could not have been filled otherwise,
 * and the children's renames would have changed its mtime.
 */
#include "dest/backup.h"
#include "dest/dest.h"
#include "core/job.h"
#include "tree/delete.h"
#include "base/grow.h"
#include "tree/hooks.h"
#include "dest/meta.h"
#include "core/node.h"
#include "core/observe.h"
#include "dest/own.h"
#include "policy/pick.h"
#include "policy/plan.h"
#include "tree/settle.h"
#include "base/sys.h"
#include "core/worker.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool dot_or_dotdot(const char *n)
{
	return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
}

/* Regular files are gathered into batches of up to job->batch_max names. */
#define BATCH_BYTES 8192

struct batch {
	int count;
	size_t used;
	/* The directory, or its copy, holds a file the job writes (own.h). */
	bool own_src, own_dst;
	char names[BATCH_BYTES];
};

static void push_item(struct fcp_worker *w, struct fcp_dir *d, struct fcp_item *it)
{
	if (!it) {
		fcp_report_failed_in(fcp_worker_job(w), "out of memory in", d, NULL, false, -ENOMEM);
		return;
	}
	atomic_fetch_add(&d->pending, 1);
	fcp_sched_push(w, it);
}

static void batch_flush(struct fcp_worker *w, struct fcp_dir *d, struct batch *b)
{
	struct fcp_item *it;

	if (b->count == 0)
		return;
	it = b->count > 1 ? calloc(1, sizeof(*it) + b->used) : NULL;
	if (it) {
		it->kind = FCP_ITEM_BATCH;
		it->dir = d;
		it->d_type = DT_REG;
		it->count = b->count;
		memcpy(it->name, b->names, b->used);
		push_item(w, d, it);
	} else { /* one file, or no memory for the batch: one item each */
		for (const char *p = b->names; p < b->names + b->used; p += strlen(p) + 1)
			push_item(w, d, fcp_item_new(FCP_ITEM_ENTRY, d, p, NULL, DT_REG));
	}
	b->count = 0;
	b->used = 0;
}

/* Whether a name of n bytes (NUL included) no longer fits into a batch
 * that holds count names in used bytes. */
static bool batch_full(const struct fcp_job *job, int count, size_t used, size_t n)
{
	return count >= job->batch_max || used + n > BATCH_BYTES;
}

static void batch_add(struct fcp_worker *w, struct fcp_dir *d, struct batch *b, const char *name)
{
	size_t n = strlen(name) + 1;

	if (batch_full(fcp_worker_job(w), b->count, b->used, n))
		batch_flush(w, d, b);
	memcpy(b->names + b->used, name, n);
	b->used += n;
	b->count++;
}

/* A file the job writes (own.h) is never copied, nor copied onto; its
 * name counts as met (--delete keeps what is there). */
static bool own_entry(struct fcp_job *job, struct fcp_dir *d, struct batch *b, const char *name)
{
	bool src = b->own_src && fcp_own_name(job, fcp_statx_dev(&d->st), d->st.stx_ino, name);

	if (!src && !(b->own_dst && fcp_own_name(job, d->dst_dev, d->dst_ino, name)))
		return false;
	if (d->seen)
		fcp_names_add(job, d, name);
	if (!src)
		fcp_report_failed_in(job, "will not copy over a file this job writes (--manifest, "
				     "--log, --events):", d, name, true, 0);
	return true;
}

/* A dry run: name, left out, stays in d's copy if it is there, and -m
 * would then find the directory not empty (fcp_delete_pruned). */
static void dry_kept(struct fcp_job *job, struct fcp_dir *d, const char *name)
{
	struct statx st;

	if (job->o->dry_run && job->o->prune_empty_dirs && d->dst_fd >= 0 &&
	    fcp_sys_statx(d->dst_fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) == 0)
		atomic_store(&d->holds, true);
}

static void emit(struct fcp_worker *w, struct fcp_dir *d, struct batch *b, const char *name,
		 unsigned char type)
{
	struct fcp_job *job = fcp_worker_job(w);
	enum fcp_pick pick;

	if (dot_or_dotdot(name))
		return;
	if ((b->own_src || b->own_dst) && own_entry(job, d, b, name))
		return;
	/* Left out here, so that an excluded directory is never read. Its
	 * copy stays under --delete unless --delete-excluded says otherwise;
	 * in a taken-up copy it is the killed run's, perhaps cut short, and
	 * goes (delete.c), as a new copy would lack it. */
	if (fcp_options_filter(job->o) &&
	    (pick = fcp_plan_pick(job, d, name, &type)) != FCP_PICK_COPY) {
		atomic_fetch_add(&job->c.excluded, 1);
		if (job->o->move)
			fcp_move_left_out(job, d->src_fd, name);
		if (d->seen && !(pick == FCP_PICK_RULE && job->o->delete_excluded) &&
		    !(d->root && d->root->adopted)) {
			fcp_names_add(job, d, name);
			dry_kept(job, d, name);
		}
		return;
	}
	if (d->seen)
		fcp_names_add(job, d, name);
	/* A backup made in d's copy must not take this name (backup.h). */
	if (job->o->backup != FCP_BACKUP_NONE &&
	    fcp_backup_note_copy(job, d->dst_dev, d->dst_ino, name) < 0)
		fcp_report_failed_in(job, "out of memory in", d, NULL, false, -ENOMEM);
	/* Only a source that reaches into this very run's destination can
	 * hold one of this job's temporary names; copied, it could replace a
	 * file in flight under that name. (A directory so named is this job's
	 * root copy: entry.c refuses to copy the destination into itself.) */
	if (type != DT_DIR && fcp_tmpname_of_job(fcp_worker_job(w), name)) {
		fcp_report_failed_in(fcp_worker_job(w), "cannot copy a name reserved for this copy's "
				     "temporary files", d, name, false, -EEXIST);
		return;
	}
	if (type == DT_REG)
		batch_add(w, d, b, name);
	else
		push_item(w, d, fcp_item_new(FCP_ITEM_ENTRY, d, name, NULL, type));
}

struct sorted {
	uint64_t ino;
	unsigned char type;
	char *name;
};

static int by_ino(const void *a, const void *b)
{
	uint64_t x = ((const struct sorted *)a)->ino, y = ((const struct sorted *)b)->ino;
	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * Rotational source: the whole directory is read and sorted by inode
 * number (roughly physical order), and this worker, which pops its newest
 * items first, must meet the files in ascending order. So the regular
 * files go out in batches of ascending inodes, the last batch first, and
 * the other entries highest first. (A batch copies its files in the order
 * of its names: batches of descending inodes read each directory
 * backwards, against the read-ahead of the layers below the filesystem
 * (here the loop device's image file), which follows forward streams:
 * folders cold 2.818 s against 2.154 s, BENCHMARKS.md.)
 */
static void emit_sorted(struct fcp_worker *w, struct fcp_dir *d, struct batch *b,
			struct sorted *v, size_t n)
{
	for (size_t i = n; i-- > 0;)
		if (v[i].type != DT_REG)
			emit(w, d, b, v[i].name, v[i].type);
	for (size_t hi = n, lo; hi > 0; hi = lo) {
		int count = 0;
		size_t used = 0;

		/* The batch below hi: as many files as batch_add() takes. */
		for (lo = hi; lo > 0; lo--) {
			size_t len = strlen(v[lo - 1].name) + 1;

			if (v[lo - 1].type != DT_REG)
				continue;
			if (batch_full(fcp_worker_job(w), count, used, len))
				break;
			count++;
			used += len;
		}
		batch_flush(w, d, b);
		for (size_t i = lo; i < hi; i++)
			if (v[i].type == DT_REG)
				emit(w, d, b, v[i].name, v[i].type);
	}
}

static int scan_sorted(struct fcp_worker *w, struct fcp_dir *d, DIR *dir, struct batch *b)
{
	struct sorted *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int r;

	/* Short of memory, an entry is emitted at once, unsorted. */
	while ((r = fcp_sys_readdir(dir, &de)) > 0) {
		if ((nv = fcp_grow(v, &cap, n + 1, sizeof(*v), 256)))
			v = nv;
		if (n < cap && (v[n].name = strdup(de->d_name))) {
			v[n].ino = de->d_ino;
			v[n++].type = de->d_type;
		} else {
			emit(w, d, b, de->d_name, de->d_type);
		}
	}
	qsort(v, n, sizeof(*v), by_ino);
	emit_sorted(w, d, b, v, n);
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	return r;
}

static void walk_scan(struct fcp_worker *w, struct fcp_dir *d)
{
	struct batch b = { 0 };
	struct fcp_job *job = fcp_worker_job(w);
	int fd;
	DIR *dir;
	struct dirent *de;
	int r;

	/* Stopping: the rest of the tree is not even read. */
	if (atomic_load(&job->stop)) {
		atomic_fetch_add(&job->c.not_copied, 1);
		fcp_dir_release(w, d);
		return;
	}
	if (fcp_dir_pin(job, d) < 0) {
		fcp_dir_release(w, d);
		return;
	}
	/* Before any child is started, so nothing of this job is in it yet;
	 * one this job made holds nothing else. */
	if (fcp_dir_existed(d))
		d->no_special = !fcp_leftover_scan(job, d, NULL, NULL, 0);
	/* Not read (a mount point under -x): nothing in its copy is deleted
	 * either, its names unknown. */
	if (!fcp_plan_reads(job, d)) {
		fcp_dir_unpin(job, d);
		fcp_dir_release(w, d);
		return;
	}
	fcp_delete_prepare(job, d);
	b.own_src = fcp_own_dir(job, fcp_statx_dev(&d->st), d->st.stx_ino);
	b.own_dst = d->dst_fd >= 0 && fcp_own_dir(job, d->dst_dev, d->dst_ino);
	fd = fcp_sys_openat(d->src_fd, ".", O_RDONLY | O_DIRECTORY, 0);
	dir = fd >= 0 ? fdopendir(fd) : NULL;

	if (!dir) {
		atomic_store(&d->unlisted, true);
		fcp_move_keep(job, &d->st); /* said once: here, not by the prune */
		fcp_report_failed_in(job, "cannot read directory", d, NULL, false,
				     fd < 0 ? fd : -ENOMEM);
		if (fd >= 0)
			close(fd);
		fcp_dir_unpin(job, d);
		fcp_dir_release(w, d);
		return;
	}
	if (d->rotational) {
		r = scan_sorted(w, d, dir, &b);
	} else {
		while ((r = fcp_sys_readdir(dir, &de)) > 0)
			emit(w, d, &b, de->d_name, de->d_type);
	}
	batch_flush(w, d, &b);
	if (r < 0) {
		atomic_store(&d->unlisted, true);
		fcp_move_keep(job, &d->st);
		fcp_report_failed_in(job, "cannot read directory", d, NULL, false, r);
	}
	closedir(dir);
	fcp_dir_unpin(job, d);
	fcp_dir_release(w, d);
}

void fcp_walk_item(struct fcp_worker *w, struct fcp_item *it)
{
	walk_scan(w, it->dir);
	free(it);
}

void fcp_dir_said(struct fcp_job *job, struct fcp_dir *d, unsigned char how)
{
	static const char *const verbs[] = { [FCP_SAY_MKDIR] = "mkdir",
					     [FCP_SAY_REPLACED] = "update",
					     [FCP_SAY_META] = "update metadata" };
	char *p;

	/* --check -m walks a missing directory to judge it: nothing is made. */
	if (job->o->check)
		return;
	if (job->o->dry_run) {
		p = fcp_dir_dst_path(d->parent, d->dst_name);
		fcp_report_plan_item(job, verbs[how], S_IFDIR, p, 0,
				     how == FCP_SAY_REPLACED ? FCP_CHG_TYPE : 0);
		free(p);
		return;
	}
	if (how == FCP_SAY_META) {
		atomic_fetch_add(&job->c.updated, 1);
		atomic_fetch_add(&job->c.updated_dirs, 1);
	} else {
		atomic_fetch_add(&job->c.dirs, 1);
	}
	fcp_obs_item(job, how == FCP_SAY_META ? FCP_OBS_META
			  : how == FCP_SAY_REPLACED ? FCP_OBS_UPDATE : FCP_OBS_MKDIR,
		     S_IFDIR, d->parent, d->name, d->dst_name, 0, NULL,
		     how == FCP_SAY_REPLACED ? FCP_CHG_TYPE
		     : how == FCP_SAY_META  ? (d->said_chg ? d->said_chg : FCP_CHG_XATTR)
					    : 0);
}

/* A directory whose metadata could not be read from its source: it fails
 * (its copy is not the one asked for) and, under --move, stays in the
 * source. */
static void dir_meta_unread(struct fcp_job *job, struct fcp_dir *d, int err)
{
	fcp_move_keep(job, &d->st);
	fcp_report_failed_in(job, "cannot read the extended attributes of", d, NULL, false, err);
}

static void dir_finish(struct fcp_worker *w, struct fcp_dir *d)
{
	struct fcp_job *job = fcp_worker_job(w);
	bool pruned = false;
	int r;

	/* A top pseudo-dir's fds belong to the job (hard links may still
	 * need its destination fd), so only real directories close here. */
	if (d->is_top)
		return;
	/* Given back while its subdirectories were copied: open it again. */
	if (!d->elsewhere && fcp_dir_pin(job, d) == 0 && d->dst_fd >= 0) {
		struct fcp_at dst = FCP_AT_FD(d->dst_fd);
		/* Other ranks may still be copying into it: its metadata is
		 * set once they all finished (dist.c), the root's last. */
		bool later = d->depth > 0 && atomic_load(&d->meta_later);
		dst.inherited = d->created && d->parent->gives_acl;
		dst.existed = fcp_dir_existed(d);
		/* Extras go first: removing them moves the directory's mtime. */
		fcp_delete_extras(w, d);
		/* Pruned (--prune-empty-dirs), it has no metadata to take. */
		pruned = !later && fcp_delete_pruned(job, d);
		bool apply = !pruned && fcp_settle_dir_meta(job, d, &dst);
		/* (Set later even where the plan found it up to date: the
		 * other ranks' files may yet move its times.) */
		if (later && !job->o->dry_run && !job->o->check)
			fcp_hook_dir_done(job, d, dst);
		else if (apply && (r = fcp_meta_copy(job, FCP_AT_FD(d->src_fd), dst, &d->st, d,
						      NULL)) < 0)
			dir_meta_unread(job, d, r);
		r = job->o->fsync && !later && !pruned ? fcp_sys_fsync(d->dst_fd) : 0;
		if (r < 0)
			fcp_report_failed_in(job, "cannot sync directory", d->parent, d->dst_name,
					     true, r);
		if (d->hidden_name)
			fcp_dest_unhide(job, d);
	}
	/* A dry run's new directory: would -m take it? */
	else if (job->o->dry_run && !d->elsewhere)
		pruned = fcp_delete_pruned(job, d);
	if (d->said_at_end && !pruned)
		fcp_dir_said(job, d, d->said_at_end);
	if (!pruned)
		atomic_store(&d->parent->holds, true);
	/* A failure below holds back the deletions above (--delete), as
	 * rsync does on an I/O error. */
	if (atomic_load(&d->failed_in))
		atomic_store(&d->parent->failed_in, true);
	fcp_names_free(d);
	fcp_plan_dir_free(d);
	fcp_dir_fds_release(job, d);
}

void fcp_dir_release(struct fcp_worker *w, struct fcp_dir *d)
{
	while (d && atomic_fetch_sub(&d->pending, 1) == 1) {
		struct fcp_dir *parent = d->parent;

		dir_finish(w, d);
		/* A top pseudo-dir is owned by the job, which frees it. */
		if (d->is_top)
			break;
		free(d->name);
		free(d->hidden_name);
		if (d->dst_name != d->name)
			free(d->dst_name);
		free(d);
		d = parent;
	}
}
