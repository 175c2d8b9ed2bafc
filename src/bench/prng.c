/*
 * prng.c - xoshiro256** and splitmix64; see prng.h for why these two.
 */
#include "prng.h"

#include <endian.h>
#include <math.h>
#include <string.h>

uint64_t bench_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t bench_seed_mix(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = a;
	uint64_t h = bench_splitmix64(&x);

	x = h ^ b;
	h = bench_splitmix64(&x);
	x = h ^ c;
	return bench_splitmix64(&x);
}

void bench_rng_seed(struct bench_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = bench_splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t bench_rng_next(struct bench_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t bench_rng_below(struct bench_rng *r, uint64_t n)
{
	/* The modulo bias is below 2^-40 for every n used here. */
	return bench_rng_next(r) % n;
}

double bench_rng_unit(struct bench_rng *r)
{
	return (double)(bench_rng_next(r) >> 11) * 0x1.0p-53;
}

double bench_rng_normal(struct bench_rng *r)
{
	double u1 = bench_rng_unit(r), u2 = bench_rng_unit(r);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Little-endian bytes, so a seed gives the same files on any machine. */
void bench_rng_fill(struct bench_rng *r, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len >= 8) {
		uint64_t v = htole64(bench_rng_next(r));

		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = htole64(bench_rng_next(r));

		memcpy(p, &v, len);
	}
}
