/*
 * files.c - `fastcp-bench files PATH`: the CDDVDSpd-style file test.
 *
 * One large file and 520 small ones per size pair (1 MiB / 2 KiB, doubling
 * to --max-large, small = large / 512): write, read and delete, each timed
 * as a user sees it. Writes and deletes end with syncfs() inside the
 * timing, so a cache cannot flatter them; before reading, the files'
 * pages are dropped (POSIX_FADV_DONTNEED) outside the timing.
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "run.h"
#include "svg.h"
#include "base/sys.h"
#include "timing.h"

#define MAX_PAIRS 11 /* 1 MiB .. 1 GiB */

struct pair {
	uint64_t large, small;
	double lw, lr;           /* seconds: large write, large read */
	double sw, sr, del;      /* seconds: 520 small writes, reads; delete all */
};

struct files {
	const char *path;
	char *workdir;
	int wfd;
	uint64_t max_large;
	int nsmall;
	const char *json_path, *svg_path;
	char *buf;               /* 1 MiB of content */
	int npairs;
	struct pair pairs[MAX_PAIRS];
};

static int write_one(struct files *fs, const char *name, uint64_t size)
{
	int fd = fcp_sys_openat(fs->wfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ret = 0;

	if (fd < 0)
		return fd;
	for (uint64_t left = size; left > 0 && ret >= 0;) {
		uint64_t n = left < BENCH_MiB ? left : BENCH_MiB;

		ret = (int)fcp_sys_write_full(fd, fs->buf, n);
		left -= n;
	}
	fcp_sys_close(fd);
	return ret < 0 ? ret : 0;
}

/* Drop the clean pages of a file so that the next read comes from disk. */
static int uncache(struct files *fs, const char *name)
{
	int fd = fcp_sys_openat(fs->wfd, name, O_RDONLY, 0);

	if (fd < 0)
		return fd;
	fcp_sys_posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return fcp_sys_close(fd);
}

static int read_one(struct files *fs, const char *name)
{
	int fd = fcp_sys_openat(fs->wfd, name, O_RDONLY, 0);
	ssize_t r;

	if (fd < 0)
		return fd;
	while ((r = fcp_sys_read_full(fd, fs->buf, BENCH_MiB)) > 0)
		;
	fcp_sys_close(fd);
	return r < 0 ? (int)r : 0;
}

static void small_name(char *buf, size_t len, int i)
{
	snprintf(buf, len, "small%03d.dat", i);
}

/* op: 'w' write, 'r' read, 'u' uncache, 'd' delete; over the small files. */
static int each_small(struct files *fs, int op, uint64_t size)
{
	char name[32];
	int ret = 0;

	for (int i = 0; i < fs->nsmall && ret >= 0; i++) {
		small_name(name, sizeof(name), i);
		ret = op == 'w' ? write_one(fs, name, size) :
		      op == 'r' ? read_one(fs, name) :
		      op == 'u' ? uncache(fs, name) : fcp_sys_unlinkat(fs->wfd, name, 0);
	}
	return ret;
}

static int one_pair(struct files *fs, struct pair *p)
{
	double t0 = bench_now();
	int ret = write_one(fs, "large.dat", p->large);

	if (ret >= 0)
		ret = bench_syncfs(fs->wfd);
	p->lw = bench_now() - t0;
	if (ret >= 0)
		ret = uncache(fs, "large.dat");
	t0 = bench_now();
	if (ret >= 0)
		ret = read_one(fs, "large.dat");
	p->lr = bench_now() - t0;
	t0 = bench_now();
	if (ret >= 0)
		ret = each_small(fs, 'w', p->small);
	if (ret >= 0)
		ret = bench_syncfs(fs->wfd);
	p->sw = bench_now() - t0;
	if (ret >= 0)
		ret = each_small(fs, 'u', 0);
	t0 = bench_now();
	if (ret >= 0)
		ret = each_small(fs, 'r', 0);
	p->sr = bench_now() - t0;
	t0 = bench_now();
	if (ret >= 0)
		ret = each_small(fs, 'd', 0);
	if (ret >= 0)
		ret = fcp_sys_unlinkat(fs->wfd, "large.dat", 0);
	if (ret >= 0)
		ret = bench_syncfs(fs->wfd);
	p->del = bench_now() - t0;
	return ret;
}

static double mbps(uint64_t bytes, double s)
{
	return s > 0 ? bytes / BENCH_MB / s : 0;
}

static void files_report(const struct files *fs)
{
	printf("## fastcp-bench files\n\nPath: `%s` (%s); per size pair one large file and "
	       "%d small files; writes and deletes include syncfs, reads start uncached.\n\n",
	       fs->path, bench_fs_name(fs->path), fs->nsmall);
	printf("| Large MiB | Write MB/s | Read MB/s | Small KiB | Write MB/s | Read MB/s "
	       "| Write ms/file | Read ms/file | Delete s |\n"
	       "|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < fs->npairs; i++) {
		const struct pair *p = &fs->pairs[i];
		uint64_t sb = p->small * fs->nsmall;

		printf("| %llu | %.1f | %.1f | %llu | %.2f | %.2f | %.3f | %.3f | %.3f |\n",
		       (unsigned long long)(p->large / BENCH_MiB), mbps(p->large, p->lw),
		       mbps(p->large, p->lr), (unsigned long long)(p->small / BENCH_KiB),
		       mbps(sb, p->sw), mbps(sb, p->sr), p->sw / fs->nsmall * 1e3,
		       p->sr / fs->nsmall * 1e3, p->del);
	}
	printf("\nMB = 1,000,000 bytes. Delete is %d small files + the large one, with syncfs.\n",
	       fs->nsmall);
	fflush(stdout);
}

static int files_json(const struct files *fs)
{
	struct json j;
	int ret = json_open(&j, fs->json_path);

	if (ret < 0)
		return bench_syserr(ret, "write", fs->json_path);
	json_str(&j, "mode", "files");
	json_str(&j, "path", fs->path);
	json_str(&j, "filesystem", bench_fs_name(fs->path));
	json_int(&j, "small_files", fs->nsmall);
	json_arr(&j, "pairs");
	for (int i = 0; i < fs->npairs; i++) {
		const struct pair *p = &fs->pairs[i];
		uint64_t sb = p->small * fs->nsmall;

		json_obj(&j, NULL);
		json_int(&j, "large_bytes", (int64_t)p->large);
		json_int(&j, "small_bytes", (int64_t)p->small);
		json_num(&j, "large_write_s", p->lw);
		json_num(&j, "large_read_s", p->lr);
		json_num(&j, "large_write_mb_per_s", mbps(p->large, p->lw));
		json_num(&j, "large_read_mb_per_s", mbps(p->large, p->lr));
		json_num(&j, "small_write_s", p->sw);
		json_num(&j, "small_read_s", p->sr);
		json_num(&j, "small_write_mb_per_s", mbps(sb, p->sw));
		json_num(&j, "small_read_mb_per_s", mbps(sb, p->sr));
		json_num(&j, "small_write_ms_per_file", p->sw / fs->nsmall * 1e3);
		json_num(&j, "small_read_ms_per_file", p->sr / fs->nsmall * 1e3);
		json_num(&j, "delete_s", p->del);
		json_end_obj(&j);
	}
	json_end_arr(&j);
	ret = json_close(&j);
	return ret < 0 ? bench_syserr(ret, "write", fs->json_path) : 0;
}

static int files_svg(const struct files *fs)
{
	double v[6][MAX_PAIRS];
	char ticks[MAX_PAIRS][48];
	const char *tp[MAX_PAIRS];
	struct svg_series s1[] = { { "large write", v[0] }, { "large read", v[1] },
				   { "small write", v[2] }, { "small read", v[3] } };
	struct svg_series s2[] = { { "small write", v[4] }, { "small read", v[5] } };
	struct svg_line_chart charts[2] = {
		{ "Large and small files", "large / small file size (log2 scale)", "MB/s",
		  fs->npairs, tp, 4, s1 },
		{ "Time per small file", "large / small file size (log2 scale)", "ms per file",
		  fs->npairs, tp, 2, s2 },
	};
	int ret;

	for (int i = 0; i < fs->npairs; i++) {
		const struct pair *p = &fs->pairs[i];
		uint64_t sb = p->small * fs->nsmall;

		v[0][i] = mbps(p->large, p->lw);
		v[1][i] = mbps(p->large, p->lr);
		v[2][i] = mbps(sb, p->sw);
		v[3][i] = mbps(sb, p->sr);
		v[4][i] = p->sw / fs->nsmall * 1e3;
		v[5][i] = p->sr / fs->nsmall * 1e3;
		snprintf(ticks[i], sizeof(ticks[i]), "%lluM/%lluK",
			 (unsigned long long)(p->large / BENCH_MiB),
			 (unsigned long long)(p->small / BENCH_KiB));
		tp[i] = ticks[i];
	}
	ret = svg_write_lines(fs->svg_path, charts, 2);
	return ret < 0 ? bench_syserr(ret, "write", fs->svg_path) : 0;
}

static int parse_files(int argc, char **argv, struct files *fs)
{
	static const struct option opts[] = {
		{ "max-large", required_argument, NULL, 'm' },
		{ "small-files", required_argument, NULL, 'n' },
		{ "json", required_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int o;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'm':
			if (bench_parse_size(optarg, &fs->max_large) < 0 || fs->max_large < BENCH_MiB ||
			    fs->max_large > BENCH_GiB)
				return bench_err("invalid --max-large '%s' (1M to 1G)", optarg), -EINVAL;
			break;
		case 'n':
			if (bench_parse_uint(optarg, &v) < 0 || v < 1 || v > 100000)
				return bench_err("invalid --small-files '%s'", optarg), -EINVAL;
			fs->nsmall = (int)v;
			break;
		case 'j': fs->json_path = optarg; break;
		case 'g': fs->svg_path = optarg; break;
		case 'h':
			printf("usage: fastcp-bench files [--max-large SIZE] [--small-files N] "
			       "[--json FILE] [--svg FILE] PATH\n"
			       "  size pairs 1M/2K, 2M/4K, ... up to --max-large (default 64M); "
			       "520 small files\n");
			return 1;
		default: return -EINVAL;
		}
	}
	if (argc - optind != 1)
		return bench_err(argc == optind ? "missing PATH" : "too many arguments"), -EINVAL;
	fs->path = argv[optind];
	return 0;
}

int bench_files_main(int argc, char **argv)
{
	struct files fs = { .max_large = 64 * BENCH_MiB, .nsmall = 520, .wfd = -1 };
	int ret = parse_files(argc, argv, &fs);

	if (ret)
		return ret > 0 ? -1 : FCP_EXIT_USAGE;
	if (bench_make_workdir(fs.path, "fastcp-bench-files", &fs.workdir, &fs.wfd) < 0) {
		bench_remove_workdir(fs.workdir, fs.wfd);
		return FCP_EXIT_USAGE;
	}
	fs.buf = bench_aligned_buf(BENCH_MiB, 43);
	bench_signals_install();
	for (uint64_t l = BENCH_MiB; l <= fs.max_large && ret >= 0 && !bench_interrupted; l *= 2) {
		struct pair *p = &fs.pairs[fs.npairs++];

		p->large = l;
		p->small = l / 512;
		fprintf(stderr, "files %llu MiB / %llu KiB...\n", (unsigned long long)(l / BENCH_MiB),
			(unsigned long long)(p->small / BENCH_KiB));
		ret = one_pair(&fs, p);
		if (ret < 0)
			bench_syserr(ret, "test files in", fs.workdir);
	}
	bench_remove_workdir(fs.workdir, fs.wfd);
	bench_signals_reraise();
	free(fs.buf);
	if (ret < 0)
		return FCP_EXIT_PARTIAL;
	files_report(&fs);
	if (fs.json_path && files_json(&fs))
		ret = -EIO;
	if (fs.svg_path && files_svg(&fs))
		ret = -EIO;
	return ret < 0 ? FCP_EXIT_PARTIAL : FCP_EXIT_OK;
}
