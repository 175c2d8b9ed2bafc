/*
 * plan.h - one decision per entry: what to do with a source entry, given
 * what is at its destination and the options.
 *
 * entry.c asks before it copies an entry, walk.c before it applies a
 * directory's metadata; settle.c carries out what is not a copy. --sync,
 * --checksum and --dry-run are inputs here, not branches in the per-type
 * code: the quick check (type, size, mtime) and the content check
 * (XXH3-128) live in this one place, where the hash manifest answers too.
 * The decision itself is a pure function (decide.h); this file looks at
 * DEST and reads what the decision asks, and writes nothing there.
 *
 * The destination is looked at only where something can be there: in a
 * directory that existed before the job, or for a root copy. Inside a new
 * copy nothing exists, and no syscall is spent on asking.
 */
#ifndef FCP_PLAN_H
#define FCP_PLAN_H

#include "policy/decide.h"
#include "dest/meta.h"
#include "core/node.h"

/* Must entries of d be planned one by one (--dry-run, or --sync or
 * --checksum where something may exist)? When not, every action is COPY. */
bool fcp_plan_looks(const struct fcp_job *job, const struct fcp_dir *d);

/* The same for what decides whether an entry that is there is up to date
 * (--sync, --checksum, --dry-run): cp's -n, -u, -i and --backup look
 * only to keep what is there. */
bool fcp_plan_decides(const struct fcp_job *job, const struct fcp_dir *d);
/* Would the run, not its dry run, look at entries of d? */
bool fcp_plan_run_looks(const struct fcp_job *job, const struct fcp_dir *d);

/* Is d in a stopped run's hidden copy, taken up (leftover.c)? Its files
 * are that run's, finished or not: the quick check tells which, whatever
 * the options, and cp's guards (-n, -u, -i, -b) have nothing to keep. */
bool fcp_plan_taken_up(const struct fcp_dir *d);

/* The action for entry e (e->st known; e->src_fd open, or -1: a regular
 * file is then opened by name only if --checksum must read it). Notes
 * in e->dst_mode what it found at the destination. */
enum fcp_action fcp_plan_entry(struct fcp_entry *e);
/* The same, and *dst the statx of what is in DEST, for a file up to date
 * (SKIP, META) at least. */
enum fcp_action fcp_plan_look(struct fcp_entry *e, struct statx *dst);

/* Does the plan of an entry ask (-i) or change something (--backup), or
 * is a file there rewritten in place (--in-place, file.c)?
 * Then it must be asked once per entry: on the synchronous path, where
 * nothing asks it again. */
bool fcp_plan_once(const struct fcp_job *job);

/* was[k] of a file a batch leaves to copy (fcp_settle_batch): 0 where
 * DEST had nothing (or it was not looked at), else FCP_PLAN_WAS | its
 * FCP_CHG_* (observe.h): -v's "update". */
#define FCP_PLAN_WAS 0x100

/* Is a directory that is there compared with its source before it gets
 * its metadata (said at its finish, by fcp_settle_dir_meta)? */
bool fcp_plan_dir_compared(const struct fcp_job *job);

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

struct fcp_hash;

/* The XXH3-128 of e's source: the manifest's while it is unchanged, else
 * read whole (and recorded). 0, or -errno (reported under --check). */
int fcp_plan_source_hash(struct fcp_entry *e, struct fcp_hash *h);

/* What --itemize-changes says differed (FCP_CHG_*) between a source's
 * st s and what DEST holds, d, its data aside. */
unsigned fcp_plan_changes(const struct fcp_options *o, const struct statx *s,
			  const struct statx *d);

/* What the dry-run line of each action says of an entry. */
const char *fcp_plan_verb(enum fcp_action a);

#endif
