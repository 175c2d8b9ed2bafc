/*
 * latfs.h - a source served with latency (compare --source-latency).
 */
#ifndef FCP_BENCH_LATFS_H
#define FCP_BENCH_LATFS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Counters of the FUSE server, in memory shared with compare. */
struct latfs_stats {
	_Atomic uint64_t trips;    /* round trips served */
	_Atomic uint64_t busy_ns;  /* the sum of their durations */
	_Atomic unsigned inflight, max_inflight;
};

struct latfs {
	pid_t pid;                 /* the server, 0 when none */
	const char *mnt;
	struct latfs_stats *stats;
};

/* A reading of the counters, for one run. */
struct latfs_sample {
	uint64_t trips, busy_ns;
	double at;
};

/* Built with libfuse3 and /dev/fuse usable. */
bool latfs_available(void);
/* Is a FUSE filesystem mounted at mnt (the server is up)? */
bool latfs_mounted(const char *mnt);

/* Serve the tree src at mnt (an empty directory) with ms milliseconds in
 * every round trip; returns once it is mounted. 0 or -errno. */
int latfs_start(struct latfs *l, const char *src, const char *mnt, double ms);

/* Unmount and reap the server; safe to call twice. */
void latfs_stop(struct latfs *l);

struct latfs_sample latfs_sample(const struct latfs *l);

/* Round trips between two samples, and the average number in flight. */
void latfs_between(const struct latfs_sample *a, const struct latfs_sample *b,
		   uint64_t *trips, double *inflight);

#endif
