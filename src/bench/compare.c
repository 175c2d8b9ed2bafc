/*
 * compare.c - `fastcp-bench compare [OPTIONS] SRC -- 'CMD1' 'CMD2' ...`
 *
 * The protocol of the seed reports, in this order for every run:
 *   1. remove the previous destination (or make a fresh filesystem), run
 *      --prepare and --mutate if given (the destination a repeat copy
 *      starts from), and sync, outside the timing;
 *   2. drop the page cache (--cold) or read the source, and a prepared
 *      destination, once (--warm): after step 1, so that a cold run is cold
 *      for the prepared destination too;
 *   3. time the command plus a syncfs() of the destination filesystem, so
 *      that a tool cannot win by leaving dirty pages behind;
 *   4. verify the copy against the source; a wrong copy is FAILED, not timed.
 * With --source-latency the commands read the source through a FUSE
 * passthrough that delays every round trip (latfs.c), mounted for the
 * session; the copy is verified against the source itself.
 * Rounds are interleaved, each in a seeded random order, and a command does
 * not follow the same one twice while another could (struct order), so
 * that drift of a shared machine, and what one run leaves to the next,
 * spread over every command instead of falling on one.
 * --warmup N runs first, through the same protocol but untimed, so that
 * the first timed run does not carry whatever came before the session.
 */
#include "compare.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "freshfs.h"
#include "prng.h"
#include "run.h"
#include "base/sys.h"
#include "timing.h"

static void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: fastcp-bench compare [OPTIONS] SRC -- 'CMD1' 'CMD2' ...\n"
		"  each CMD is a shell command line with {src} and {dst}, e.g.\n"
		"    'cp -a {src} {dst}'  'rsync -a {src}/ {dst}/'\n"
		"  --rounds N          interleaved rounds (default 3)\n"
		"  --warmup N          untimed runs before them (default 0)\n"
		"  --seed N            draws the order of the runs (default: from the\n"
		"                      cache mode, SRC and the commands)\n"
		"  --cold              drop the page cache before each run (default as root)\n"
		"  --warm              read the source once before each run instead\n"
		"  --prepare 'CMD'     run before each run, untimed, e.g. 'cp -a {src}/. {dst}'\n"
		"  --mutate 'CMD'      run after it, untimed, to change the source or destination\n"
		"  --fresh-fs TYPE     a new xfs, ext4 or btrfs loopback fs per run (root)\n"
		"  --write-limit RATE  the fresh filesystem's device written at most RATE bytes/s\n"
		"                      (K, M, G: binary), e.g. 30M, 100M\n"
		"  --source-latency MS the commands read SRC through a FUSE passthrough that\n"
		"                      waits MS milliseconds in every round trip; {rawsrc} names\n"
		"                      SRC itself (its own cost: MS 0, the same command with\n"
		"                      {src} and with {rawsrc})\n"
		"  --fs-size SIZE      size of that filesystem (default: from the source)\n"
		"  --work-dir DIR      where destinations are made (default: SRC's parent)\n"
		"  --json FILE         all figures, machine-readable\n"
		"  --svg FILE          a bar chart of the wall times\n");
}

/* Characters that mean the same thing inside and outside shell quotes. */
static bool shell_safe(const char *s)
{
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_./+,-=:@%", *s))
			return false;
	return true;
}

/* Replace every {src}, {rawsrc} and {dst}; paths are shell_safe, so no
 * quoting. {rawsrc} is SRC itself also where {src} is the latency
 * passthrough's mount: a command reading it, beside one reading {src},
 * shows what the passthrough costs (--source-latency 0). */
