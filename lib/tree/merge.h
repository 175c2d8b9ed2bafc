/*
 * merge.h - SOURCEs whose copies meet in DEST, as --delete sees them.
 *
 * Several SOURCEs of one name merge into one copy (operands.h), each in
 * its round; a SOURCE named "dir/." merges into DEST itself, where the
 * others' copies lie; with --parents, one copy may lie inside another's.
 * A name of a copy is an extra only if none of them has it, as rsync keeps
 * the union of its sources: judged by one source alone, each would delete
 * what the others copied, or are copying.
 */
#ifndef FCP_MERGE_H
#define FCP_MERGE_H

#include "core/job.h"

/* Note which operands' copies meet (ops[i].src and ops[i].name; on every
 * rank, which all tidy directories). Nothing without --delete. 0, or
 * -ENOMEM. */
int fcp_merge_init(struct fcp_job *job, const struct fcp_operand *ops, int n);
void fcp_merge_free(struct fcp_job *job);

/* The directories of the other SOURCEs that stand where a directory of
 * the copy stands, open in fd[] (-1: none there), and the names in it
 * that other copies lie at or below. */
struct fcp_others {
	size_t n, nnames;
	int *fd;
	char **names;
};

/* Open the others of d's copy (none: both counts 0). -errno after
 * reporting it when one cannot be looked at: d's extras cannot be judged
 * then. */
int fcp_others_open(struct fcp_job *job, const struct fcp_dir *d, struct fcp_others *o);
/* Has another SOURCE name there, or does another copy lie at or below it?
 * One that cannot be asked may: true. */
bool fcp_others_have(const struct fcp_others *o, const char *name);
void fcp_others_close(struct fcp_others *o);

#endif
