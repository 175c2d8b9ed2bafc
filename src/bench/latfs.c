/*
 * latfs.c - the source of `compare --source-latency MS`: a read-only FUSE
 * passthrough of the source tree that waits MS milliseconds in every round
 * trip (lookup and getattr, open and release, read, opendir, readdir and
 * releasedir, readlink, listxattr and getxattr, statfs), so that a source
 * behind a slow link or a slow device (the seed reports' USB 2.0 disk at
 * ~10 ms per file operation, a network share at ~1 ms) can be studied on
 * any machine with /dev/fuse.
 *
 * It runs in a child of compare (latfs_start), served by up to MAX_THREADS
 * threads, so that round trips a tool sends together wait together: the
 * number in flight is the tool's, not ours. It counts them in memory
 * shared with compare: the round trips of a run, and the average number in
 * flight (the sum of their durations over the run's time), which tells how
 * much latency a tool overlaps.
 *
 * Entries and attributes are cached by the kernel for 1 s, as a network
 * filesystem does by default; --cold drops them with the page cache.
 */
#include "latfs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "timing.h"

#define FUSE_SUPER_MAGIC 0x65735546

#if HAVE_FUSE3
#define FUSE_USE_VERSION 35
#include <dirent.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>

#define MAX_THREADS 512

static int backing = -1;          /* the source directory, O_PATH */
static long delay_ns;
static struct latfs_stats *stats; /* shared with compare */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
}

/* Every handler starts and ends a round trip: the wait is served first,
 * as a slow link or device would, then the real call. */
static uint64_t trip_begin(void)
{
	uint64_t t0 = now_ns();
	unsigned n = atomic_fetch_add(&stats->inflight, 1) + 1;
	unsigned max = atomic_load(&stats->max_inflight);
	struct timespec ts = { delay_ns / 1000000000, delay_ns % 1000000000 };

	while (n > max && !atomic_compare_exchange_weak(&stats->max_inflight, &max, n)) {}
	while (delay_ns && nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
	return t0;
}

static int trip_end(uint64_t t0, int ret)
{
	atomic_fetch_add(&stats->busy_ns, now_ns() - t0);
	atomic_fetch_add(&stats->trips, 1);
	atomic_fetch_sub(&stats->inflight, 1);
	return ret;
}

#define TRIP(expr) do { uint64_t t0_ = trip_begin(); int r_ = (expr); \
	return trip_end(t0_, r_ < 0 ? -errno : r_); } while (0)

/* FUSE paths start with '/'; the backing tree is named relative to it. */
static const char *rel(const char *path)
{
	return path[1] ? path + 1 : ".";
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->use_ino = 1;     /* hard links are found by inode number */
	cfg->readdir_ino = 1;
	cfg->entry_timeout = 1.0;
	cfg->attr_timeout = 1.0;
	cfg->negative_timeout = 1.0;
	cfg->kernel_cache = 1;
	conn->max_background = MAX_THREADS; /* reads ahead in flight together */
	conn->congestion_threshold = MAX_THREADS;
	return NULL;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	TRIP(fi ? fstat(fi->fh, st) : fstatat(backing, rel(path), st, AT_SYMLINK_NOFOLLOW));
}

static int do_readlink(const char *path, char *buf, size_t size)
{
	ssize_t n = readlinkat(backing, rel(path), buf, size - 1);

	if (n >= 0)
		buf[n] = '\0';
	return n < 0 ? -1 : 0;
}

static int fs_readlink(const char *path, char *buf, size_t size)
{
	TRIP(do_readlink(path, buf, size));
}

static int do_open(const char *path, struct fuse_file_info *fi, int flags)
{
	int fd = openat(backing, rel(path), flags | O_CLOEXEC | O_NOFOLLOW);

	fi->fh = fd;
	return fd < 0 ? -1 : 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	TRIP(do_open(path, fi, O_RDONLY));
}

static int fs_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	TRIP(pread(fi->fh, buf, size, off));
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
	TRIP(close(fi->fh));
}

static int fs_opendir(const char *path, struct fuse_file_info *fi)
{
	TRIP(do_open(path, fi, O_RDONLY | O_DIRECTORY));
}

static int do_readdir(void *buf, fuse_fill_dir_t fill, struct fuse_file_info *fi)
{
	int fd = dup(fi->fh);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		struct stat st = { .st_ino = de->d_ino, .st_mode = (mode_t)DTTOIF(de->d_type) };

		if (fill(buf, de->d_name, &st, 0, 0))
			break;
	}
	closedir(d);
	return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	TRIP(do_readdir(buf, fill, fi));
}

static int fs_releasedir(const char *path, struct fuse_file_info *fi)
{
	TRIP(close(fi->fh));
}

