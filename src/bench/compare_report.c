/*
 * compare_report.c - the Markdown table, --json and --svg of compare.
 *
 * The table is shaped like the seed reports: per tool the median, min and
 * max of the wall times (the spread is part of the result on a noisy
 * machine), throughput, CPU and memory, and the ratio to the first command.
 */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "svg.h"
#include "timing.h"

void cmp_summarise(const struct cmp_cmd *c, struct cmp_summary *s)
{
	double *w = bench_xmalloc(sizeof(double) * (c->nruns + 1));
	double *u = bench_xmalloc(sizeof(double) * (c->nruns + 1));
	double *y = bench_xmalloc(sizeof(double) * (c->nruns + 1));
	double *z = bench_xmalloc(sizeof(double) * (c->nruns + 1));
	double *t = bench_xmalloc(sizeof(double) * (c->nruns + 1));
	double *f = bench_xmalloc(sizeof(double) * (c->nruns + 1));

	memset(s, 0, sizeof(*s));
	s->min = INFINITY;
	for (int i = 0; i < c->nruns; i++) {
		const struct cmp_run *r = &c->runs[i];

		if (!r->ok) {
			s->failed++;
			continue;
		}
		t[s->ok] = (double)r->trips;
		f[s->ok] = r->inflight;
		w[s->ok] = r->wall;
		z[s->ok] = r->sync;
		u[s->ok] = r->user;
		y[s->ok++] = r->sys;
		s->min = r->wall < s->min ? r->wall : s->min;
		s->max = r->wall > s->max ? r->wall : s->max;
		s->maxrss_kib = r->maxrss_kib > s->maxrss_kib ? r->maxrss_kib : s->maxrss_kib;
	}
	s->median = s->ok ? bench_median(w, s->ok) : NAN;
	s->sync = bench_median(z, s->ok);
	s->user = bench_median(u, s->ok);
	s->sys = bench_median(y, s->ok);
	s->trips = bench_median(t, s->ok);
	s->inflight = bench_median(f, s->ok);
	if (!s->ok)
		s->min = s->max = NAN;
	free(w);
	free(u);
	free(y);
	free(z);
	free(t);
	free(f);
}

/* A command as a Markdown table cell: '|' would end the cell. */
static void md_code(const char *s)
{
	putchar('`');
	for (; *s; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s);
	}
	putchar('`');
}

static void print_header(const struct cmp *c)
{
	printf("## fastcp-bench compare\n\n");
	printf("Source: `%s`: %llu files, %llu directories, %.1f MB\n\n", c->src,
	       (unsigned long long)c->st.files, (unsigned long long)c->st.dirs,
	       c->st.bytes / BENCH_MB);
	printf("Protocol: %d interleaved round%s", c->rounds, c->rounds == 1 ? "" : "s");
	if (c->warmup)
		printf(" after %d untimed warm-up run%s", c->warmup, c->warmup == 1 ? "" : "s");
	printf(", runs in an order drawn from seed %llu", (unsigned long long)c->seed);
	printf("; %s; destination removed and synced "
	       "before each run; timing includes a sync of the destination filesystem; "
	       "every copy verified (names, types, sizes, bytes, symlink targets)",
	       c->cold ? "page cache dropped before each run (cold)" :
	       "source read once before each run (warm)");
	if (c->fresh_fs)
		printf("; a fresh %s loopback filesystem of %.0f MiB for every run", c->fresh_fs,
		       c->fs_size / (double)BENCH_MiB);
	if (c->wl.rate)
		printf("; writes to that filesystem's device limited to %.1f MB/s (%s) during "
		       "the timed part", c->wl.rate / BENCH_MB, wlimit_how(&c->wl));
	if (c->latency_ms >= 0)
		printf("; the commands read the source through a FUSE passthrough that waits "
		       "%g ms in every round trip (lookup, getattr, open, read, readdir, xattrs)",
		       c->latency_ms);
	printf(".\n\n");
	if (c->prepare || c->mutate) {
		printf("Before each run, untimed and before the cache step:");
		if (c->prepare) {
			printf(" the destination is prepared by ");
			md_code(c->prepare);
		}
		if (c->prepare && c->mutate)
			printf(", then");
		if (c->mutate) {
			printf(" changed by ");
			md_code(c->mutate);
		}
		printf("; the copy is then verified against the source as every copy is.\n\n");
	}
	if (c->warning[0])
		printf("**WARNING: %s**\n\n", c->warning);
}