static char *expand(const char *tmpl, const char *src, const char *raw, const char *dst)
{
	size_t cap = strlen(tmpl) + 1, n = 0;
	char *out;

	for (const char *p = tmpl; (p = strchr(p, '{')); p++)
		cap += strlen(src) + strlen(raw) + strlen(dst);
	out = bench_xmalloc(cap);
	for (const char *p = tmpl; *p;) {
		size_t len = !strncmp(p, "{rawsrc}", 8) ? 8 : 5;
		const char *with = !strncmp(p, "{src}", 5) ? src :
				   len == 8 ? raw :
				   !strncmp(p, "{dst}", 5) ? dst : NULL;

		if (with) {
			n += sprintf(out + n, "%s", with);
			p += len;
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
	return out;
}

static int check_commands(const struct cmp *c)
{
	for (int i = 0; i < c->ncmd; i++) {
		const char *t = c->cmds[i].tmpl;

		if ((!strstr(t, "{src}") && !strstr(t, "{rawsrc}")) || !strstr(t, "{dst}")) {
			bench_err("command %d '%s' has no %s placeholder", i + 1, t,
				  strstr(t, "{src}") ? "{dst}" : "{src}");
			return -EINVAL;
		}
	}
	return 0;
}

static void set_error(struct cmp_run *run, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;

	run->ok = false;
	run->error = bench_xmalloc(n);
	snprintf(run->error, n, fmt, a, b);
}

static void drop_caches(struct cmp *c)
{
	int fd, ret;

	sync();
	fd = fcp_sys_openat(AT_FDCWD, "/proc/sys/vm/drop_caches", O_WRONLY, 0);
	ret = fd < 0 ? fd : (int)fcp_sys_write_full(fd, "3\n", 2);
	if (fd >= 0)
		fcp_sys_close(fd);
	if (ret < 0 && c->cache_dropped) {
		c->cache_dropped = false;
		snprintf(c->warning, sizeof(c->warning),
			 "the page cache was NOT dropped (cannot write /proc/sys/vm/drop_caches: "
			 "%s); these are warm-cache numbers", strerror(-ret));
	}
}

/*
 * --prepare, then --mutate: the destination (and source) a repeat copy
 * starts from. 0, or 1 when one failed (the run is FAILED, not timed),
 * or -errno when it could not be run.
 */
static int setup(struct cmp *c, struct cmp_run *run, const char *dst)
{
	const char *opt[2] = { "--prepare", "--mutate" };
	const char *tmpl[2] = { c->prepare, c->mutate };
	double t0 = bench_now();

	for (int i = 0; i < 2 && !bench_interrupted; i++) {
		struct bench_proc p;
		char what[96], status[64];
		char *line;
		int ret;

		if (!tmpl[i])
			continue;
		line = expand(tmpl[i], c->src, c->src, dst);
		ret = bench_run_shell(line, &p);
		free(line);
		if (ret < 0)
			return bench_syserr(ret, "run", "/bin/sh"), ret;
		if (!bench_proc_ok(&p)) {
			bench_proc_status(&p, status, sizeof(status));
			snprintf(what, sizeof(what), "the %s command failed (%s)", opt[i], status);
			set_error(run, "%s: %s", what, p.err[0] ? p.err : "no message");
			return 1;
		}
	}
	run->setup = bench_now() - t0;
	/* what it wrote, wherever, is on disk before the timing starts */
	sync();
	return 0;
}

/* Step 2: drop the cache, or read the source and a prepared destination. */
static int cache_mode(struct cmp *c, const char *dst)
{
	int ret;

	if (c->cold) {
		drop_caches(c);
		return 0;
	}
	ret = bench_tree_read(c->cmd_src);
	if (ret < 0)
		return bench_syserr(ret, "read", c->cmd_src), ret;
	ret = c->prepare ? bench_tree_read(dst) : 0;
	if (ret == -ENOENT) /* the prepare made no destination */
		return 0;
	if (ret < 0)
		bench_syserr(ret, "read", dst);
	return ret;
}

/* Steps 1 and 2 of the protocol; nothing here is timed. 1: setup FAILED. */
static int prepare(struct cmp *c, struct cmp_run *run, const char *parent, dev_t dev)
{
	int fd = fcp_sys_openat(AT_FDCWD, parent, O_RDONLY | O_DIRECTORY, 0);
	char *dst = bench_path_join(parent, "dst");
	int ret;

	if (fd < 0)
		return bench_syserr(fd, "open", parent), free(dst), fd;
	ret = bench_rmtree_at(fd, "dst", dev);
	if (ret < 0)
		bench_syserr(ret, "remove the previous copy in", parent);
	bench_syncfs(fd);
	fcp_sys_close(fd);
	if (ret >= 0 && (c->prepare || c->mutate))
		ret = setup(c, run, dst);
	if (ret == 0)
		ret = cache_mode(c, dst);
	free(dst);
	return ret;
}

static int dev_of(const char *path, dev_t *dev)
{
	struct statx stx;
	int ret = fcp_sys_statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &stx);

	if (ret < 0)
		return bench_syserr(ret, "stat", path), ret;
	*dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	return 0;
}

/* Step 3 and 4: time the command and the sync, then check the copy. */
static int time_and_verify(struct cmp *c, struct cmp_run *run, const char *line,
			   const char *parent, const char *dst, dev_t wdev)
{
	struct bench_proc p;
	char why[512], status[64];
	int pfd = fcp_sys_openat(AT_FDCWD, parent, O_RDONLY | O_DIRECTORY, 0);
	double t0, t1;
	int ret;

	struct latfs_sample l0, l1;

	if (pfd < 0)
		return bench_syserr(pfd, "open", parent), pfd;
	if (c->wl.rate && (ret = wlimit_apply(&c->wl, wdev)) < 0)
		return fcp_sys_close(pfd), ret;
	l0 = latfs_sample(&c->lat);
	t0 = bench_now();
	ret = bench_run_shell(line, &p);
	t1 = bench_now();
	if (ret >= 0)
		bench_syncfs(pfd);
	run->wall = bench_now() - t0;
	l1 = latfs_sample(&c->lat);
	wlimit_clear(&c->wl);
	latfs_between(&l0, &l1, &run->trips, &run->inflight);
	run->sync = run->wall - (t1 - t0);
	fcp_sys_close(pfd);
	if (ret < 0)
		return bench_syserr(ret, "run", "/bin/sh"), ret;
	run->user = p.user;
	run->sys = p.sys;
	run->maxrss_kib = p.maxrss_kib;
	run->ok = true;
	if (!bench_proc_ok(&p)) {
		bench_proc_status(&p, status, sizeof(status));
		set_error(run, "the command failed (%s): %s", status, p.err[0] ? p.err : "no message");
		return 0;
	}
	ret = bench_verify(c->src, dst, why, sizeof(why));
	if (ret < 0)
		return bench_syserr(ret, "verify", dst), ret;
	if (ret > 0)
		set_error(run, "wrong copy: %s%s", why, "");
	return 0;
}

/* The block device of a fresh filesystem (--write-limit), or 0. */
static dev_t loop_dev(const struct freshfs *fs)
{
	struct stat st;

	return fs && stat(fs->loopdev, &st) == 0 ? st.st_rdev : 0;
}

/* One run of cmd; a warm-up run (timed == false) goes through every step
 * but is not recorded. */
static int run_once(struct cmp *c, struct cmp_cmd *cmd, struct freshfs *fs, bool timed)
{
	const char *parent = fs ? fs->mnt : c->workdir;
	char *dst = bench_path_join(parent, "dst"), *line = NULL;
	struct cmp_run scratch = { 0 };
	struct cmp_run *run = timed ? &cmd->runs[cmd->nruns] : &scratch;
	dev_t dev = 0;
	int ret = fs ? freshfs_create(fs) : 0;

	if (ret >= 0)
		ret = dev_of(parent, &dev);
	if (ret >= 0)
		ret = prepare(c, run, parent, dev);
	if (ret >= 0 && !bench_interrupted) {
		line = expand(cmd->tmpl, c->cmd_src, c->src, dst);
		/* a failed --prepare or --mutate (ret 1) is the run's FAILED */
		ret = ret ? 0 : time_and_verify(c, run, line, parent, dst, loop_dev(fs));
		if (timed)
			fprintf(stderr, "round %d  ", ++cmd->nruns);
		else
			fprintf(stderr, "warm-up  ");
		fprintf(stderr, "%-40s %s %.3f s (sync %.3f s", cmd->tmpl,
			run->ok ? "ok    " : "FAILED", run->wall, run->sync);
		if (c->prepare || c->mutate)
			fprintf(stderr, ", untimed setup %.3f s", run->setup);
		fprintf(stderr, ")%s%s\n", run->ok ? "" : ": ", run->ok ? "" : run->error);
	}
	free(scratch.error);
	/* The copy is ours to remove: it is inside the directory we made. */
	if (dev) {
		int fd = fcp_sys_openat(AT_FDCWD, parent, O_RDONLY | O_DIRECTORY, 0);
		int r = fd < 0 ? fd : bench_rmtree_at(fd, "dst", dev);

		if (fd >= 0)
			fcp_sys_close(fd);
		if (r < 0 && !fs) {
			bench_syserr(r, "remove", dst);
			ret = ret < 0 ? ret : r;
		}
	}
	if (fs && freshfs_destroy(fs) < 0)
		ret = ret < 0 ? ret : -EIO;
	free(line);
	free(dst);
	return ret;
}

/*
 * The order of a round. On a shared machine the first run after a round's
 * set-up was measured slower, and so was the run after certain others (on
 * a VM that gives freed memory back to its host, BENCHMARKS.md): no command
 * should always be first, nor follow the same one again while another
 * could. So each round is the order of its commands that repeats the
 * fewest "k right after p" pairs of the runs so far (a command right after
 * itself only if nothing else is left); of equal ones, the first in the
 * round's plain order, a random permutation drawn from --seed. A fixed
 * plain order (once a rotation) decided which commands followed a slow
 * one, and with the usual command lists that was always the first one,
 * fastcp's own row: drawn, that run falls on any command alike. A search
 * over the orders, cut short after ORDER_BUDGET steps once it has one.
 */
#define ORDER_BUDGET 1000000L
#define SELF_FOLLOW (1 << 20)

/* How often command k ran right after p (-1: none) in the n x n+1 table. */
static int *pair(int *after, int n, int p, int k)
{
	return &after[(size_t)(p + 1) * n + k];
}

struct order {
	int n;
	int *after;
	int *plain, *path, *best, best_cost;
	bool *used;
	long budget;
};

static void order_search(struct order *o, int depth, int prev, int cost)
{
	int n = o->n;

	if (o->best_cost >= 0 && (cost >= o->best_cost || o->budget-- <= 0))
		return;
	if (depth == n) {
		o->best_cost = cost;
		memcpy(o->best, o->path, sizeof(int) * (size_t)n);
		return;
	}
	for (int i = 0; i < n; i++) {
		int k = o->plain[i];
		int cost_k = prev == k ? SELF_FOLLOW : *pair(o->after, n, prev, k);

		if (o->used[k])
			continue;
		o->used[k] = true;
		o->path[depth] = k;
		order_search(o, depth + 1, k, cost + cost_k);
		o->used[k] = false;
	}
}

/* A random permutation of the n commands into perm (Fisher-Yates). */
static void draw_order(struct bench_rng *rng, int *perm, int n)
{
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)bench_rng_below(rng, (uint64_t)i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
}

static int run_session(struct cmp *c)
{
	struct freshfs fs, *pfs = c->fresh_fs ? &fs : NULL;
	int n = c->ncmd, prev = -1, ret = 0;
	int *after = bench_xmalloc(sizeof(int) * (size_t)(n + 1) * n);
	struct order o = {
		.n = n,
		.after = after,
		.plain = bench_xmalloc(sizeof(int) * (size_t)n),
		.path = bench_xmalloc(sizeof(int) * (size_t)n),
		.best = bench_xmalloc(sizeof(int) * (size_t)n),
		.used = bench_xmalloc(sizeof(bool) * (size_t)n),
	};
	struct bench_rng rng;

	bench_rng_seed(&rng, c->seed);
	memset(after, 0, sizeof(int) * (size_t)(n + 1) * n);
	if (pfs)
		freshfs_init(&fs, c->fresh_fs, c->fs_size, c->workdir);
	/* The warm-up runs go through one drawn order again and again, so the
	 * first timed run follows another command, as later ones do, and which
	 * one is drawn too. */
	draw_order(&rng, o.plain, n);
	for (int w = 0; w < c->warmup && ret >= 0 && !bench_interrupted; w++) {
		int k = o.plain[w % n];
		(*pair(after, n, prev, k))++;
		prev = k;
		ret = run_once(c, &c->cmds[k], pfs, false);
	}
	for (int r = 0; r < c->rounds && ret >= 0 && !bench_interrupted; r++) {
		draw_order(&rng, o.plain, n);
		o.best_cost = -1;
		o.budget = ORDER_BUDGET;
		memset(o.used, 0, sizeof(bool) * (size_t)n);
		order_search(&o, 0, prev, 0);
		for (int i = 0; i < n && ret >= 0 && !bench_interrupted; i++) {
			int k = o.best[i];
			(*pair(after, n, prev, k))++;
			prev = k;
			ret = run_once(c, &c->cmds[k], pfs, true);
		}
	}
	if (pfs)
		freshfs_release(&fs);
	free(o.used);
	free(o.best);
	free(o.path);
	free(o.plain);
	free(after);
	return ret;
}

/* The work directory is created by us, so everything in it is ours. */
static int make_workdir(struct cmp *c)
{
	char *tmpl = bench_path_join(c->workdir_parent, "fastcp-bench.XXXXXX");
	char *sd;
	size_t ls = strlen(c->src);

	if (!mkdtemp(tmpl)) {
		int e = -errno;

		bench_syserr(e, "create a work directory in", c->workdir_parent);
		free(tmpl);
		return e;
	}
	c->workdir = realpath(tmpl, NULL);
	free(tmpl);
	if (!c->workdir)
		return bench_syserr(-errno, "resolve", "work directory"), -ENOENT;
	sd = bench_path_join(c->workdir, "mnt/dst");
	if (!shell_safe(sd) || !shell_safe(c->src)) {
		bench_err("paths '%s' and '%s' must not contain spaces or shell characters "
			  "(they are pasted into the commands)", c->src, sd);
		free(sd);
		return -EINVAL;
	}
	free(sd);
	if (!strncmp(c->workdir, c->src, ls) && c->workdir[ls] == '/') {
		bench_err("the work directory '%s' is inside the source '%s'", c->workdir, c->src);
		return -EINVAL;
	}
	return 0;
}

static void remove_workdir(struct cmp *c)
{
	dev_t dev;

	if (!c->workdir || dev_of(c->workdir, &dev) < 0)
		return;
	int ret = bench_rmtree_at(AT_FDCWD, c->workdir, dev);

	if (ret < 0)
		bench_syserr(ret, "remove", c->workdir);
}

struct cmp_args {
	bool cold, warm, seeded;
};

static int parse_options(int argc, char **argv, struct cmp *c, struct cmp_args *a)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'u' },
		{ "seed", required_argument, NULL, 'S' },
		{ "cold", no_argument, NULL, 'c' },
		{ "warm", no_argument, NULL, 'w' },
		{ "prepare", required_argument, NULL, 'p' },
		{ "mutate", required_argument, NULL, 'm' },
		{ "fresh-fs", required_argument, NULL, 'f' },
		{ "source-latency", required_argument, NULL, 'L' },
		{ "write-limit", required_argument, NULL, 'W' },
		{ "fs-size", required_argument, NULL, 'z' },
		{ "work-dir", required_argument, NULL, 'd' },
		{ "json", required_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int o;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'r':
			if (bench_parse_uint(optarg, &v) < 0 || v < 1 || v > 1000)
				return bench_err("invalid --rounds '%s' (1 to 1000)", optarg), -EINVAL;
			c->rounds = (int)v;
			break;
		case 'u':
			if (bench_parse_uint(optarg, &v) < 0 || v > 100)
				return bench_err("invalid --warmup '%s' (0 to 100)", optarg), -EINVAL;
			c->warmup = (int)v;
			break;
		case 'S':
			if (bench_parse_uint(optarg, &v) < 0 || v > UINT32_MAX)
				return bench_err("invalid --seed '%s' (0 to %u)", optarg, UINT32_MAX),
				       -EINVAL;
			c->seed = v;
			a->seeded = true;
			break;
		case 'c': a->cold = true; break;
		case 'w': a->warm = true; break;
		case 'f':
			if (!freshfs_supported(optarg))
				return bench_err("unknown --fresh-fs '%s' (xfs, ext4 or btrfs)", optarg),
				       -EINVAL;
			c->fresh_fs = optarg;
			break;
		case 'z':
			if (bench_parse_size(optarg, &c->fs_size) < 0 || c->fs_size < 64 * BENCH_MiB)
				return bench_err("invalid --fs-size '%s' (at least 64M)", optarg), -EINVAL;
			break;
		case 'L': {
			char *end;
			c->latency_ms = strtod(optarg, &end);
			if (end == optarg || *end || !(c->latency_ms >= 0 && c->latency_ms <= 10000))
				return bench_err("invalid --source-latency '%s' (0 to 10000 ms)", optarg),
				       -EINVAL;
			break;
		}
		case 'W':
			if (bench_parse_size(optarg, &c->wl.rate) < 0 || c->wl.rate < 64 * 1024)
				return bench_err("invalid --write-limit '%s' (64K at least)", optarg),
				       -EINVAL;
			break;
		case 'p': c->prepare = optarg; break;
		case 'm': c->mutate = optarg; break;
		case 'd': c->workdir_parent = optarg; break;
		case 'j': c->json_path = optarg; break;
		case 's': c->svg_path = optarg; break;
		case 'h': compare_usage(stdout); return 1;
		default: compare_usage(stderr); return -EINVAL;
		}
	}
	return 0;
}

