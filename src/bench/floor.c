/*
 * floor.c - `fastcp-bench floor SRC DST`: the least time any copier of SRC
 * must spend on this destination.
 *
 * The whole tree (directories and regular files) is read into memory first,
 * outside the timing. Then, timed: the directories are made, and N threads
 * write every file from memory with nothing but open(O_CREAT|O_EXCL) of its
 * final name, one write and close (no temporary name, no metadata, no
 * reads), then syncfs(). A copier that also reads its source and keeps its
 * guarantees cannot be faster than this on the same filesystem, so it
 * tells which targets a machine allows (BENCHMARKS.md).
 */
#include "bench.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sys.h"
#include "timing.h"

struct fl_file {
	int dir;
	char *name;
	char *data;
	size_t size;
};

struct floor {
	char **dirs;  /* paths relative to the root, "." first */
	size_t ndirs, capdirs;
	struct fl_file *files;
	size_t nfiles, capfiles;
	uint64_t bytes, skipped;
	int dst_fd;
	atomic_size_t next;
	atomic_int err;
};

/* Read directory dir (index di, open as dfd) and everything beneath it. */
static int load_dir(struct floor *f, int dfd, size_t di)
{
	struct bench_dirent *ents;
	size_t n;
	int r = bench_dir_read(dfd, &ents, &n);

	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct stat st;
		const char *name = ents[i].name;

		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
			bench_syserr(r, "stat", name);
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub = fcp_sys_openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
			if (sub < 0) {
				r = sub;
				bench_syserr(r, "open", name);
				break;
			}
			f->dirs = bench_xgrow(f->dirs, &f->capdirs, f->ndirs, sizeof(*f->dirs));
			f->dirs[f->ndirs] = bench_path_join(f->dirs[di], name);
			r = load_dir(f, sub, f->ndirs++);
			close(sub);
		} else if (S_ISREG(st.st_mode)) {
			int fd = fcp_sys_openat(dfd, name, O_RDONLY | O_NOFOLLOW, 0);
			struct fl_file *e;
			if (fd < 0) {
				r = fd;
				bench_syserr(r, "open", name);
				break;
			}
			f->files = bench_xgrow(f->files, &f->capfiles, f->nfiles, sizeof(*f->files));
			e = &f->files[f->nfiles++];
			*e = (struct fl_file){ .dir = (int)di, .name = bench_xstrdup(name),
					       .size = (size_t)st.st_size };
			e->data = bench_xmalloc(e->size);
			ssize_t got = fcp_sys_read_full(fd, e->data, e->size);
			close(fd);
			if (got != (ssize_t)e->size) {
				bench_err("'%s' changed while it was read", name);
				r = -EIO;
				break;
			}
			f->bytes += e->size;
		} else {
			f->skipped++;
		}
	}
	bench_dir_free(ents, n);
	return r;
}

/* A worker: files in order (they are grouped by directory), each opened
 * relative to its directory, kept open while the files are in it. */
static void *writer(void *arg)
{
	struct floor *f = arg;
	int cur = -1, dfd = -1;
	size_t i;

	while ((i = atomic_fetch_add(&f->next, 1)) < f->nfiles && !atomic_load(&f->err)) {
		struct fl_file *e = &f->files[i];
		int fd, r;

		if (e->dir != cur) {
			if (dfd >= 0)
				close(dfd);
			cur = e->dir;
			dfd = fcp_sys_openat(f->dst_fd, f->dirs[cur], O_RDONLY | O_DIRECTORY, 0);
			if (dfd < 0) {
				atomic_store(&f->err, dfd);
				break;
			}
		}
		fd = fcp_sys_openat(dfd, e->name, O_WRONLY | O_CREAT | O_EXCL, 0644);
		r = fd < 0 ? fd : (int)fcp_sys_write_full(fd, e->data, e->size);
		if (fd >= 0 && fcp_sys_close(fd) < 0 && r >= 0)
			r = -EIO;
		if (r < 0)
			atomic_store(&f->err, r);
	}
	if (dfd >= 0)
		close(dfd);
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: fastcp-bench floor [--threads N] SRC DST\n"
		     "  Read SRC into memory, then time writing it to the new directory DST\n"
		     "  (create, write, close per file; N threads, default 2) and syncfs.\n");
}