static void print_row(const struct cmp *c, int i, double first)
{
	struct cmp_summary s;
	char ratio[32] = "-";

	cmp_summarise(&c->cmds[i], &s);
	printf("| %d | ", i + 1);
	md_code(c->cmds[i].tmpl);
	printf(" | %d/%d |", s.ok, c->cmds[i].nruns);
	if (!s.ok) {
		printf(" FAILED | | | | | | | | | |\n");
		return;
	}
	if (first > 0)
		snprintf(ratio, sizeof(ratio), "%.2fx", s.median / first);
	printf(" %.3f | %.3f | %.3f | %.3f | %.1f | %.0f | %.2f | %.2f | %.1f | %s |\n",
	       s.median, s.min, s.max, s.sync, c->st.bytes / BENCH_MB / s.median,
	       c->st.files / s.median, s.user, s.sys, s.maxrss_kib / 1024.0, ratio);
}

/* --source-latency: how many round trips each tool made, and how many it
 * kept in flight together (their total duration over the run's). */
static void print_trips(const struct cmp *c)
{
	printf("\n| # | command | round trips | in flight (average) |\n|---|---|---|---|\n");
	for (int i = 0; i < c->ncmd; i++) {
		struct cmp_summary s;

		cmp_summarise(&c->cmds[i], &s);
		printf("| %d | ", i + 1);
		md_code(c->cmds[i].tmpl);
		if (s.ok)
			printf(" | %.0f | %.1f |\n", s.trips, s.inflight);
		else
			printf(" | FAILED | |\n");
	}
	printf("\nRound trips to the source during the run (medians), counted by the FUSE "
	       "server; in flight: the sum of their durations over the run's time.\n");
}

