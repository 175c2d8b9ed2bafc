/*
 * gen.c - `fastcp-bench gen KIND DIR [--scale F] [--seed N]`.
 *
 * The kinds reproduce the shapes of the seed reports at scale 1 (see the
 * table below); --scale multiplies the file counts (for `large`, the file
 * size, since four files is the point of that kind).
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen.h"
#include "json.h"
#include "prng.h"
#include "base/sys.h"
#include "timing.h"

uint64_t gen_scaled(const struct gen *g, double count)
{
	double n = llround(count * g->scale);

	return n < 1 ? 1 : (uint64_t)n;
}

uint64_t gen_size(const struct gen *g, uint64_t id, double mean, double sigma,
		  uint64_t max)
{
	struct bench_rng r;
	/* mean of exp(N(mu, sigma^2)) is exp(mu + sigma^2 / 2) */
	double mu = log(mean) - sigma * sigma / 2;
	double v;

	bench_rng_seed(&r, bench_seed_mix(g->seed, id, 1));
	v = exp(mu + sigma * bench_rng_normal(&r));
	return v > max ? max : (uint64_t)v;
}

int gen_file(struct gen *g, int dfd, const char *name, uint64_t size, uint64_t id)
{
	struct bench_rng r;
	int fd = fcp_sys_openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	int ret = 0;

	if (fd < 0)
		return bench_syserr(fd, "create", name), fd;
	bench_rng_seed(&r, bench_seed_mix(g->seed, id, 2));
	for (uint64_t left = size; left > 0;) {
		size_t n = left < GEN_BUF ? left : GEN_BUF;
		ssize_t w;

		bench_rng_fill(&r, g->buf, n);
		w = fcp_sys_write_full(fd, g->buf, n);
		if (w < 0) {
			ret = (int)w;
			bench_syserr(ret, "write", name);
			break;
		}
		left -= n;
	}
	fcp_sys_close(fd);
	g->files++;
	g->bytes += size;
	return ret;
}

int gen_dir(struct gen *g, int dfd, const char *name)
{
	int ret = fcp_sys_mkdirat(dfd, name, 0755);

	if (ret < 0 && ret != -EEXIST)
		return bench_syserr(ret, "create directory", name), ret;
	if (ret == 0)
		g->dirs++;
	ret = fcp_sys_openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	if (ret < 0)
		bench_syserr(ret, "open directory", name);
	return ret;
}

int gen_open_empty_dir(const char *path)
{
	struct bench_dirent *ents;
	size_t n;
	int fd, ret = fcp_sys_mkdirat(AT_FDCWD, path, 0755);

	if (ret < 0 && ret != -EEXIST)
		return bench_syserr(ret, "create directory", path), ret;
	fd = fcp_sys_openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return bench_syserr(fd, "open directory", path), fd;
	ret = bench_dir_read(fd, &ents, &n);
	if (ret < 0) {
		fcp_sys_close(fd);
		return bench_syserr(ret, "read directory", path), ret;
	}
	bench_dir_free(ents, n);
	if (n) {
		fcp_sys_close(fd);
		bench_err("'%s' already exists and is not empty", path);
		return -EEXIST;
	}
	return fd;
}

/*
 * n files of log-normal size in subdirectories of per_dir files, grouped
 * in parents of 100 directories so that no directory grows huge. Ids start
 * at id0 so that two calls in one tree never share content.
 */
static int gen_spread(struct gen *g, int root, uint64_t n, uint64_t per_dir, uint64_t id0,
		      double mean, double sigma, uint64_t max)
{
	int group = -1, dir = -1, ret = 0;
	char name[32];

	for (uint64_t i = 0; i < n && ret >= 0; i++) {
		uint64_t d = i / per_dir;

		if (i % (per_dir * 100) == 0) {
			if (group >= 0)
				fcp_sys_close(group);
			snprintf(name, sizeof(name), "g%03llu", (unsigned long long)(d / 100));
			group = ret = gen_dir(g, root, name);
		}
		if (ret >= 0 && i % per_dir == 0) {
			if (dir >= 0)
				fcp_sys_close(dir);
			snprintf(name, sizeof(name), "d%05llu", (unsigned long long)d);
			dir = ret = gen_dir(g, group, name);
		}
		if (ret < 0)
			break;
		snprintf(name, sizeof(name), "f%07llu.dat", (unsigned long long)i);
		ret = gen_file(g, dir, name, gen_size(g, id0 + i, mean, sigma, max), id0 + i);
	}
	if (group >= 0)
		fcp_sys_close(group);
	if (dir >= 0)
		fcp_sys_close(dir);
	return ret;
}

