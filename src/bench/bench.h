/*
 * bench.h - what the fastcp-bench modules share.
 *
 * fastcp-bench has six modes (gen, compare, disk, files, floor, seekfs); each lives in its
 * own file and exposes one bench_<mode>_main(). The helpers below are the
 * small vocabulary they have in common: error messages in the project's
 * style, size parsing, directory listing and safe tree removal. Functions
 * that touch the system return a non-negative value or -errno, like sys.h.
 */
#ifndef FCP_BENCH_H
#define FCP_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fastcp.h"

#define BENCH_KiB 1024ULL
#define BENCH_MiB (1024ULL * 1024)
#define BENCH_GiB (1024ULL * 1024 * 1024)
/* Throughput figures use decimal megabytes, said so under every table. */
#define BENCH_MB 1e6

int bench_gen_main(int argc, char **argv);
int bench_compare_main(int argc, char **argv);
int bench_disk_main(int argc, char **argv);
int bench_files_main(int argc, char **argv);
int bench_floor_main(int argc, char **argv);
int bench_seekfs_main(int argc, char **argv);

/* "fastcp-bench: <message>" on stderr. */
void bench_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "fastcp-bench: cannot <what> '<path>': <strerror(-neg)>"; returns 1. */
int bench_syserr(int neg, const char *what, const char *path);

/* "64M", "1G", "4k", "512" (bytes); binary multiples. 0 ok, -EINVAL bad. */
int bench_parse_size(const char *s, uint64_t *out);
int bench_parse_uint(const char *s, uint64_t *out);
int bench_parse_double(const char *s, double *out);
/* "1 KiB", "64 MiB": a short human label for a power-of-two size. */
void bench_size_label(uint64_t bytes, char *buf, size_t len);

void *bench_xmalloc(size_t n);
char *bench_xstrdup(const char *s);
/* p, an array of *cap elements of size each, with room for element n:
 * doubled (from 16) when full. Out of memory exits, as bench_xmalloc. */
void *bench_xgrow(void *p, size_t *cap, size_t n, size_t each);
/* a + "/" + b, malloc'd. */
char *bench_path_join(const char *a, const char *b);
bool bench_is_root(void);
/* Page-aligned buffer for O_DIRECT, filled with incompressible bytes. */
void *bench_aligned_buf(size_t len, uint64_t seed);

/* One directory entry, as listed by bench_dir_read(). */
struct bench_dirent {
	char *name;
	unsigned char type; /* DT_* from getdents, DT_UNKNOWN possible */
};

/* List dfd's entries (without . and ..), sorted by name. */
int bench_dir_read(int dfd, struct bench_dirent **ents, size_t *n);
void bench_dir_free(struct bench_dirent *ents, size_t n);

/*
 * Remove name (under dfd) and everything beneath it, never following a
 * symlink and never crossing onto another filesystem than dev. Only ever
 * called on paths fastcp-bench created itself.
 */
int bench_rmtree_at(int dfd, const char *name, dev_t dev);

/* Totals of a tree, counted without following symlinks. */
struct bench_tree_stats {
	uint64_t files;  /* every non-directory entry */
	uint64_t dirs;
	uint64_t bytes;  /* sizes of regular files */
};
int bench_tree_stats(const char *path, struct bench_tree_stats *st);
/* Read every regular file once, so that a --warm run finds it cached. */
int bench_tree_read(const char *path);

/*
 * Compare the tree at dst with the tree at src: the same names, types,
 * sizes, bytes and symlink targets. Returns 0 when equal, 1 when different
 * (a description of the first difference in why), or -errno.
 */
int bench_verify(const char *src, const char *dst, char *why, size_t whylen);

/*
 * A fresh directory PREFIX.XXXXXX inside path (which must be a directory),
 * opened as *fd; everything a mode creates goes in there.
 */
int bench_make_workdir(const char *path, const char *prefix, char **workdir, int *fd);
/* Close fd and remove the work directory with everything in it; frees it. */
void bench_remove_workdir(char *workdir, int fd);
/* syncfs(2): flush the whole filesystem fd is on. 0 or -errno. */
int bench_syncfs(int fd);
/* The filesystem type of path ("ext4", "xfs", "tmpfs", ...). */
const char *bench_fs_name(const char *path);

#endif