static int floor_main(struct floor *f, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	uint64_t threads = 2;
	pthread_t tid[64];
	double t0, t1, t2, tl;
	int o, src_fd, r;

	while ((o = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		if (o == 'h') {
			usage(stdout);
			return FCP_EXIT_OK;
		}
		if (o != 'j' || bench_parse_uint(optarg, &threads) < 0 || !threads || threads > 64) {
			usage(stderr);
			return FCP_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return FCP_EXIT_USAGE;
	}
	src_fd = fcp_sys_openat(AT_FDCWD, argv[optind], O_RDONLY | O_DIRECTORY, 0);
	if (src_fd < 0)
		return bench_syserr(src_fd, "open", argv[optind]);
	tl = bench_now();
	f->dirs = bench_xgrow(NULL, &f->capdirs, 0, sizeof(*f->dirs));
	f->dirs[f->ndirs++] = bench_xstrdup(".");
	r = load_dir(f, src_fd, 0);
	close(src_fd);
	if (r < 0)
		return FCP_EXIT_PARTIAL;
	tl = bench_now() - tl;

	t0 = bench_now();
	r = fcp_sys_mkdirat(AT_FDCWD, argv[optind + 1], 0755);
	f->dst_fd = r < 0 ? r : fcp_sys_openat(AT_FDCWD, argv[optind + 1], O_RDONLY | O_DIRECTORY, 0);
	if (f->dst_fd < 0)
		return bench_syserr(f->dst_fd, "make", argv[optind + 1]);
	for (size_t i = 1; i < f->ndirs; i++) {
		r = fcp_sys_mkdirat(f->dst_fd, f->dirs[i], 0755);
		if (r < 0)
			return bench_syserr(r, "make", f->dirs[i]);
	}
	uint64_t started = 0;
	for (; started < threads; started++) {
		r = pthread_create(&tid[started], NULL, writer, f);
		if (r) {
			/* Fewer writers would measure something else: stop. */
			atomic_store(&f->err, -r);
			break;
		}
	}
	for (uint64_t i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	t1 = bench_now();
	if (started < threads)
		return bench_syserr(-r, "start", "a writer thread");
	if ((r = atomic_load(&f->err)) < 0)
		return bench_syserr(r, "write into", argv[optind + 1]);
	r = bench_syncfs(f->dst_fd);
	t2 = bench_now();
	if (r < 0)
		return bench_syserr(r, "sync", argv[optind + 1]);
	printf("floor: %zu files, %zu directories, %.1f MB (%llu other entries left out); "
	       "loaded in %.3f s\n",
	       f->nfiles, f->ndirs, f->bytes / BENCH_MB, (unsigned long long)f->skipped, tl);
	printf("floor: %llu threads: write %.3f s, sync %.3f s, total %.3f s\n",
	       (unsigned long long)threads, t1 - t0, t2 - t1, t2 - t0);
	return FCP_EXIT_OK;
}

/* Everything the run loaded, on every way out. */
static void floor_free(struct floor *f)
{
	if (f->dst_fd >= 0)
		close(f->dst_fd);
	for (size_t i = 0; i < f->nfiles; i++)
		free(f->files[i].name), free(f->files[i].data);
	for (size_t i = 0; i < f->ndirs; i++)
		free(f->dirs[i]);
	free(f->files);
	free(f->dirs);
}

int bench_floor_main(int argc, char **argv)
{
	struct floor f = { .dst_fd = -1 };
	int r = floor_main(&f, argc, argv);

	floor_free(&f);
	return r;
}