static int gen_small(struct gen *g)
{
	return gen_spread(g, g->dfd, gen_scaled(g, 50000), 20, 0, 9000, 1.0, 4 * BENCH_MiB);
}

static int gen_folders(struct gen *g)
{
	uint64_t n = gen_scaled(g, 6000);
	int dir = -1, ret = 0;
	char name[32];

	for (uint64_t i = 0; i < n && ret >= 0; i++) {
		if (i % 30 == 0) {
			if (dir >= 0)
				fcp_sys_close(dir);
			snprintf(name, sizeof(name), "folder%04llu", (unsigned long long)(i / 30));
			dir = ret = gen_dir(g, g->dfd, name);
			if (ret < 0)
				break;
		}
		snprintf(name, sizeof(name), "file%02llu.bin", (unsigned long long)(i % 30));
		ret = gen_file(g, dir, name, 500 * BENCH_KiB, i);
	}
	if (dir >= 0)
		fcp_sys_close(dir);
	return ret;
}

static int gen_large(struct gen *g)
{
	uint64_t size = gen_scaled(g, 512.0 * BENCH_MiB);
	char name[32];
	int ret = 0;

	for (int i = 0; i < 4 && ret >= 0; i++) {
		snprintf(name, sizeof(name), "large%d.bin", i);
		ret = gen_file(g, g->dfd, name, size, i);
	}
	return ret;
}

static int gen_mixed(struct gen *g)
{
	int small = gen_dir(g, g->dfd, "small");
	int large = small < 0 ? small : gen_dir(g, g->dfd, "large");
	int ret = large;

	/* The seed's bimodal job: ~95 KB and ~4.7 MB files, ~8% / ~92% of bytes. */
	if (ret >= 0)
		ret = gen_spread(g, small, gen_scaled(g, 9578), 100, 0, 95e3, 1.0, 8 * BENCH_MiB);
	if (ret >= 0)
		ret = gen_spread(g, large, gen_scaled(g, 2300), 100, 1ULL << 40, 4.7e6, 0.5,
				 64 * BENCH_MiB);
	if (small >= 0)
		fcp_sys_close(small);
	if (large >= 0)
		fcp_sys_close(large);
	return ret;
}

/* Every third file repeats the content (same id, same size) of an earlier one. */
static int gen_dupes(struct gen *g)
{
	uint64_t n = gen_scaled(g, 3000);
	struct bench_rng r;
	int dir = -1, ret = 0;
	char name[32];

	bench_rng_seed(&r, bench_seed_mix(g->seed, 0, 3));
	for (uint64_t i = 0; i < n && ret >= 0; i++) {
		uint64_t id = i;

		if (i % 30 == 0) {
			if (dir >= 0)
				fcp_sys_close(dir);
			snprintf(name, sizeof(name), "d%04llu", (unsigned long long)(i / 30));
			dir = ret = gen_dir(g, g->dfd, name);
			if (ret < 0)
				break;
		}
		if (i % 3 == 2)
			id = bench_rng_below(&r, (i + 1) / 3) * 3; /* an original */
		snprintf(name, sizeof(name), "f%06llu.dat", (unsigned long long)i);
		ret = gen_file(g, dir, name, gen_size(g, id, 32e3, 1.0, 2 * BENCH_MiB), id);
	}
	if (dir >= 0)
		fcp_sys_close(dir);
	return ret;
}

static int gen_million(struct gen *g)
{
	uint64_t n = gen_scaled(g, 1e6);
	struct bench_rng r;
	int dir = -1, ret = 0;
	char name[32];

	bench_rng_seed(&r, bench_seed_mix(g->seed, 0, 4));
	for (uint64_t i = 0; i < n && ret >= 0; i++) {
		if (i % 1000 == 0) {
			if (dir >= 0)
				fcp_sys_close(dir);
			snprintf(name, sizeof(name), "d%04llu", (unsigned long long)(i / 1000));
			dir = ret = gen_dir(g, g->dfd, name);
			if (ret < 0)
				break;
		}
		snprintf(name, sizeof(name), "f%07llu", (unsigned long long)i);
		ret = gen_file(g, dir, name, bench_rng_below(&r, 101), i);
	}
	if (dir >= 0)
		fcp_sys_close(dir);
	return ret;
}

