/*
 * timing.c - monotonic clock, CPU accounting and the repeat loop.
 */
#include "timing.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double tv_sec(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

void bench_cpu_self(struct bench_cpu *c)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	c->user = tv_sec(ru.ru_utime);
	c->sys = tv_sec(ru.ru_stime);
}

int bench_ncpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

double bench_cpu_util(const struct bench_cpu *a, const struct bench_cpu *b, double wall)
{
	double used = (b->user - a->user) + (b->sys - a->sys);

	if (wall <= 0)
		return 0;
	return used / (wall * bench_ncpu()) * 100.0;
}

double bench_mbps(const struct bench_sample *s)
{
	return s->wall > 0 ? s->bytes / BENCH_MB / s->wall : 0;
}

int bench_repeat(bench_fn fn, void *ctx, double min_seconds, struct bench_sample *out)
{
	struct bench_cpu c0, c1;
	double t0, t;

	memset(out, 0, sizeof(*out));
	bench_cpu_self(&c0);
	t0 = bench_now();
	do {
		int64_t r = fn(ctx);

		if (r < 0)
			return (int)r;
		out->bytes += r;
		out->ops++;
		t = bench_now();
	} while (t - t0 < min_seconds);
	bench_cpu_self(&c1);
	out->wall = t - t0;
	out->cpu_pct = bench_cpu_util(&c0, &c1, out->wall);
	return 0;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(const double *v, int n)
{
	double *c, m;

	if (n <= 0)
		return 0;
	c = bench_xmalloc(n * sizeof(*c));
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), dcmp);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}
