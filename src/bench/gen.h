/*
 * gen.h - the workload generator's internals, shared by gen.c (the plain
 * kinds) and gen_links.c (the links kind).
 *
 * Determinism: every file's size and bytes come from a generator seeded by
 * (workload seed, file id), never from a shared stream, so the tree does not
 * depend on creation order, and two files are equal only when a kind gives
 * them the same id on purpose (dupes).
 */
#ifndef FCP_BENCH_GEN_H
#define FCP_BENCH_GEN_H

#include <stdint.h>

struct gen {
	const char *dir;  /* DIR as given */
	int dfd;          /* DIR, open */
	uint64_t seed;    /* mixed from --seed and the kind */
	double scale;
	char *buf;        /* GEN_BUF bytes of content buffer */
	uint64_t files, dirs, links, bytes;
};

#define GEN_BUF (1024 * 1024)

/* Round count * scale, at least 1. */
uint64_t gen_scaled(const struct gen *g, double count);
/* A log-normal size with the given mean, derived from (seed, id). */
uint64_t gen_size(const struct gen *g, uint64_t id, double mean, double sigma,
		  uint64_t max);
/* Create dfd/name with size bytes of content id. 0 or -errno (reported). */
int gen_file(struct gen *g, int dfd, const char *name, uint64_t size, uint64_t id);
/* Create dfd/name as a directory and return an fd on it, or -errno (reported). */
int gen_dir(struct gen *g, int dfd, const char *name);
/* Make sure path is a new or empty directory and open it. */
int gen_open_empty_dir(const char *path);

int gen_links(struct gen *g);

#endif