static const struct {
	const char *name;
	int (*fn)(struct gen *g);
	const char *what;
} kinds[] = {
	{ "small", gen_small, "50,000 files, log-normal sizes, mean ~9 KB, 20 per directory" },
	{ "folders", gen_folders, "200 directories x 30 files x 500 KiB" },
	{ "large", gen_large, "4 files x 512 MiB (--scale scales the size)" },
	{ "mixed", gen_mixed, "9,578 files ~95 KB + 2,300 files ~4.7 MB in two folders" },
	{ "links", gen_links, "every kind of symlink, hard links, sparse files, xattrs, a FIFO" },
	{ "dupes", gen_dupes, "3,000 files ~32 KB, every third a copy of an earlier one" },
	{ "million", gen_million, "1,000,000 files of 0-100 bytes, 1,000 per directory" },
};
#define NKINDS (int)(sizeof(kinds) / sizeof(kinds[0]))

static void gen_usage(FILE *f)
{
	fprintf(f, "usage: fastcp-bench gen KIND DIR [--scale F] [--seed N] [--json FILE]\n"
		"kinds (counts at scale 1):\n");
	for (int i = 0; i < NKINDS; i++)
		fprintf(f, "  %-8s %s\n", kinds[i].name, kinds[i].what);
}

static int gen_report(const struct gen *g, const char *kind, uint64_t seed,
		      double secs, const char *json_path)
{
	struct json j;
	int ret;

	printf("generated %s in '%s': %llu files, %llu directories, %llu symlinks, "
	       "%.1f MB (seed %llu, scale %g, %.2f s)\n", kind, g->dir,
	       (unsigned long long)g->files, (unsigned long long)g->dirs,
	       (unsigned long long)g->links, g->bytes / BENCH_MB,
	       (unsigned long long)seed, g->scale, secs);
	if (!json_path)
		return 0;
	ret = json_open(&j, json_path);
	if (ret < 0)
		return bench_syserr(ret, "write", json_path);
	json_str(&j, "mode", "gen");
	json_str(&j, "kind", kind);
	json_str(&j, "dir", g->dir);
	json_int(&j, "seed", (int64_t)seed);
	json_num(&j, "scale", g->scale);
	json_int(&j, "files", (int64_t)g->files);
	json_int(&j, "dirs", (int64_t)g->dirs);
	json_int(&j, "symlinks", (int64_t)g->links);
	json_int(&j, "bytes", (int64_t)g->bytes);
	json_num(&j, "seconds", secs);
	ret = json_close(&j);
	return ret < 0 ? bench_syserr(ret, "write", json_path) : 0;
}

int bench_gen_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "scale", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct gen g = { .scale = 1.0 };
	uint64_t seed = 1;
	const char *json_path = NULL;
	int c, k, ret;
	double t0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (bench_parse_double(optarg, &g.scale) < 0)
				return bench_err("invalid --scale '%s' (a positive number)", optarg),
				       FCP_EXIT_USAGE;
			break;
		case 'S':
			if (bench_parse_uint(optarg, &seed) < 0)
				return bench_err("invalid --seed '%s' (an integer)", optarg),
				       FCP_EXIT_USAGE;
			break;
		case 'j': json_path = optarg; break;
		case 'h': gen_usage(stdout); return -1;
		default: gen_usage(stderr); return FCP_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		bench_err(argc - optind < 2 ? "gen needs a KIND and a DIR" : "too many arguments");
		gen_usage(stderr);
		return FCP_EXIT_USAGE;
	}
	for (k = 0; k < NKINDS && strcmp(kinds[k].name, argv[optind]); k++)
		;
	if (k == NKINDS) {
		bench_err("unknown kind '%s'", argv[optind]);
		gen_usage(stderr);
		return FCP_EXIT_USAGE;
	}
	g.dir = argv[optind + 1];
	g.seed = bench_seed_mix(seed, k, 0x67656e);
	umask(022); /* modes are part of the promise: 0644 files, 0755 dirs */
	g.dfd = gen_open_empty_dir(g.dir);
	if (g.dfd < 0)
		return FCP_EXIT_PARTIAL;
	g.buf = bench_xmalloc(GEN_BUF);
	t0 = bench_now();
	ret = kinds[k].fn(&g);
	fcp_sys_close(g.dfd);
	free(g.buf);
	if (ret < 0)
		return FCP_EXIT_PARTIAL;
	return gen_report(&g, kinds[k].name, seed, bench_now() - t0, json_path) ?
	       FCP_EXIT_PARTIAL : FCP_EXIT_OK;
}