/* SRC and the commands: argv after options is SRC CMD1 CMD2 ... */
static int parse_operands(int argc, char **argv, bool dashdash, struct cmp *c)
{
	char *src;

	if (!dashdash) {
		bench_err("missing '--' between SRC and the commands");
		return -EINVAL;
	}
	if (argc - optind < 2) {
		bench_err(argc - optind < 1 ? "missing SRC" : "no commands after '--'");
		return -EINVAL;
	}
	src = realpath(argv[optind], NULL);
	if (!src)
		return bench_syserr(-errno, "use source", argv[optind]), -ENOENT;
	c->src = src;
	c->ncmd = argc - optind - 1;
	c->cmds = bench_xmalloc(sizeof(*c->cmds) * c->ncmd);
	for (int i = 0; i < c->ncmd; i++) {
		c->cmds[i].tmpl = argv[optind + 1 + i];
		c->cmds[i].nruns = 0;
		c->cmds[i].runs = calloc(c->rounds, sizeof(struct cmp_run));
	}
	return check_commands(c);
}

/* Without --seed, the order is drawn from the cache mode, SRC, the
 * commands and --prepare and --mutate where given (FNV-1a): the same table
 * made again runs in the same order, and tables of the other mode, other
 * workloads or other commands in other orders. */
static uint32_t fnv1a(uint32_t h, const char *s)
{
	for (;; s++) {
		h = (h ^ (unsigned char)*s) * 16777619u;
		if (!*s)
			return h;
	}
}

