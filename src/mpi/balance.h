/*
 * balance.h - the thread that moves work between ranks while a phase of
 * the copy runs (balance.c).
 */
#ifndef FCP_MPI_BALANCE_H
#define FCP_MPI_BALANCE_H

#include "fastcp.h"

#include <mpi.h>

struct fcp_balance;

/* Collective: start this rank's thread for job; it ends the phase
 * (fcp_dist_end) once every rank is idle. Aborts every rank on failure. */
struct fcp_balance *fcp_balance_start(MPI_Comm comm, struct fcp_job *job);
/* Wait for it (after the phase ended) and free it. */
void fcp_balance_join(struct fcp_balance *b);

#endif