void cmp_print_report(const struct cmp *c)
{
	struct cmp_summary first;

	cmp_summarise(&c->cmds[0], &first);
	print_header(c);
	printf("| # | command | ok runs | median s | min s | max s | sync s | MB/s | files/s "
	       "| user s | sys s | peak RSS MiB | time vs #1 |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < c->ncmd; i++)
		print_row(c, i, first.ok ? first.median : 0);
	printf("\nMB = 1,000,000 bytes; MB/s and files/s from the median; sync s is the "
	       "median of the part of the time spent in the final sync of the destination "
	       "(after the command exited); CPU is the median "
	       "of user and system seconds of the command's process tree; peak RSS is the "
	       "largest over the runs. A failed run is never timed.\n");
	if (c->latency_ms >= 0)
		print_trips(c);
	for (int i = 0, first_fail = 1; i < c->ncmd; i++)
		for (int r = 0; r < c->cmds[i].nruns; r++)
			if (!c->cmds[i].runs[r].ok) {
				printf("%s- FAILED: command %d, round %d: %s\n",
				       first_fail ? "\n" : "", i + 1, r + 1, c->cmds[i].runs[r].error);
				first_fail = 0;
			}
	fflush(stdout);
}

static void json_command(struct json *j, const struct cmp *c, int i, double first)
{
	const struct cmp_cmd *cmd = &c->cmds[i];
	struct cmp_summary s;

	cmp_summarise(cmd, &s);
	json_obj(j, NULL);
	json_str(j, "command", cmd->tmpl);
	json_int(j, "ok_runs", s.ok);
	json_int(j, "failed_runs", s.failed);
	json_num(j, "median_s", s.median);
	json_num(j, "min_s", s.min);
	json_num(j, "max_s", s.max);
	json_num(j, "sync_s", s.sync);
	json_num(j, "mb_per_s", c->st.bytes / BENCH_MB / s.median);
	json_num(j, "files_per_s", c->st.files / s.median);
	json_num(j, "user_s", s.user);
	json_num(j, "sys_s", s.sys);
	json_int(j, "peak_rss_kib", s.maxrss_kib);
	json_num(j, "ratio_to_first", first > 0 ? s.median / first : NAN);
	if (c->latency_ms >= 0) {
		json_num(j, "round_trips", s.trips);
		json_num(j, "in_flight", s.inflight);
	}
	json_arr(j, "runs");
	for (int r = 0; r < cmd->nruns; r++) {
		const struct cmp_run *run = &cmd->runs[r];

		json_obj(j, NULL);
		json_int(j, "round", r + 1);
		json_bool(j, "ok", run->ok);
		json_num(j, "wall_s", run->ok ? run->wall : NAN);
		json_num(j, "sync_s", run->ok ? run->sync : NAN);
		json_num(j, "user_s", run->user);
		json_num(j, "sys_s", run->sys);
		json_int(j, "peak_rss_kib", run->maxrss_kib);
		if (c->latency_ms >= 0) {
			json_int(j, "round_trips", (int64_t)run->trips);
			json_num(j, "in_flight", run->inflight);
		}
		if (c->prepare || c->mutate)
			json_num(j, "setup_s", run->setup);
		json_str(j, "error", run->error);
		json_end_obj(j);
	}
	json_end_arr(j);
	json_end_obj(j);
}

int cmp_write_json(const struct cmp *c)
{
	struct cmp_summary first;
	struct json j;
	int ret = json_open(&j, c->json_path);

	if (ret < 0)
		return bench_syserr(ret, "write", c->json_path);
	cmp_summarise(&c->cmds[0], &first);
	json_str(&j, "mode", "compare");
	json_obj(&j, "source");
	json_str(&j, "path", c->src);
	json_int(&j, "files", (int64_t)c->st.files);
	json_int(&j, "dirs", (int64_t)c->st.dirs);
	json_int(&j, "bytes", (int64_t)c->st.bytes);
	json_end_obj(&j);
	json_int(&j, "rounds", c->rounds);
	json_int(&j, "warmup_runs", c->warmup);
	json_int(&j, "order_seed", (int64_t)c->seed);
	json_str(&j, "cache", c->cold ? "cold" : "warm");
	json_bool(&j, "cache_dropped", c->cache_dropped);
	json_str(&j, "warning", c->warning[0] ? c->warning : NULL);
	json_str(&j, "prepare", c->prepare);
	json_str(&j, "mutate", c->mutate);
	json_str(&j, "fresh_fs", c->fresh_fs);
	json_int(&j, "fs_size", c->fresh_fs ? (int64_t)c->fs_size : 0);
	json_int(&j, "write_limit_bps", (int64_t)c->wl.rate);
	json_num(&j, "source_latency_ms", c->latency_ms >= 0 ? c->latency_ms : NAN);
	json_arr(&j, "commands");
	for (int i = 0; i < c->ncmd; i++)
		json_command(&j, c, i, first.ok ? first.median : 0);
	json_end_arr(&j);
	ret = json_close(&j);
	return ret < 0 ? bench_syserr(ret, "write", c->json_path) : 0;
}

int cmp_write_svg(const struct cmp *c)
{
	struct svg_bar *bars = bench_xmalloc(sizeof(*bars) * c->ncmd);
	char title[160];
	struct svg_bar_chart chart = { title, "median wall time (s), whisker min-max; "
				       "shorter is faster", c->ncmd, bars };
	int ret;

	snprintf(title, sizeof(title), "copy of %llu files, %.1f MB (%s, %d rounds)",
		 (unsigned long long)c->st.files, c->st.bytes / BENCH_MB,
		 c->cold ? "cold cache" : "warm cache", c->rounds);
	for (int i = 0; i < c->ncmd; i++) {
		struct cmp_summary s;

		cmp_summarise(&c->cmds[i], &s);
		bars[i] = (struct svg_bar){ c->cmds[i].tmpl, s.median, s.min, s.max, !s.ok };
	}
	ret = svg_write_bars(c->svg_path, &chart);
	free(bars);
	return ret < 0 ? bench_syserr(ret, "write", c->svg_path) : 0;
}
