/*
 * operands.h - several SOURCEs copied into one DEST: the same source named
 * twice, and different sources with the same name.
 *
 * The rules are GNU cp's, made deterministic for a parallel copy:
 *  - The same source named twice is copied once, and the later naming gets
 *    a warning: a directory under any spelling ("d d/", "d sym/", "d d/."),
 *    a non-directory when it is the same directory entry ("f ./f"; two
 *    hard links of one file in different directories are two sources).
 *  - Different sources with the same name are copied one after the other,
 *    in command-line order ("rounds"): the first of each name in round 0,
 *    the second in round 1, and so on. Two directories so merge, the later
 *    one's entries over the earlier's, and a non-directory is refused where
 *    an earlier operand has just created its name (job.c).
 * Operands with a name of their own all run at once, in round 0.
 */
#ifndef FCP_OPERANDS_H
#define FCP_OPERANDS_H

#include "core/job.h"

/* struct fcp_operand, one SOURCE as the command line names it, is the
 * model's (job.h): the copies that meet in DEST (merge.c) read it too. */

/* Find the repeats (warned about on the job's error stream) and the round
 * of each operand; ops[i].src, name, st and stat_ok are filled in. Stats
 * DEST/name of the operands that wait for an earlier one, to tell later
 * what this job created. Returns the last round, or -ENOMEM. */
int fcp_operands_plan(struct fcp_job *job, struct fcp_operand *ops, int n, const char *dst);

/* Did an earlier operand of this job create what is now at DEST/name
 * (now: its statx, or NULL when there is nothing)? */
bool fcp_operand_just_created(const struct fcp_operand *op, const struct statx *now);

/* Is a SOURCE inside a copy this job makes (roots[i]: ops[i]'s copy, its
 * path, or NULL)? That copy would replace (or, --delete, remove) the
 * source's files before they are read. Told by inode, walking up from each
 * SOURCE through "..": no spelling, symlink or bind mount hides it. A
 * directory that is its own copy is left to the "same file" refusal.
 * sflags: how a SOURCE is stat'ed (-H, -L). Reports each and returns true
 * when any is. */
bool fcp_operands_inside_copy(struct fcp_job *job, const struct fcp_operand *ops, int n,
			      char *const *roots, const char *dst, bool into, int sflags);

#endif
