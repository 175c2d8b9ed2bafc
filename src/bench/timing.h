/*
 * timing.h - the measuring harness: a monotonic clock, CPU time, and a
 * loop that repeats an operation for a minimum duration.
 *
 * After zstd's programs/timefn.h and benchfn.h: one clock for every mode,
 * so that no figure is ever taken from a clock that can jump (wall time),
 * and CPU utilisation computed the same way everywhere.
 */
#ifndef FCP_BENCH_TIMING_H
#define FCP_BENCH_TIMING_H

#include <stdint.h>

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);

struct bench_cpu {
	double user, sys; /* seconds */
};
/* CPU time this process has used so far (getrusage RUSAGE_SELF). */
void bench_cpu_self(struct bench_cpu *c);
/*
 * Average utilisation per CPU, in percent, between two snapshots over a
 * wall interval: (user + sys) / (wall * CPUs) * 100, as DiskGraf reports it.
 */
double bench_cpu_util(const struct bench_cpu *before, const struct bench_cpu *after,
		      double wall);
int bench_ncpu(void);

/* One measured interval: wall time, CPU utilisation and bytes moved. */
struct bench_sample {
	double wall;
	double cpu_pct;
	uint64_t bytes;
	uint64_t ops;
};
/* MB/s (decimal) of a sample; 0 when nothing was timed. */
double bench_mbps(const struct bench_sample *s);

/*
 * Call fn(ctx) until at least min_seconds have passed (at least once).
 * fn returns bytes moved (>= 0) or -errno, which stops the loop.
 */
typedef int64_t (*bench_fn)(void *ctx);
int bench_repeat(bench_fn fn, void *ctx, double min_seconds, struct bench_sample *out);

/* Median of n values (sorts a copy); 0 for n == 0. */
double bench_median(const double *v, int n);

#endif
