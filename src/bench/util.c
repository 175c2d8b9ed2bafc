/*
 * util.c - messages, number parsing and small allocation helpers.
 */
#include "bench.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prng.h"

void bench_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("fastcp-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int bench_syserr(int neg, const char *what, const char *path)
{
	bench_err("cannot %s '%s': %s", what, path, strerror(-neg));
	return 1;
}

int bench_parse_uint(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int bench_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	v = strtod(s, &end);
	if (*end || !(v > 0) || v > 1e9)
		return -EINVAL;
	*out = v;
	return 0;
}

int bench_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	v = strtoull(s, &end, 10);
	switch (tolower((unsigned char)*end)) {
	case 'k': mul = BENCH_KiB; end++; break;
	case 'm': mul = BENCH_MiB; end++; break;
	case 'g': mul = BENCH_GiB; end++; break;
	case 't': mul = BENCH_GiB * 1024; end++; break;
	}
	/* Accept "64M", "64MiB" and "64MB" alike: all binary. */
	if (mul > 1 && (!strcasecmp(end, "ib") || !strcasecmp(end, "b")))
		end += strlen(end);
	if (*end || v > UINT64_MAX / mul)
		return -EINVAL;
	*out = v * mul;
	return 0;
}

void bench_size_label(uint64_t b, char *buf, size_t len)
{
	if (b >= BENCH_GiB && b % BENCH_GiB == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(b / BENCH_GiB));
	else if (b >= BENCH_MiB && b % BENCH_MiB == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(b / BENCH_MiB));
	else if (b >= BENCH_KiB && b % BENCH_KiB == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(b / BENCH_KiB));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
}

void *bench_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		bench_err("out of memory");
		exit(FCP_EXIT_PARTIAL);
	}
	return p;
}

void *bench_xgrow(void *p, size_t *cap, size_t n, size_t each)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 16;
	p = realloc(p, *cap * each);
	return p ? p : bench_xmalloc(SIZE_MAX); /* reports and exits */
}

char *bench_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(bench_xmalloc(n), s, n);
}

char *bench_path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = bench_xmalloc(la + lb + 2);

	memcpy(p, a, la);
	p[la] = '/';
	memcpy(p + la + 1, b, lb + 1);
	return p;
}

bool bench_is_root(void)
{
	return geteuid() == 0;
}

void *bench_aligned_buf(size_t len, uint64_t seed)
{
	void *p = NULL;
	struct bench_rng rng;

	/* 4096 covers the logical block size of every device O_DIRECT meets. */
	if (posix_memalign(&p, 4096, len ? len : 4096)) {
		bench_err("out of memory");
		exit(FCP_EXIT_PARTIAL);
	}
	bench_rng_seed(&rng, seed);
	bench_rng_fill(&rng, p, len);
	return p;
}
