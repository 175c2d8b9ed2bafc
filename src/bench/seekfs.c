/*
 * seekfs.c - `fastcp-bench seekfs [OPTIONS] IMAGE MOUNTPOINT`: one image
 * file served through FUSE as a seeking disk would serve it, so that the
 * order in which a tool reads a rotational source can be studied without
 * one (scripts/bench-rotational.sh: a filesystem image read through a
 * read-only loop device on MOUNTPOINT/image, marked rotational).
 *
 * One head, one read at a time (the server is single-threaded: reads are
 * served in the order the kernel queues them). A read that starts where
 * the previous one ended pays only its transfer at --rate; one that starts
 * elsewhere first pays a seek, settle + full stroke x sqrt(distance /
 * span), capped at the full stroke, plus half a rotation on average. A
 * short skip forward costs no more than the time for the gap to pass under
 * the head: the disk reads on instead of seeking, as a track buffer does.
 * The cost is charged on a clock of the head's own (the next read starts
 * when the previous one is done), so oversleeping does not add up.
 *
 * The image is mapped and locked in memory where possible, so that the
 * real reads behind the model cost nothing that varies and drop_caches
 * leaves them alone. MOUNTPOINT/stats tells what the head did so far, as
 * "name value" lines: reads, bytes, seeks, and the time charged for
 * positioning and in all (ns), the figures that do not depend on how
 * noisy the machine is.
 */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "latfs.h"
#include "timing.h"

#if HAVE_FUSE3
#define FUSE_USE_VERSION 35
#include <fuse.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

struct seek_model {
	double settle_s, stroke_s, half_turn_s, rate; /* rate: bytes/s */
	uint64_t span;                                 /* bytes of a full stroke */
};

/* Seconds to position the head from the end of the previous read (head)
 * to off: 0 when sequential. */
static double seek_cost(const struct seek_model *m, uint64_t head, uint64_t off)
{
	uint64_t d = off > head ? off - head : head - off;
	double s;

	if (d == 0)
		return 0;
	s = m->settle_s + m->stroke_s * sqrt((double)d / (double)m->span);
	if (s > m->stroke_s)
		s = m->stroke_s;
	s += m->half_turn_s;
	if (off > head && (double)d / m->rate < s)
		s = (double)d / m->rate; /* reading on past the gap is quicker */
	return s;
}

static struct {
	struct seek_model m;
	const char *data; /* the image, mapped */
	uint64_t size;
	uint64_t head;    /* where the previous read ended */
	double free_at;   /* when the head is done with the reads so far */
	uint64_t reads, bytes, seeks;
	double seek_s, busy_s;
} sk;

static void wait_until(double at)
{
	struct timespec ts = { (time_t)at, (long)((at - (time_t)at) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
}

static int stats_text(char *buf, size_t len)
{
	return snprintf(buf, len,
			"reads %llu\nbytes %llu\nseeks %llu\nseek_ns %llu\nbusy_ns %llu\n",
			(unsigned long long)sk.reads, (unsigned long long)sk.bytes,
			(unsigned long long)sk.seeks, (unsigned long long)(sk.seek_s * 1e9),
			(unsigned long long)(sk.busy_s * 1e9));
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->entry_timeout = cfg->attr_timeout = 3600;
	return NULL;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
	} else if (!strcmp(path, "/image")) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = (off_t)sk.size;
	} else if (!strcmp(path, "/stats")) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = 4096; /* read with direct_io: the size is a bound only */
	} else {
		return -ENOENT;
	}
	return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/image") && strcmp(path, "/stats"))
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	fi->direct_io = !strcmp(path, "/stats"); /* always read anew */
	return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	double seek, now;

	if (!strcmp(path, "/stats")) {
		char text[256];
		int n = stats_text(text, sizeof(text));

		if (off >= n)
			return 0;
		if (size > (size_t)(n - off))
			size = (size_t)(n - off);
		memcpy(buf, text + off, size);
		return (int)size;
	}
	if ((uint64_t)off >= sk.size)
		return 0;
	if (size > sk.size - (uint64_t)off)
		size = (size_t)(sk.size - (uint64_t)off);
	seek = seek_cost(&sk.m, sk.head, (uint64_t)off);
	now = bench_now();
	if (sk.free_at < now)
		sk.free_at = now;
	sk.free_at += seek + (double)size / sk.m.rate;
	sk.reads++;
	sk.bytes += size;
	sk.seeks += seek > 0;
	sk.seek_s += seek;
	sk.busy_s += seek + (double)size / sk.m.rate;
	sk.head = (uint64_t)off + size;
	memcpy(buf, sk.data + off, size);
	wait_until(sk.free_at);
	return (int)size;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	if (strcmp(path, "/"))
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "image", NULL, 0, 0);
	fill(buf, "stats", NULL, 0, 0);
	return 0;
}

static const struct fuse_operations ops = {
	.init = fs_init,
	.getattr = fs_getattr,
	.open = fs_open,
	.read = fs_read,
	.readdir = fs_readdir,
};