/* The xattr calls name the entry through /proc: the backing fd is O_PATH. */
static int proc_name(char *out, const char *path)
{
	int n = snprintf(out, PATH_MAX, "/proc/self/fd/%d/%s", backing, rel(path));

	return n < PATH_MAX ? 0 : (errno = ENAMETOOLONG, -1);
}

static int do_listxattr(const char *path, char *list, size_t size)
{
	char p[PATH_MAX];

	return proc_name(p, path) ? -1 : (int)llistxattr(p, list, size);
}

static int fs_listxattr(const char *path, char *list, size_t size)
{
	TRIP(do_listxattr(path, list, size));
}

static int do_getxattr(const char *path, const char *name, char *val, size_t size)
{
	char p[PATH_MAX];

	return proc_name(p, path) ? -1 : (int)lgetxattr(p, name, val, size);
}

static int fs_getxattr(const char *path, const char *name, char *val, size_t size)
{
	TRIP(do_getxattr(path, name, val, size));
}

static int fs_statfs(const char *path, struct statvfs *sv)
{
	TRIP(fstatvfs(backing, sv));
}

static const struct fuse_operations ops = {
	.init = fs_init,
	.getattr = fs_getattr,
	.readlink = fs_readlink,
	.open = fs_open,
	.read = fs_read,
	.release = fs_release,
	.opendir = fs_opendir,
	.readdir = fs_readdir,
	.releasedir = fs_releasedir,
	.listxattr = fs_listxattr,
	.getxattr = fs_getxattr,
	.statfs = fs_statfs,
};

/* The child: serve until unmounted. */
static int serve(const char *src, const char *mnt, double ms)
{
	char opts[128];

	snprintf(opts, sizeof(opts), "ro,fsname=fastcp-bench-latfs,max_threads=%d", MAX_THREADS);
	char *argv[] = { "fastcp-bench-latfs", "-f", "-o", opts, (char *)mnt, NULL };

	backing = open(src, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (backing < 0)
		return 1;
	delay_ns = (long)(ms * 1e6);
	return fuse_main(5, argv, &ops, NULL) ? 1 : 0;
}
#else
static int serve(const char *src, const char *mnt, double ms)
{
	return 1;
}
#endif

bool latfs_available(void)
{
	return HAVE_FUSE3 && access("/dev/fuse", R_OK | W_OK) == 0;
}

bool latfs_mounted(const char *mnt)
{
	struct statfs sf;

	return statfs(mnt, &sf) == 0 && sf.f_type == FUSE_SUPER_MAGIC;
}

int latfs_start(struct latfs *l, const char *src, const char *mnt, double ms)
{
	l->mnt = mnt;
	l->stats = mmap(NULL, sizeof(*l->stats), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->stats == MAP_FAILED)
		return -errno;
	l->pid = fork();
	if (l->pid < 0)
		return -errno;
	if (l->pid == 0) {
		/* Signals are compare's to handle: it unmounts us. */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
#if HAVE_FUSE3
		stats = l->stats;
#endif
		_exit(serve(src, mnt, ms));
	}
	for (int i = 0; i < 500; i++) { /* 5 s */
		int status;

		if (latfs_mounted(mnt))
			return 0;
		if (waitpid(l->pid, &status, WNOHANG) == l->pid) {
			l->pid = 0;
			return -EIO;
		}
		usleep(10000);
	}
	latfs_stop(l);
	return -ETIMEDOUT;
}

void latfs_stop(struct latfs *l)
{
	if (l->pid > 0) {
		/* Lazy: a tool killed mid-run may leave files open in it. */
		if (umount2(l->mnt, MNT_DETACH) < 0)
			kill(l->pid, SIGKILL);
		while (waitpid(l->pid, NULL, 0) < 0 && errno == EINTR) {}
		l->pid = 0;
	}
	if (l->stats && l->stats != MAP_FAILED)
		munmap(l->stats, sizeof(*l->stats));
	l->stats = NULL;
}

struct latfs_sample latfs_sample(const struct latfs *l)
{
	struct latfs_sample s = { 0 };

	if (l->stats) {
		s.trips = atomic_load(&l->stats->trips);
		s.busy_ns = atomic_load(&l->stats->busy_ns);
	}
	s.at = bench_now();
	return s;
}

void latfs_between(const struct latfs_sample *a, const struct latfs_sample *b,
		   uint64_t *trips, double *inflight)
{
	double wall = b->at - a->at;

	*trips = b->trips - a->trips;
	*inflight = wall > 0 ? (double)(b->busy_ns - a->busy_ns) / 1e9 / wall : 0;
}
