/*
 * disk_report.c - the tables, --json and --svg of the disk benchmark,
 * laid out as DiskGraf's log: one row per block size, one column per file.
 */
#include "disk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "json.h"
#include "svg.h"

enum what { W_MBPS, W_CPU };

static void file_table(const struct disk *d, const char *title, bool reads, enum what w)
{
	printf("\n%s\n\n| Block KiB |", title);
	for (int f = 0; f < d->files; f++)
		printf(" File %d |", f + 1);
	printf(" I/O |\n|---|");
	for (int f = 0; f < d->files; f++)
		printf("---|");
	printf("---|\n");
	for (int r = 0; r < d->nrows; r++) {
		const struct disk_row *row = &d->rows[r];

		printf("| %llu |", (unsigned long long)(row->block / BENCH_KiB));
		for (int f = 0; f < d->files; f++) {
			const struct bench_sample *s = reads ? &row->read[f] : &row->write[f];

			printf(w == W_MBPS ? " %.1f |" : " %.1f |",
			       w == W_MBPS ? bench_mbps(s) : s->cpu_pct);
		}
		printf(" %s |\n", d->cached ? "cached" : row->direct ? "direct" : "buffered");
	}
}

static void span_table(const struct disk *d)
{
	printf("\nRandom read 1 KiB out of a span (ms per read)\n\n"
	       "| Span MiB | ms per read | reads | CPU %% | I/O |\n|---|---|---|---|---|\n");
	for (int i = 0; i < d->nspans; i++) {
		const struct disk_span *sp = &d->spans[i];

		if (!sp->measured) {
			printf("| %llu | - | - | - | beyond --max-span |\n",
			       (unsigned long long)(sp->span / BENCH_MiB));
			continue;
		}
		printf("| %llu | %.4f | %llu | %.1f | %s |\n",
		       (unsigned long long)(sp->span / BENCH_MiB),
		       sp->s.wall / sp->s.ops * 1e3, (unsigned long long)sp->s.ops, sp->s.cpu_pct,
		       d->cached ? "cached" : sp->direct ? "direct" : "buffered, no readahead");
	}
}

void disk_report(const struct disk *d)
{
	char size[32];

	bench_size_label(d->size, size, sizeof(size));
	printf("## fastcp-bench disk\n\nPath: `%s` (%s); %d files of %s per block size; %s; "
	       "%d CPUs.\n", d->path, bench_fs_name(d->path), d->files, size,
	       d->cached ? "through the page cache (--cached)" :
	       "page cache bypassed: O_DIRECT (direct) where accepted, otherwise "
	       "fdatasync + POSIX_FADV_DONTNEED (buffered)", bench_ncpu());
	file_table(d, "Write MB/s", false, W_MBPS);
	file_table(d, "Read MB/s", true, W_MBPS);
	file_table(d, "Write CPU utilisation % (per CPU)", false, W_CPU);
	file_table(d, "Read CPU utilisation % (per CPU)", true, W_CPU);
	printf("\nBuffer re-read: the same block for %g s\n\n"
	       "| Block KiB | MB/s | CPU %% |\n|---|---|---|\n", d->duration);
	for (int r = 0; r < d->nrows; r++)
		printf("| %llu | %.1f | %.1f |\n", (unsigned long long)(d->rows[r].block / BENCH_KiB),
		       bench_mbps(&d->rows[r].reread), d->rows[r].reread.cpu_pct);
	span_table(d);
	printf("\nMB = 1,000,000 bytes. CPU utilisation is this process's user + system "
	       "time over wall time, averaged per CPU; short tests round it coarsely.\n");
	fflush(stdout);
}

static void json_samples(struct json *j, const char *key, const struct bench_sample *s, int n)
{
	json_arr(j, key);
	for (int i = 0; i < n; i++) {
		json_obj(j, NULL);
		json_num(j, "mb_per_s", bench_mbps(&s[i]));
		json_num(j, "cpu_pct", s[i].cpu_pct);
		json_num(j, "seconds", s[i].wall);
		json_int(j, "bytes", (int64_t)s[i].bytes);
		json_end_obj(j);
	}
	json_end_arr(j);
}

