/*
 * stats.c - one summary for all ranks: counts summed, times and peaks
 * the largest, the first errors and the I/O path rank 0's.
 */
#include "transport.h"

#include <stddef.h>

#define COUNT(f) offsetof(struct fcp_stats, f)
static const size_t counts[] = {
	COUNT(files), COUNT(dirs), COUNT(symlinks), COUNT(specials), COUNT(hardlinks),
	COUNT(bytes), COUNT(cloned_files), COUNT(failed), COUNT(excluded), COUNT(not_copied),
	COUNT(skipped), COUNT(differences), COUNT(hashed_trusted), COUNT(leftovers),
	COUNT(unchanged), COUNT(updated), COUNT(deleted), COUNT(moved), COUNT(not_replaced),
	COUNT(verified_files), COUNT(verified_bytes), COUNT(verified_cloned), COUNT(verified_memory), COUNT(dedup_files),
	COUNT(dedup_bytes), COUNT(dedup_uncloned), COUNT(left_hidden), COUNT(links_internal),
	COUNT(links_external), COUNT(links_relative), COUNT(links_absolute),
	COUNT(links_rewritten), COUNT(bytes_cloned), COUNT(bytes_holes), COUNT(io_ops),
	COUNT(unchanged_dirs), COUNT(updated_dirs), COUNT(deleted_dirs), COUNT(replaced),
	COUNT(bytes_skipped), COUNT(plan_copied), COUNT(plan_copied_bytes), COUNT(plan_replaced),
	COUNT(plan_replaced_bytes), COUNT(in_place_shared), COUNT(uncompared), COUNT(backed_up),
	COUNT(plan_kind[0]), COUNT(plan_kind[1]), COUNT(plan_kind[2]), COUNT(plan_kind[3]),
	COUNT(plan_kind[4]), COUNT(plan_moved),
};
/* Every counter of fcp_stats is in counts[] (a new one is summed only once
 * it is named there): the kinds of a dry run's total were rank 0's. */
_Static_assert(sizeof(((struct fcp_stats *)0)->plan_kind) == 5 * sizeof(uint64_t),
	       "counts[] names plan_kind[0..4]");
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

void fcp_mpi_stats_reduce(struct fcp_stats *s, MPI_Comm comm)
{
	uint64_t v[NCOUNTS + FCP_WARN_KINDS + 1];
	double t[3] = { s->seconds, s->cpu_user, s->cpu_system }, peak[2] = { s->seconds, 0 };
	long rss = s->max_rss_kb;
	int n = 0, sig = s->signal;

	for (size_t i = 0; i < NCOUNTS; i++)
		v[n++] = *(uint64_t *)((char *)s + counts[i]);
	for (int k = 0; k < FCP_WARN_KINDS; k++)
		v[n++] = s->warnings[k];
	v[n++] = s->threads;
	MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_SUM, comm);
	MPI_Allreduce(MPI_IN_PLACE, t, 3, MPI_DOUBLE, MPI_SUM, comm);
	MPI_Allreduce(MPI_IN_PLACE, peak, 1, MPI_DOUBLE, MPI_MAX, comm);
	MPI_Allreduce(MPI_IN_PLACE, &rss, 1, MPI_LONG, MPI_MAX, comm);
	MPI_Allreduce(MPI_IN_PLACE, &sig, 1, MPI_INT, MPI_MAX, comm);
	n = 0;
	for (size_t i = 0; i < NCOUNTS; i++)
		*(uint64_t *)((char *)s + counts[i]) = v[n++];
	for (int k = 0; k < FCP_WARN_KINDS; k++)
		s->warnings[k] = v[n++];
	s->threads = (int)v[n++];
	s->seconds = peak[0];
	s->cpu_user = t[1];
	s->cpu_system = t[2];
	s->max_rss_kb = rss;
	/* Only rank 0 prints: a signal one rank got is the job's. */
	s->signal = sig;
}
