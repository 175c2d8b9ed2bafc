/*
 * settle.h - carrying out what the plan decides that is not a copy: an
 * entry found up to date is counted (and recorded in the manifest), one
 * whose metadata differs gets it in place, what is in the way is backed
 * up (--backup) or removed (--delete), a later name of a file is linked
 * to its copy, and a dry run says each of these instead.
 *
 * The decision is the plan's (plan.h, decide.h), made without writing;
 * this file acts on it, on the tree floor, with the tree's tools
 * (delete.c, links.c, dedup.c).
 */
#ifndef FCP_SETTLE_H
#define FCP_SETTLE_H

#include "policy/plan.h"

/* Ask the plan for e and carry out what is not a copy: count an
 * unchanged entry, update metadata in place, or (--dry-run) say what
 * would be done. Returns true when the entry needs nothing more. */
bool fcp_settle_entry(struct fcp_entry *e);

/* A batch of regular files of d, by name (batch.c), before anything is
 * opened: each one the plan settles without a copy (unchanged, metadata
 * updated, or said by --dry-run) is dropped from names[]; returns how
 * many are left to copy, in order. Saves the open of every unchanged
 * file. was[k] of each one left: 0 where DEST had nothing (or it was not
 * looked at), else FCP_PLAN_WAS | its FCP_CHG_* (observe.h): -v's
 * "update". */
int fcp_settle_batch(struct fcp_worker *w, struct fcp_dir *d, const char **names, int n,
		     unsigned short *was);

/* Make room for e where the copy would need it (--delete): a directory
 * where e is none, or a non-directory where e is a directory, is removed
 * as rsync --delete does (--dry-run: said, delete lines). False when that
 * failed (reported). */
bool fcp_settle_make_room(struct fcp_entry *e);

/* e, kept by -n, is of another kind than what is in its way (a directory
 * against a non-directory): nothing there is replaced, also with
 * --delete, and the item fails, named (a dry run says "keep"). False
 * where the kinds agree: an ordinary keep. */
bool fcp_settle_type_kept(struct fcp_entry *e);

/* Should the finished directory d get its source's metadata (at dst)? Yes
 * for a new one; for one that existed, only where it differs (--dry-run
 * says so instead), and then its xattrs the source lacks go. */
bool fcp_settle_dir_meta(struct fcp_job *job, struct fcp_dir *d, struct fcp_at *dst);

#endif
