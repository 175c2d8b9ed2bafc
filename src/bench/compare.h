/*
 * compare.h - state of one `fastcp-bench compare` session, shared by the
 * protocol (compare.c) and the report writers (compare_report.c).
 */
#ifndef FCP_BENCH_COMPARE_H
#define FCP_BENCH_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "latfs.h"
#include "wlimit.h"

struct cmp_run {
	bool ok;           /* the command succeeded and the copy verified */
	double wall;       /* seconds, command + sync of the destination fs */
	double sync;       /* the part of wall spent in that sync */
	double user, sys;  /* CPU seconds of the command's process tree */
	long maxrss_kib;
	double setup;      /* seconds of --prepare and --mutate, not timed */
	char *error;       /* why it FAILED (malloc'd), NULL when ok */
	uint64_t trips;    /* --source-latency: round trips to the source */
	double inflight;   /* and how many were in flight on average */
};

struct cmp_cmd {
	const char *tmpl;  /* as given, with {src} and {dst} */
	struct cmp_run *runs;
	int nruns;         /* runs done so far */
};

struct cmp {
	const char *src;   /* absolute */
	const char *workdir_parent;
	char *workdir;     /* fastcp-bench.XXXXXX, created by us */
	int rounds;
	int warmup;        /* untimed runs before the rounds */
	uint64_t seed;     /* draws the order of the runs */
	bool cold;
	bool cache_dropped; /* false when --cold could not drop the cache */
	char warning[256];  /* printed in the report itself */
	const char *prepare; /* --prepare and --mutate templates, or NULL */
	const char *mutate;
	const char *fresh_fs;
	double latency_ms;  /* --source-latency, or < 0 */
	struct latfs lat;   /* its server */
	char *cmd_src;      /* {src} of the commands: src, or lat's mount */
	struct wlimit wl;   /* --write-limit (wl.rate 0: none) */
	uint64_t fs_size;
	const char *json_path, *svg_path;
	struct bench_tree_stats st;
	int ncmd;
	struct cmp_cmd *cmds;
};

/* Median/min/max wall and medians of CPU over a command's good runs. */
struct cmp_summary {
	int ok, failed;
	double median, min, max, sync, user, sys;
	double trips, inflight; /* medians, --source-latency */
	long maxrss_kib;
};
void cmp_summarise(const struct cmp_cmd *c, struct cmp_summary *s);

void cmp_print_report(const struct cmp *c);
int cmp_write_json(const struct cmp *c);
int cmp_write_svg(const struct cmp *c);

#endif
