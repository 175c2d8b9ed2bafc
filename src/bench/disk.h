/*
 * disk.h - state of `fastcp-bench disk`, shared by disk.c (options, the
 * sequential block-size test, the report) and disk_rand.c (buffer re-read
 * and random read latency).
 */
#ifndef FCP_BENCH_DISK_H
#define FCP_BENCH_DISK_H

#include <stdbool.h>
#include <stdint.h>

#include "timing.h"

#define DISK_MAX_BLOCKS 17 /* 1 KiB .. 64 MiB */
#define DISK_MAX_SPANS 11  /* 1 MiB .. 1 GiB */

struct disk_row {
	uint64_t block;
	bool direct;                 /* O_DIRECT worked at this block size */
	struct bench_sample *write;  /* one per file */
	struct bench_sample *read;
	struct bench_sample reread;  /* the same block, again and again */
};

struct disk_span {
	uint64_t span;
	bool measured;
	bool direct;
	struct bench_sample s;       /* ops = reads, wall = their total time */
};

struct disk {
	const char *path;
	char *workdir;               /* created by us inside path */
	int wfd;
	int files;
	uint64_t size, max_block, max_span;
	double duration;             /* seconds per re-read / latency point */
	bool cached;
	const char *json_path, *svg_path;
	void *buf;                   /* aligned, max_block bytes */
	int nrows, nspans;
	struct disk_row rows[DISK_MAX_BLOCKS];
	struct disk_span spans[DISK_MAX_SPANS];
};

/* Open for the test: O_DIRECT unless --cached or the filesystem refuses. */
int disk_open(const struct disk *d, const char *name, int flags, bool *direct);
int disk_reread(struct disk *d, struct disk_row *row, const char *name);
int disk_latency(struct disk *d);

void disk_report(const struct disk *d);
int disk_write_json(const struct disk *d);
int disk_write_svg(const struct disk *d);

#endif
