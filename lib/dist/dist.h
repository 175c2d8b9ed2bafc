/*
 * dist.h - the library's side of one copy made by several processes
 * (ranks); the program's side, its transport, is in fastcp.h.
 *
 * Every call below is a no-op (false, 0) for a job of one process, so the
 * modules call them without asking first. The copy of the tree, a floor
 * below, reaches dist only through the hooks fcp_dist_init installs on
 * the job (hooks.h).
 */
#ifndef FCP_DIST_H
#define FCP_DIST_H

#include "core/job.h"
#include "dest/meta.h"

/* Set up job->dist where o->dist has more than one rank: collective (rank
 * 0's temporary-name prefix goes to every rank), and job->hooks. 0 or
 * -ENOMEM. */
int fcp_dist_init(struct fcp_job *job);
void fcp_dist_free(struct fcp_job *job);

/* A GIVEN item (sched.c's table): another rank reads its directory or
 * copies its files, so only its count of its directory goes here. */
void fcp_dist_given(struct fcp_worker *w, struct fcp_item *it);

/* Does this process place the copies and make their roots (rank 0, or a
 * job of one process)? */
bool fcp_dist_leader(const struct fcp_job *job);

/* Collective: rank 0's v on every rank (one process: v). */
int fcp_dist_share(struct fcp_job *job, int v);

/* Collective: run one round, its operands queued on rank 0: the tree,
 * balanced between the ranks; the inodes with several names, each on its
 * owner; the directories' metadata, deepest first; rank 0's root copies
 * named. nroots: the operands. Returns the workers this rank used. */
int fcp_dist_run(struct fcp_job *job, int nroots);

#endif