int disk_write_json(const struct disk *d)
{
	struct json j;
	int ret = json_open(&j, d->json_path);

	if (ret < 0)
		return bench_syserr(ret, "write", d->json_path);
	json_str(&j, "mode", "disk");
	json_str(&j, "path", d->path);
	json_str(&j, "filesystem", bench_fs_name(d->path));
	json_int(&j, "files", d->files);
	json_int(&j, "file_size", (int64_t)d->size);
	json_bool(&j, "cached", d->cached);
	json_int(&j, "cpus", bench_ncpu());
	json_arr(&j, "blocks");
	for (int r = 0; r < d->nrows; r++) {
		const struct disk_row *row = &d->rows[r];

		json_obj(&j, NULL);
		json_int(&j, "block", (int64_t)row->block);
		json_bool(&j, "direct", row->direct);
		json_samples(&j, "write", row->write, d->files);
		json_samples(&j, "read", row->read, d->files);
		json_samples(&j, "reread", &row->reread, 1);
		json_end_obj(&j);
	}
	json_end_arr(&j);
	json_arr(&j, "random_read");
	for (int i = 0; i < d->nspans; i++) {
		const struct disk_span *sp = &d->spans[i];

		json_obj(&j, NULL);
		json_int(&j, "span", (int64_t)sp->span);
		json_bool(&j, "measured", sp->measured);
		json_num(&j, "ms_per_read", sp->measured ? sp->s.wall / sp->s.ops * 1e3 : NAN);
		json_int(&j, "reads", (int64_t)sp->s.ops);
		json_num(&j, "cpu_pct", sp->measured ? sp->s.cpu_pct : NAN);
		json_bool(&j, "direct", sp->direct);
		json_end_obj(&j);
	}
	json_end_arr(&j);
	ret = json_close(&j);
	return ret < 0 ? bench_syserr(ret, "write", d->json_path) : 0;
}

static double mean_mbps(const struct bench_sample *s, int n)
{
	double t = 0;

	for (int i = 0; i < n; i++)
		t += bench_mbps(&s[i]);
	return n ? t / n : NAN;
}

static char *label(uint64_t b)
{
	char *p = bench_xmalloc(16);

	if (b >= BENCH_GiB)
		snprintf(p, 16, "%lluG", (unsigned long long)(b / BENCH_GiB));
	else if (b >= BENCH_MiB)
		snprintf(p, 16, "%lluM", (unsigned long long)(b / BENCH_MiB));
	else
		snprintf(p, 16, "%lluK", (unsigned long long)(b / BENCH_KiB));
	return p;
}

int disk_write_svg(const struct disk *d)
{
	double w[DISK_MAX_BLOCKS], r[DISK_MAX_BLOCKS], rr[DISK_MAX_BLOCKS], lat[DISK_MAX_SPANS];
	char *bt[DISK_MAX_BLOCKS], *st[DISK_MAX_SPANS];
	struct svg_series s1[] = { { "write", w }, { "read", r }, { "buffer re-read", rr } };
	struct svg_series s2[] = { { "1 KiB random read", lat } };
	struct svg_line_chart charts[2] = {
		{ "Disk speed by block size (mean over files)", "block size (bytes, log2 scale)",
		  "MB/s", d->nrows, (const char *const *)bt, 3, s1 },
		{ "Random read latency by span", "span (bytes, log2 scale)", "ms per read",
		  d->nspans, (const char *const *)st, 1, s2 },
	};
	int ret;

	for (int i = 0; i < d->nrows; i++) {
		w[i] = mean_mbps(d->rows[i].write, d->files);
		r[i] = mean_mbps(d->rows[i].read, d->files);
		rr[i] = bench_mbps(&d->rows[i].reread);
		bt[i] = label(d->rows[i].block);
	}
	for (int i = 0; i < d->nspans; i++) {
		const struct disk_span *sp = &d->spans[i];

		lat[i] = sp->measured ? sp->s.wall / sp->s.ops * 1e3 : NAN;
		st[i] = label(sp->span);
	}
	ret = svg_write_lines(d->svg_path, charts, 2);
	for (int i = 0; i < d->nrows; i++)
		free(bt[i]);
	for (int i = 0; i < d->nspans; i++)
		free(st[i]);
	return ret < 0 ? bench_syserr(ret, "write", d->svg_path) : 0;
}
