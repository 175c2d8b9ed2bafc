/*
 * plan.h - one decision per entry: what to do with a source entry, given
 * what is at its destination and the options.
 *
 * entry.c asks before it copies an entry, walk.c before it applies a
 * directory's metadata; they carry the action out. --sync, --checksum
 * and --dry-run are inputs here, not branches in the per-type code: the
 * quick check (type, size, mtime) and the content check (XXH3-128) live
 * in this one place, where the hash manifest will answer too.
 *
 * The destination is looked at only where something can be there: in a
 * directory that existed before the job, or for a root copy. Inside a new
 * copy nothing exists, and no syscall is spent on asking.
 */
#ifndef FCP_PLAN_H
#define FCP_PLAN_H

#include "entry.h"
#include "meta.h"

enum fcp_action {
	FCP_ACT_COPY,    /* nothing is there: copy */
	FCP_ACT_REPLACE, /* something else is there: copy again, rename over it */
	FCP_ACT_META,    /* the same data: update the metadata in place */
	FCP_ACT_SKIP,    /* up to date (a directory: go into it) */
	FCP_ACT_KEEP,    /* a file is there, to be kept (-n, -u, -i) */
};

/* Must entries of d be planned one by one (--dry-run, or --sync or
 * --checksum where something may exist)? When not, every action is COPY. */
bool fcp_plan_looks(const struct fcp_job *job, const struct fcp_dir *d);

/* The same for what decides whether an entry that is there is up to date
 * (--sync, --checksum, --dry-run): cp's -n, -u, -i and --backup look
 * only to keep what is there. */
bool fcp_plan_decides(const struct fcp_job *job, const struct fcp_dir *d);

/* The action for entry e (e->st known; e->src_fd open, or -1: a regular
 * file is then opened by name only if --checksum must read it). Notes
 * in e->dst_mode what it found at the destination. */
enum fcp_action fcp_plan_entry(struct fcp_entry *e);

/* Ask the plan for e and carry out what is not a copy: count an
 * unchanged entry, update metadata in place, or (--dry-run) say what
 * would be done. Returns true when the entry needs nothing more. */
bool fcp_plan_settled(struct fcp_entry *e);

/* Does the plan of an entry ask (-i) or change something (--backup), or
 * is a file there rewritten in place (--in-place, file.c)?
 * Then it must be asked once per entry: on the synchronous path, where
 * nothing asks it again. */
bool fcp_plan_once(const struct fcp_job *job);

struct fcp_at;

/* A batch of regular files of d, by name (batch.c), before anything is
 * opened: each one the plan settles without a copy (unchanged, metadata
 * updated, or said by --dry-run) is dropped from names[]; returns how
 * many are left to copy, in order. Saves the open of every unchanged
 * file. was[k] of each one left: 0 where DEST had nothing (or it was not
 * looked at), else FCP_PLAN_WAS | its FCP_CHG_* (observe.h): -v's
 * "update". */
#define FCP_PLAN_WAS 0x100
int fcp_plan_batch(struct fcp_worker *w, struct fcp_dir *d, const char **names, int n,
		   unsigned short *was);

/* Make room for e where the copy would need it (--delete): a directory
 * where e is none, or a non-directory where e is a directory, is removed
 * as rsync --delete does (--dry-run: said, delete lines). False when that
 * failed (reported). */
bool fcp_plan_make_room(struct fcp_entry *e);

/* e, kept by -n, is of another kind than what is in its way (a directory
 * against a non-directory): nothing there is replaced, also with
 * --delete, and the item fails, named (a dry run says "keep"). False
 * where the kinds agree: an ordinary keep. */
bool fcp_plan_type_kept(struct fcp_entry *e);

/* Is a directory that is there compared with its source before it gets
 * its metadata (said at its finish, by fcp_plan_dir_meta)? */
bool fcp_plan_dir_compared(const struct fcp_job *job);

/* Should the finished directory d get its source's metadata (at dst)? Yes
 * for a new one; for one that existed, only where it differs (--dry-run
 * says so instead), and then its xattrs the source lacks go. */
bool fcp_plan_dir_meta(struct fcp_job *job, struct fcp_dir *d, struct fcp_at *dst);

/* The comparisons themselves, shared with --check (check.c), so that a
 * check and a --sync or --checksum run never disagree. The FCP_PRESERVE_*
 * items the job keeps that differ between src (st, at sat) and the inode
 * dst at dat (the xattrs asked only when nothing else differs, except
 * under --check). */
unsigned fcp_plan_meta_diff(const struct fcp_job *job, const struct statx *st, struct fcp_at sat,
			    const struct statx *dst, struct fcp_at dat);
/* Is the data of e (its content, a link's target, a device's number) at
 * the destination already, described by dst? By content under --checksum
 * and --check. */
bool fcp_plan_data_same(struct fcp_entry *e, const struct statx *dst);
/* Do e's source (e->st) and its copy (dst, same size) hold the same bytes
 * (XXH3-128, or the manifest's hash of an unchanged file)? 1 yes, 0 no,
 * or -errno reading either (reported under --check). */
int fcp_plan_content(struct fcp_entry *e, const struct statx *dst);

/* What --itemize-changes says differed (FCP_CHG_*) between a source's
 * st s and what DEST holds, d, its data aside. */
unsigned fcp_plan_changes(const struct fcp_options *o, const struct statx *s,
			  const struct statx *d);

/* What the dry-run line of each action says of an entry. */
const char *fcp_plan_verb(enum fcp_action a);

/*
 * Choosing what to copy: the filters decide as the walk meets each name,
 * so an excluded directory is never opened or read.
 */
enum fcp_pick {
	FCP_PICK_COPY,  /* copy it */
	FCP_PICK_RULE,  /* left out by a rule (--exclude, .gitignore, a
			   CACHEDIR.TAG): its copy is removed only by
			   --delete-excluded */
	FCP_PICK_LIMIT, /* left out by size or time: its copy stays */
};

/* Before directory d is read (pinned): false when it must not be (-x, a
 * mount point: its copy stays empty). Reads d's .gitignore (--gitignore).
 * The status line's pre-scan asks the same (progress.c), on directories
 * of its own (d->counting: nothing reported; of d only parent, name,
 * depth, st and src_fd are read, rel and ign kept until
 * fcp_plan_dir_free). */
bool fcp_plan_reads(struct fcp_job *job, struct fcp_dir *d);

/* Entry name of d (getdents type *type, filled in where the filters had
 * to stat it): copy it or leave it out? Call only when
 * fcp_options_filter(job->o). */
enum fcp_pick fcp_plan_pick(struct fcp_job *job, struct fcp_dir *d, const char *name,
			    unsigned char *type);

/* --delete: must an entry of d's copy that the source lacks stay because
 * a rule excludes it (and no --delete-excluded)? below: its path below d
 * (its name, or deeper inside an extra directory); name in dirfd: it. */
bool fcp_plan_keeps_extra(struct fcp_job *job, struct fcp_dir *d, const char *below, int dirfd,
			  const char *name);

/* d is finished: what the filters kept for it goes. */
void fcp_plan_dir_free(struct fcp_dir *d);

#endif
