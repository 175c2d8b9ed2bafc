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
 * file. */
int fcp_plan_batch(struct fcp_worker *w, struct fcp_dir *d, const char **names, int n);

/* Make room for e where the copy would need it (--delete): a directory
 * where e is none, or a non-directory where e is a directory, is removed
 * as rsync --delete does. False when that failed (reported). */
bool fcp_plan_make_room(struct fcp_entry *e);

/* Should the finished directory d get its source's metadata (at dst)? Yes
 * for a new one; for one that existed, only where it differs (--dry-run
 * says so instead), and then its xattrs the source lacks go. */
bool fcp_plan_dir_meta(struct fcp_job *job, struct fcp_dir *d, struct fcp_at *dst);

/* What the dry-run line of each action says of an entry. */
const char *fcp_plan_verb(enum fcp_action a);

#endif