/* Map the image, before the server is forked: errors go to the caller. */
static int map_image(const char *image)
{
	int fd = open(image, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return bench_syserr(-errno, "open", image);
	sk.size = (uint64_t)st.st_size;
	sk.data = sk.size ? mmap(NULL, sk.size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0) : "";
	close(fd);
	if (sk.data == MAP_FAILED)
		return bench_syserr(-errno, "map", image);
	if (!sk.m.span)
		sk.m.span = sk.size ? sk.size : 1;
	return 0;
}

/* The server, in a child: serve until unmounted. -s: one thread, one head. */
static int serve(const char *image, const char *mnt)
{
	char *argv[] = { "fastcp-bench-seekfs", "-f", "-s", "-o",
			 "ro,fsname=fastcp-bench-seekfs", (char *)mnt, NULL };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	/* Resident, so that drop_caches before a run leaves the image to the
	 * model alone; without it the model still holds, with some noise. */
	if (sk.size && mlock(sk.data, sk.size) < 0)
		bench_err("cannot lock '%s' in memory (%s): its reads may vary", image,
			  strerror(errno));
	/* Holds none of the caller's pipes: $(fastcp-bench seekfs ...) returns. */
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	return fuse_main(6, argv, &ops, NULL) ? 1 : 0;
}
#else
static int map_image(const char *image)
{
	bench_err("built without libfuse3: seekfs is not available");
	return 1;
}

static int serve(const char *image, const char *mnt)
{
	return 1;
}
#endif

static void seekfs_usage(FILE *f)
{
	fprintf(f,
		"usage: fastcp-bench seekfs [OPTIONS] IMAGE MOUNTPOINT\n"
		"  serves IMAGE as MOUNTPOINT/image, read-only, with the costs of a seeking\n"
		"  disk; returns once mounted and prints the server's pid (umount stops it).\n"
		"  MOUNTPOINT/stats: reads, bytes, seeks, seek_ns and busy_ns so far.\n"
		"  --seek-ms F    full-stroke seek (default 15)\n"
		"  --settle-ms F  the shortest seek (default 1)\n"
		"  --rpm R        spindle speed: half a turn is waited after a seek (default 7200)\n"
		"  --rate SIZE    transfer per second (default 150M)\n"
		"  --span SIZE    the distance of a full stroke (default: IMAGE's size)\n");
}

int bench_seekfs_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seek-ms", required_argument, NULL, 's' },
		{ "settle-ms", required_argument, NULL, 'S' },
		{ "rpm", required_argument, NULL, 'r' },
		{ "rate", required_argument, NULL, 'R' },
		{ "span", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	double seek_ms = 15, settle_ms = 1, rpm = 7200;
	uint64_t rate = 150 * BENCH_MiB, span = 0;
	struct stat st;
	pid_t pid;
	int c, li = 0;

	while ((c = getopt_long(argc, argv, "h", longopts, &li)) != -1) {
		int bad = 0;

		switch (c) {
		case 's': bad = bench_parse_double(optarg, &seek_ms) || seek_ms < 0; break;
		case 'S': bad = bench_parse_double(optarg, &settle_ms) || settle_ms < 0; break;
		case 'r': bad = bench_parse_double(optarg, &rpm) || rpm <= 0; break;
		case 'R': bad = bench_parse_size(optarg, &rate) || rate == 0; break;
		case 'p': bad = bench_parse_size(optarg, &span) || span == 0; break;
		case 'h': seekfs_usage(stdout); return -1;
		default: seekfs_usage(stderr); return FCP_EXIT_USAGE;
		}
		if (bad) {
			bench_err("bad value '%s' for --%s", optarg, longopts[li].name);
			return FCP_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		seekfs_usage(stderr);
		return FCP_EXIT_USAGE;
	}
	if (stat(argv[optind], &st) < 0)
		return bench_syserr(-errno, "stat", argv[optind]);
	if (!S_ISREG(st.st_mode)) {
		bench_err("'%s' is not a regular file", argv[optind]);
		return FCP_EXIT_USAGE;
	}
#if HAVE_FUSE3
	sk.m = (struct seek_model){ settle_ms / 1e3, seek_ms / 1e3, 30.0 / rpm, (double)rate, span };
#endif
	if (map_image(argv[optind]))
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return bench_syserr(-errno, "fork for", argv[optind]);
	if (pid == 0) {
		setsid(); /* outlives the caller's session and its signals */
		_exit(serve(argv[optind], argv[optind + 1]));
	}
	for (int i = 0; i < 1000; i++) { /* 10 s */
		int status;

		if (latfs_mounted(argv[optind + 1])) {
			printf("%d\n", (int)pid);
			return FCP_EXIT_OK;
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			bench_err("cannot serve '%s' at '%s'", argv[optind], argv[optind + 1]);
			return 1;
		}
		usleep(10000);
	}
	kill(pid, SIGKILL);
	bench_err("'%s' was not mounted within 10 s", argv[optind + 1]);
	return 1;
}
