/*
 * disk.c - `fastcp-bench disk PATH`: the DiskGraf-style disk benchmark.
 *
 * For each block size (1 KiB doubling to --max-block) write --files files
 * of --size, then read them back, with the page cache out of the way:
 * O_DIRECT where the filesystem takes it, otherwise fdatasync after
 * writing and POSIX_FADV_DONTNEED before reading. --cached measures the
 * page cache instead. CPU utilisation is per CPU, as in the seed report.
 */
#include "disk.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "run.h"
#include "base/sys.h"

int disk_open(const struct disk *d, const char *name, int flags, bool *direct)
{
	int fd;

	if (*direct && !d->cached) {
		fd = fcp_sys_openat(d->wfd, name, flags | O_DIRECT, 0644);
		if (fd != -EINVAL)
			return fd;
	}
	*direct = false;
	return fcp_sys_openat(d->wfd, name, flags, 0644);
}

/* Does an O_DIRECT write of one block work here (alignment, filesystem)? */
static bool direct_works(struct disk *d, uint64_t block)
{
	bool direct = true;
	int fd = disk_open(d, "probe", O_WRONLY | O_CREAT | O_TRUNC, &direct);
	bool ok = fd >= 0 && direct && fcp_sys_write_full(fd, d->buf, block) == (ssize_t)block;

	if (fd >= 0)
		fcp_sys_close(fd);
	fcp_sys_unlinkat(d->wfd, "probe", 0);
	return ok;
}

static int write_file(struct disk *d, const char *name, uint64_t block, bool direct,
		      struct bench_sample *s)
{
	uint64_t n = d->size / block;
	struct bench_cpu c0, c1;
	double t0 = bench_now();
	int ret = 0, fd;

	bench_cpu_self(&c0);
	fd = disk_open(d, name, O_WRONLY | O_CREAT | O_TRUNC, &direct);
	if (fd < 0)
		return fd;
	for (uint64_t i = 0; i < n && ret >= 0; i++)
		ret = (int)fcp_sys_write_full(fd, d->buf, block);
	/* Durable, and also drains a device's write cache behind O_DIRECT. */
	if (ret >= 0 && !d->cached)
		ret = fcp_sys_fdatasync(fd);
	fcp_sys_close(fd);
	s->wall = bench_now() - t0;
	bench_cpu_self(&c1);
	s->cpu_pct = bench_cpu_util(&c0, &c1, s->wall);
	s->bytes = n * block;
	s->ops = n;
	return ret < 0 ? ret : 0;
}

static int read_file(struct disk *d, const char *name, uint64_t block, bool direct,
		     struct bench_sample *s)
{
	struct bench_cpu c0, c1;
	double t0;
	ssize_t r = 0;
	int fd = disk_open(d, name, O_RDONLY, &direct);

	if (fd < 0)
		return fd;
	if (!direct && !d->cached) /* clean after fdatasync, so this empties it */
		fcp_sys_posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	bench_cpu_self(&c0);
	t0 = bench_now();
	memset(s, 0, sizeof(*s));
	while ((r = fcp_sys_read_full(fd, d->buf, block)) > 0) {
		s->bytes += r;
		s->ops++;
	}
	s->wall = bench_now() - t0;
	bench_cpu_self(&c1);
	s->cpu_pct = bench_cpu_util(&c0, &c1, s->wall);
	fcp_sys_close(fd);
	return r < 0 ? (int)r : 0;
}

static int one_block_size(struct disk *d, struct disk_row *row)
{
	char name[32];
	int ret = 0;

	row->direct = !d->cached && direct_works(d, row->block);
	row->write = calloc(d->files, sizeof(struct bench_sample));
	row->read = calloc(d->files, sizeof(struct bench_sample));
	for (int f = 0; f < d->files && ret >= 0 && !bench_interrupted; f++) {
		snprintf(name, sizeof(name), "file%d.dat", f + 1);
		ret = write_file(d, name, row->block, row->direct, &row->write[f]);
	}
	for (int f = 0; f < d->files && ret >= 0 && !bench_interrupted; f++) {
		snprintf(name, sizeof(name), "file%d.dat", f + 1);
		ret = read_file(d, name, row->block, row->direct, &row->read[f]);
	}
	if (ret >= 0 && !bench_interrupted)
		ret = disk_reread(d, row, "file1.dat");
	for (int f = 0; f < d->files; f++) {
		snprintf(name, sizeof(name), "file%d.dat", f + 1);
		fcp_sys_unlinkat(d->wfd, name, 0);
	}
	if (ret < 0)
		bench_syserr(ret, "test block size in", d->workdir);
	return ret;
}