static uint32_t default_seed(const struct cmp *c)
{
	uint32_t h = fnv1a(2166136261u, c->cold ? "cold" : "warm");

	h = fnv1a(h, c->src);
	for (int i = 0; i < c->ncmd; i++)
		h = fnv1a(h, c->cmds[i].tmpl);
	if (c->prepare)
		h = fnv1a(fnv1a(h, "--prepare"), c->prepare);
	if (c->mutate)
		h = fnv1a(fnv1a(h, "--mutate"), c->mutate);
	return h;
}

/* Root, the cache policy and the source; messages for what cannot work. */
static int check_setup(struct cmp *c, const struct cmp_args *a)
{
	struct statx stx;
	int ret = fcp_sys_statx(AT_FDCWD, c->src, 0, STATX_TYPE, &stx);

	if (ret < 0)
		return bench_syserr(ret, "use source", c->src), ret;
	if (!S_ISDIR(stx.stx_mode))
		return bench_err("source '%s' is not a directory", c->src), -ENOTDIR;
	if (a->cold && a->warm)
		return bench_err("--cold and --warm exclude each other"), -EINVAL;
	if (c->fresh_fs && !bench_is_root())
		return bench_err("--fresh-fs needs root (mkfs, loop devices, mount)"), -EPERM;
	if (c->wl.rate && !c->fresh_fs)
		return bench_err("--write-limit needs --fresh-fs: the limit is on the device"), -EINVAL;
	if (c->wl.rate && wlimit_setup(&c->wl, c->wl.rate) < 0)
		return -ENOTSUP;
	if (c->latency_ms >= 0 && !latfs_available())
		return bench_err("--source-latency needs a build with libfuse3 and /dev/fuse"),
		       -ENOTSUP;
	c->cold = a->cold || (!a->warm && bench_is_root());
	if (!a->seeded)
		c->seed = default_seed(c);
	c->cache_dropped = c->cold;
	if (c->cold && !bench_is_root()) {
		c->cache_dropped = false;
		snprintf(c->warning, sizeof(c->warning), "--cold without root: the page cache "
			 "was NOT dropped; these are warm-cache numbers");
	}
	/* Dropping the page cache slows every other program on the machine
	 * for a while: a root user who did not ask for --cold (it is the
	 * default) is told so once, before the first drop. */
	if (c->cold && bench_is_root())
		fprintf(stderr, "fastcp-bench: --cold: the page cache of the whole machine is "
			"dropped before each run (--warm keeps it)\n");
	ret = bench_tree_stats(c->src, &c->st);
	if (ret < 0)
		return bench_syserr(ret, "read source", c->src), ret;
	if (c->fresh_fs && !c->fs_size) {
		/* Room for the data, the filesystem's own log, and per file what
		 * XFS holds while the file's data waits in the page cache: its
		 * delayed allocation reserves the worst case of the mapping
		 * blocks too. A fast copy of 100,000 small files (small at
		 * scale 2: 0.9 GB) had 2.4 GB reserved at its peak, and a run
		 * of a 2.5 GB filesystem failed for want of space (cp -a
		 * reached 2.3 GB). Space unused costs nothing: the image is
		 * sparse. */
		c->fs_size = c->st.bytes * 3 / 2 + c->st.files * 32768 + 512 * BENCH_MiB;
	}
	return 0;
}

