/*
 * transport.h - fastcp's transport between ranks over MPI (fastcp.h's
 * struct fcp_dist_ops): collectives for the phases of a round, and a
 * thread per rank that moves work while the copy runs.
 */
#ifndef FCP_MPI_TRANSPORT_H
#define FCP_MPI_TRANSPORT_H

#include "fastcp.h"

#include <mpi.h>

/* Fill *d for this process of comm (MPI initialised with at least
 * MPI_THREAD_SERIALIZED); 0, or -ENOMEM. */
int fcp_mpi_dist_init(struct fcp_dist *d, MPI_Comm comm);
void fcp_mpi_dist_release(struct fcp_dist *d);

/* Collective: how many ranks share this one's CPUs, on average (its node's
 * ranks, unless mpirun bound them to CPUs of their own): fcp_options'
 * cpu_share. */
int fcp_mpi_cpu_share(MPI_Comm comm);

/* The stats of every rank summed on each (times and peaks: the largest). */
void fcp_mpi_stats_reduce(struct fcp_stats *s, MPI_Comm comm);

#endif