static void disk_usage(FILE *f)
{
	fprintf(f,
		"usage: fastcp-bench disk [OPTIONS] PATH\n"
		"  --files N          files per block size (default 5)\n"
		"  --size SIZE        size of each file (default 64M)\n"
		"  --max-block SIZE   largest block size, 1K doubling up to it (default 1M, max 64M)\n"
		"  --max-span SIZE    largest random-read span (default --size, max 1G)\n"
		"  --duration SECS    time per re-read and latency point (default 1)\n"
		"  --cached           measure through the page cache instead of around it\n"
		"  --json FILE, --svg FILE\n");
}

static int parse_disk(int argc, char **argv, struct disk *d)
{
	static const struct option opts[] = {
		{ "files", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "max-block", required_argument, NULL, 'b' },
		{ "max-span", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "cached", no_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int o;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			if (bench_parse_uint(optarg, &v) < 0 || v < 1 || v > 100)
				return bench_err("invalid --files '%s' (1 to 100)", optarg), -EINVAL;
			d->files = (int)v;
			break;
		case 's':
			if (bench_parse_size(optarg, &d->size) < 0 || d->size < BENCH_KiB)
				return bench_err("invalid --size '%s'", optarg), -EINVAL;
			break;
		case 'b':
			if (bench_parse_size(optarg, &d->max_block) < 0 || d->max_block < BENCH_KiB ||
			    d->max_block > 64 * BENCH_MiB || (d->max_block & (d->max_block - 1)))
				return bench_err("invalid --max-block '%s' (a power of two, 1K to 64M)",
						 optarg), -EINVAL;
			break;
		case 'p':
			if (bench_parse_size(optarg, &d->max_span) < 0 || d->max_span < BENCH_MiB ||
			    d->max_span > BENCH_GiB)
				return bench_err("invalid --max-span '%s' (1M to 1G)", optarg), -EINVAL;
			break;
		case 'd':
			if (bench_parse_double(optarg, &d->duration) < 0)
				return bench_err("invalid --duration '%s'", optarg), -EINVAL;
			break;
		case 'c': d->cached = true; break;
		case 'j': d->json_path = optarg; break;
		case 'g': d->svg_path = optarg; break;
		case 'h': disk_usage(stdout); return 1;
		default: disk_usage(stderr); return -EINVAL;
		}
	}
	if (argc - optind != 1)
		return bench_err(argc == optind ? "missing PATH" : "too many arguments"),
		       disk_usage(stderr), -EINVAL;
	d->path = argv[optind];
	if (d->size < d->max_block)
		return bench_err("--size must be at least --max-block"), -EINVAL;
	return 0;
}

static int run_disk(struct disk *d)
{
	int ret = 0;

	for (uint64_t b = BENCH_KiB; b <= d->max_block && ret >= 0 && !bench_interrupted; b *= 2) {
		struct disk_row *row = &d->rows[d->nrows++];

		row->block = b;
		fprintf(stderr, "block %llu KiB...\n", (unsigned long long)(b / BENCH_KiB));
		ret = one_block_size(d, row);
	}
	if (ret >= 0 && !bench_interrupted)
		ret = disk_latency(d);
	return ret;
}

static void disk_free(struct disk *d)
{
	for (int i = 0; i < d->nrows; i++)
		free(d->rows[i].write), free(d->rows[i].read);
	free(d->buf);
}

int bench_disk_main(int argc, char **argv)
{
	struct disk d = { .files = 5, .size = 64 * BENCH_MiB, .max_block = BENCH_MiB,
			  .duration = 1.0, .wfd = -1 };
	int ret = parse_disk(argc, argv, &d);

	if (ret)
		return ret > 0 ? -1 : FCP_EXIT_USAGE;
	if (!d.max_span)
		d.max_span = d.size < BENCH_GiB ? d.size : BENCH_GiB;
	if (d.max_span < BENCH_MiB)
		d.max_span = BENCH_MiB;
	if (bench_make_workdir(d.path, "fastcp-bench-disk", &d.workdir, &d.wfd) < 0) {
		bench_remove_workdir(d.workdir, d.wfd);
		return FCP_EXIT_USAGE;
	}
	d.buf = bench_aligned_buf(d.max_block, 42);
	bench_signals_install();
	ret = run_disk(&d);
	bench_remove_workdir(d.workdir, d.wfd);
	d.workdir = NULL;
	bench_signals_reraise();
	if (ret >= 0) {
		disk_report(&d);
		if (d.json_path && disk_write_json(&d))
			ret = -EIO;
		if (d.svg_path && disk_write_svg(&d))
			ret = -EIO;
	}
	disk_free(&d);
	return ret < 0 ? FCP_EXIT_PARTIAL : FCP_EXIT_OK;
}