/* What parse_operands() and make_workdir() allocated. */
static void cmp_free(struct cmp *c)
{
	for (int i = 0; c->cmds && i < c->ncmd; i++) {
		for (int r = 0; r < c->cmds[i].nruns; r++)
			free(c->cmds[i].runs[r].error);
		free(c->cmds[i].runs);
	}
	free(c->cmds);
	wlimit_release(&c->wl);
	if (c->cmd_src != c->src)
		free(c->cmd_src);
	free((char *)c->src);
	free(c->workdir);
}

/* --source-latency: the server for the session, in the work directory. */
static int start_latency(struct cmp *c)
{
	char *mnt;
	int ret;

	c->cmd_src = (char *)c->src;
	if (c->latency_ms < 0)
		return 0;
	mnt = bench_path_join(c->workdir, "source");
	ret = fcp_sys_mkdirat(AT_FDCWD, mnt, 0700);
	if (ret == 0)
		ret = latfs_start(&c->lat, c->src, mnt, c->latency_ms);
	if (ret < 0) {
		bench_syserr(ret, "serve the source with latency at", mnt);
		free(mnt);
		return ret;
	}
	c->cmd_src = mnt;
	return 0;
}

static int compare(struct cmp *c)
{
	int ret;

	bench_signals_install();
	bench_run_set_hook(wlimit_join, &c->wl);
	ret = start_latency(c);
	if (ret == 0)
		ret = run_session(c);
	latfs_stop(&c->lat);
	remove_workdir(c);
	bench_signals_reraise();
	if (c->cmds[0].nruns == 0)
		return FCP_EXIT_PARTIAL;
	cmp_print_report(c);
	if (c->json_path && cmp_write_json(c))
		ret = -EIO;
	if (c->svg_path && cmp_write_svg(c))
		ret = -EIO;
	for (int i = 0; i < c->ncmd; i++)
		for (int r = 0; r < c->cmds[i].nruns; r++)
			if (!c->cmds[i].runs[r].ok)
				ret = ret < 0 ? ret : 1;
	return ret ? FCP_EXIT_PARTIAL : FCP_EXIT_OK;
}

int bench_compare_main(int argc, char **argv)
{
	struct cmp c = { .rounds = 3, .latency_ms = -1 };
	struct cmp_args a = { 0 };
	bool dashdash = false;
	char *parent = NULL;
	int ret;

	for (int i = 1; i < argc; i++)
		dashdash |= !strcmp(argv[i], "--");
	ret = parse_options(argc, argv, &c, &a);
	if (ret)
		return ret > 0 ? -1 : FCP_EXIT_USAGE;
	if (parse_operands(argc, argv, dashdash, &c) < 0 || check_setup(&c, &a) < 0) {
		cmp_free(&c);
		return FCP_EXIT_USAGE;
	}
	if (!c.workdir_parent) {
		char *slash = strrchr(c.src, '/');

		c.workdir_parent = slash == c.src ? "/" : (parent = strndup(c.src, slash - c.src));
	}
	if (make_workdir(&c) < 0) {
		remove_workdir(&c);
		ret = FCP_EXIT_USAGE;
	} else {
		ret = compare(&c);
	}
	cmp_free(&c);
	free(parent);
	return ret;
}
