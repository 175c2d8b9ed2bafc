/*
 * prng.h - a small, fast, seeded generator for workload content.
 *
 * xoshiro256** seeded through splitmix64 (Blackman & Vigna). It is not
 * cryptographic; it is fast (several GB/s), its output does not compress,
 * and the same seed gives the same bytes on every machine, which is what
 * deterministic workloads need.
 */
#ifndef FCP_BENCH_PRNG_H
#define FCP_BENCH_PRNG_H

#include <stddef.h>
#include <stdint.h>

struct bench_rng {
	uint64_t s[4];
};

/* splitmix64: also used to derive independent per-file seeds. */
uint64_t bench_splitmix64(uint64_t *x);
/* Mix several values into one seed (e.g. workload seed, kind, file index). */
uint64_t bench_seed_mix(uint64_t a, uint64_t b, uint64_t c);

void bench_rng_seed(struct bench_rng *r, uint64_t seed);
uint64_t bench_rng_next(struct bench_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t bench_rng_below(struct bench_rng *r, uint64_t n);
/* Uniform in [0, 1). */
double bench_rng_unit(struct bench_rng *r);
/* Standard normal (Box-Muller). */
double bench_rng_normal(struct bench_rng *r);
void bench_rng_fill(struct bench_rng *r, void *buf, size_t len);

#endif
