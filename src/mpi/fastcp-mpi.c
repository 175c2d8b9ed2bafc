/*
 * fastcp-mpi - fastcp's copy made by several processes, started by an MPI
 * launcher: mpirun -np N fastcp-mpi [fastcp's options] SOURCE... DEST.
 * main() parses fastcp's command line on every rank, refuses what cannot
 * be shared between ranks, runs the one job, and prints one summary on
 * rank 0; the exit status is the worst of all ranks. All the work is in
 * libfastcp (lib/dist/dist.c); this program adds the transport (transport.c).
 */
#include "transport.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * The ranks exchange only small control messages (work units, counts):
 * the data goes through the filesystems. Open MPI's default choice of
 * messaging layer first probes for Omni-Path and InfiniPath hardware
 * (its cm layer's PSM2 and PSM components), which took 0.2 s of every
 * run here, where a copy may take one second. Its ob1 layer (shared
 * memory on a node, TCP or InfiniBand across nodes) carries such
 * messages as well; a choice made with mpirun --mca pml (which reaches
 * the ranks as OMPI_MCA_pml) or the environment stands. Set before
 * MPI_Init, which reads it; other MPI libraries do not look at it.
 */
static void choose_messaging(void)
{
	setenv("OMPI_MCA_pml", "ob1", 0);
}

/* The ranks run one command line: only rank 0 says what is wrong with it
 * (and prints --help), or N ranks would say it N times. */
static int parse(int rank, int argc, char **argv, struct fcp_options *o, char ***srcs,
		 int *nsrc, char **dst)
{
	int null = rank ? open("/dev/null", O_WRONLY) : -1, out = -1, err = -1, r;

	if (null >= 0) {
		fflush(stdout);
		out = dup(STDOUT_FILENO);
		err = dup(STDERR_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	r = fcp_cli_parse(argc, argv, o, srcs, nsrc, dst);
	if (out >= 0) {
		fflush(stdout);
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		close(out);
		close(err);
	}
	return r;
}

/* Options whose output is one file or one database: every rank would
 * write it at once. --move removes a source only where its own process
 * made the copy or compared it (lib/dest/move.c), and rank 0 removes them all.
 * -K: another rank opens a directory of the copy beneath the root without
 * following a symlink (lib/dist/dist.c), so not one the copy followed. */
static const char *unshared(const struct fcp_options *o)
{
	return o->manifest ? "--manifest" : o->events ? "--events" : o->log ? "--log" :
	       o->check ? "--check" : o->move ? "--move" :
	       o->keep_dirlinks ? "--keep-directory-symlink (-K)" : NULL;
}

/* Returns the exit status r, 1 instead of 0 when --json's summary could
 * not be written. */
static int summary(const struct fcp_options *o, struct fcp_stats *s, int r)
{
	if (o->json) {
		signal(SIGPIPE, SIG_IGN); /* a reader that quit is a failed write */
		if (fcp_stats_print_json(s, stdout) < 0) {
			fprintf(stderr, "fastcp-mpi: cannot write the --json summary to standard "
				"output\n");
			r = r == FCP_EXIT_OK ? FCP_EXIT_PARTIAL : r;
		}
	} else if (!o->quiet && (o->verbose || o->stats || isatty(STDERR_FILENO)) &&
		   (!o->dry_run || o->stats)) { /* as fastcp's: a dry run's is its plan */
		if (!isatty(STDERR_FILENO))
			s->errors[0][0] = 0;
		fcp_stats_print(s, stderr);
		if ((o->verbose || o->stats) && !o->dry_run && !o->check)
			fcp_stats_print_table(s, stderr);
	}
	if (o->dry_run && !o->check && !o->quiet)
		fcp_stats_print_plan(s, o->json ? stderr : stdout);
	fcp_stats_print_problems(s, stderr);
	return r;
}

int main(int argc, char **argv)
{
	struct fcp_options o;
	struct fcp_stats s;
	struct fcp_dist dist = { 0 };
	char **srcs, *dst;
	const char *bad;
	int nsrc, r, provided, rank;

	choose_messaging();
	MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (provided < MPI_THREAD_SERIALIZED) {
		if (rank == 0)
			fprintf(stderr, "fastcp-mpi: this MPI library cannot be called from a "
				"thread of the program's (MPI_THREAD_SERIALIZED)\n");
		MPI_Finalize();
		return FCP_EXIT_USAGE;
	}
	fcp_options_init(&o);
	r = parse(rank, argc, argv, &o, &srcs, &nsrc, &dst);
	if (!r && fcp_mpi_dist_init(&dist, MPI_COMM_WORLD) < 0)
		MPI_Abort(MPI_COMM_WORLD, FCP_EXIT_PARTIAL);
	if (!r && dist.size > 1 && (bad = unshared(&o))) {
		if (rank == 0)
			fprintf(stderr, "fastcp-mpi: %s is not available across ranks; "
				"run fastcp on one node for it\n", bad);
		r = FCP_EXIT_USAGE;
	}
	if (r) {
		fcp_options_release(&o);
		fcp_mpi_dist_release(&dist);
		MPI_Finalize();
		return r < 0 ? FCP_EXIT_OK : r;
	}
	/* A status line per rank would overwrite the others'. */
	if (dist.size > 1)
		o.progress = FCP_PROGRESS_NONE;
	o.cpu_share = fcp_mpi_cpu_share(MPI_COMM_WORLD);
	o.dist = &dist;
	r = fcp_job_run(&o, srcs, nsrc, dst, &s);
	fcp_options_release(&o);
	MPI_Allreduce(MPI_IN_PLACE, &r, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	fcp_mpi_stats_reduce(&s, MPI_COMM_WORLD);
	if (rank == 0)
		r = summary(&o, &s, r);
	fcp_mpi_dist_release(&dist);
	MPI_Finalize();
	if (s.signal) { /* die of it, as the caller of an interrupted copy expects */
		signal(s.signal, SIG_DFL);
		raise(s.signal);
	}
	return r;
}
