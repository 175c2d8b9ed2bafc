/*
 * tree.c - listing, counting, reading and removing directory trees.
 *
 * Every walk opens directories relative to their parent with O_NOFOLLOW,
 * so a symlink is always treated as a leaf: removal can never escape the
 * tree it was given, and counting never loops.
 */
#include "bench.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/sys.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW)

static int dirent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct bench_dirent *)a)->name,
		      ((const struct bench_dirent *)b)->name);
}

int bench_dir_read(int dfd, struct bench_dirent **ents, size_t *n)
{
	int fd = dup(dfd);
	DIR *d;
	struct dirent *de;
	size_t cap = 16, cnt = 0;
	struct bench_dirent *v;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		int e = errno;

		close(fd);
		return -e;
	}
	rewinddir(d);
	v = bench_xmalloc(cap * sizeof(*v));
	for (errno = 0; (de = readdir(d)); errno = 0) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		v = bench_xgrow(v, &cap, cnt, sizeof(*v));
		v[cnt].name = bench_xstrdup(de->d_name);
		v[cnt++].type = de->d_type;
	}
	if (errno) {
		int e = errno;

		closedir(d);
		bench_dir_free(v, cnt);
		return -e;
	}
	closedir(d);
	qsort(v, cnt, sizeof(*v), dirent_cmp);
	*ents = v;
	*n = cnt;
	return 0;
}

void bench_dir_free(struct bench_dirent *ents, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ents[i].name);
	free(ents);
}

static int rm_children(int fd, dev_t dev)
{
	struct bench_dirent *ents;
	size_t n;
	int ret = bench_dir_read(fd, &ents, &n);

	if (ret < 0)
		return ret;
	for (size_t i = 0; ret >= 0 && i < n; i++)
		ret = bench_rmtree_at(fd, ents[i].name, dev);
	bench_dir_free(ents, n);
	return ret;
}

int bench_rmtree_at(int dfd, const char *name, dev_t dev)
{
	struct statx stx;
	int ret = fcp_sys_statx(dfd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &stx);
	int fd;

	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	/* Something mounted inside a destination is not ours to delete. */
	if (makedev(stx.stx_dev_major, stx.stx_dev_minor) != dev)
		return -EXDEV;
	if (!S_ISDIR(stx.stx_mode))
		return fcp_sys_unlinkat(dfd, name, 0);
	fd = fcp_sys_openat(dfd, name, DIR_FLAGS, 0);
	if (fd < 0)
		return fd;
	ret = rm_children(fd, dev);
	fcp_sys_close(fd);
	if (ret < 0)
		return ret;
	return fcp_sys_unlinkat(dfd, name, AT_REMOVEDIR);
}

/* Visit every entry below fd; fn sees the directory fd, the name and statx. */
typedef int (*visit_fn)(int dfd, const char *name, const struct statx *stx, void *ctx);

static int walk(int fd, visit_fn fn, void *ctx)
{
	struct bench_dirent *ents;
	size_t n;
	int ret = bench_dir_read(fd, &ents, &n);

	if (ret < 0)
		return ret;
	for (size_t i = 0; ret >= 0 && i < n; i++) {
		struct statx stx;
		int sub;

		ret = fcp_sys_statx(fd, ents[i].name, AT_SYMLINK_NOFOLLOW,
				    STATX_TYPE | STATX_SIZE, &stx);
		if (ret < 0)
			break;
		ret = fn(fd, ents[i].name, &stx, ctx);
		if (ret < 0 || !S_ISDIR(stx.stx_mode))
			continue;
		sub = fcp_sys_openat(fd, ents[i].name, DIR_FLAGS, 0);
		if (sub < 0) {
			ret = sub;
			break;
		}
		ret = walk(sub, fn, ctx);
		fcp_sys_close(sub);
	}
	bench_dir_free(ents, n);
	return ret;
}

static int walk_path(const char *path, visit_fn fn, void *ctx)
{
	int fd = fcp_sys_openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY, 0);
	int ret;

	if (fd < 0)
		return fd;
	ret = walk(fd, fn, ctx);
	fcp_sys_close(fd);
	return ret;
}

static int count_one(int dfd, const char *name, const struct statx *stx, void *ctx)
{
	struct bench_tree_stats *st = ctx;

	if (S_ISDIR(stx->stx_mode)) {
		st->dirs++;
		return 0;
	}
	st->files++;
	if (S_ISREG(stx->stx_mode))
		st->bytes += stx->stx_size;
	return 0;
}

int bench_tree_stats(const char *path, struct bench_tree_stats *st)
{
	memset(st, 0, sizeof(*st));
	return walk_path(path, count_one, st);
}

static int read_one(int dfd, const char *name, const struct statx *stx, void *ctx)
{
	char *buf = ctx;
	int fd;
	ssize_t r;

	if (!S_ISREG(stx->stx_mode))
		return 0;
	fd = fcp_sys_openat(dfd, name, O_RDONLY | O_NOFOLLOW, 0);
	if (fd < 0)
		return fd;
	while ((r = fcp_sys_read_full(fd, buf, BENCH_MiB)) > 0)
		;
	fcp_sys_close(fd);
	return r < 0 ? (int)r : 0;
}

int bench_tree_read(const char *path)
{
	char *buf = bench_xmalloc(BENCH_MiB);
	int ret = walk_path(path, read_one, buf);

	free(buf);
	return ret;
}
