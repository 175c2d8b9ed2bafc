/*
 * gen_links.c - the `links` kind: every link a copier must get right.
 *
 *   data/        plain files and a subdirectory, the link targets
 *   links/       file and directory symlinks: relative and absolute,
 *                inside the tree and outside it, dangling, and loops
 *   hard/        hard links across directories (and into data/)
 *   sparse/      leading, trailing, both-ends and all-hole sparse files
 *   xattr/       a file with user.* extended attributes
 *   special/     a FIFO
 *
 * Outside targets live in DIR.outside, created beside DIR, because a link
 * that leaves the tree must point at something real to be tested. Absolute
 * targets contain DIR's absolute path, so two trees are byte-identical only
 * when generated at the same path.
 */
#include "bench.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen.h"
#include "base/sys.h"

#define SPARSE_HOLE (1024 * 1024)
#define SPARSE_DATA (64 * 1024)

static int link_at(struct gen *g, int dfd, const char *target, const char *name)
{
	int ret = fcp_sys_symlinkat(target, dfd, name);

	if (ret < 0)
		return bench_syserr(ret, "create symlink", name), ret;
	g->links++;
	return 0;
}

/* The outside targets: DIR.outside/target.txt and DIR.outside/targetdir/. */
static int make_outside(struct gen *g, const char *outside)
{
	int fd = gen_open_empty_dir(outside), sub, ret;

	if (fd < 0)
		return fd;
	ret = gen_file(g, fd, "target.txt", 4096, 1000001);
	sub = ret < 0 ? ret : gen_dir(g, fd, "targetdir");
	if (sub >= 0) {
		ret = gen_file(g, sub, "inside.txt", 4096, 1000002);
		fcp_sys_close(sub);
	}
	fcp_sys_close(fd);
	/* The outside tree is not part of DIR: do not count it. */
	g->files -= 2;
	g->bytes -= 8192;
	return sub < 0 ? sub : ret;
}

static int make_symlinks(struct gen *g, const char *abs, const char *base)
{
	int fd = gen_dir(g, g->dfd, "links"), ret = 0;
	char t[2][PATH_MAX + 64];
	const char *names[] = {
		"file_rel_in", "file_abs_in", "dir_rel_in", "dir_abs_in",
		"file_rel_out", "file_abs_out", "dir_rel_out", "dir_abs_out",
		"dangling_rel", "dangling_abs",
	};
	const char *fmts[][2] = {
		{ "../data/file0000", "%s/data/file0000" },
		{ "../data/sub", "%s/data/sub" },
		{ "../../%s.outside/target.txt", "%s.outside/target.txt" },
		{ "../../%s.outside/targetdir", "%s.outside/targetdir" },
		{ "../data/missing", "%s/no/such/file" },
	};

	if (fd < 0)
		return fd;
	for (int i = 0; i < 5 && ret >= 0; i++) {
		snprintf(t[0], sizeof(t[0]), fmts[i][0], base);
		snprintf(t[1], sizeof(t[1]), fmts[i][1], abs);
		ret = link_at(g, fd, t[0], names[2 * i]);
		if (ret >= 0)
			ret = link_at(g, fd, t[1], names[2 * i + 1]);
	}
	if (ret >= 0)
		ret = link_at(g, fd, "loop_b", "loop_a");
	if (ret >= 0)
		ret = link_at(g, fd, "loop_a", "loop_b");
	if (ret >= 0)
		ret = link_at(g, fd, "self_loop", "self_loop");
	if (ret >= 0) /* a chain: link to a link to a file */
		ret = link_at(g, fd, "file_rel_in", "chain");
	fcp_sys_close(fd);
	return ret;
}

static int make_data(struct gen *g, uint64_t n)
{
	int fd = gen_dir(g, g->dfd, "data"), sub, ret = 0;
	char name[32];

	if (fd < 0)
		return fd;
	for (uint64_t i = 0; i < n && ret >= 0; i++) {
		snprintf(name, sizeof(name), "file%04llu", (unsigned long long)i);
		ret = gen_file(g, fd, name, gen_size(g, i, 16e3, 1.0, BENCH_MiB), i);
	}
	sub = ret < 0 ? ret : gen_dir(g, fd, "sub");
	if (sub >= 0) {
		ret = gen_file(g, sub, "inner.txt", 1000, 900000);
		fcp_sys_close(sub);
	}
	fcp_sys_close(fd);
	return sub < 0 ? sub : ret;
}

static int make_hardlinks(struct gen *g)
{
	int top = gen_dir(g, g->dfd, "hard");
	int a = top < 0 ? top : gen_dir(g, top, "a");
	int b = a < 0 ? a : gen_dir(g, top, "b");
	int ret = b;

	if (ret >= 0)
		ret = gen_file(g, a, "original", 10000, 900001);
	/* Three names for one inode, in two directories, plus one into data/. */
	if (ret >= 0)
		ret = fcp_sys_linkat(a, "original", b, "second_name", 0);
	if (ret >= 0)
		ret = fcp_sys_linkat(a, "original", a, "third_name", 0);
	if (ret >= 0)
		ret = fcp_sys_linkat(g->dfd, "data/file0001", b, "data_file0001", 0);
	if (ret < 0)
		bench_syserr(ret, "create hard link in", "hard");
	if (a >= 0)
		fcp_sys_close(a);
	if (b >= 0)
		fcp_sys_close(b);
	if (top >= 0)
		fcp_sys_close(top);
	return ret;
}

/* data at off..off+SPARSE_DATA in a file of total length len */
static int sparse_file(struct gen *g, int dfd, const char *name, off_t off, off_t len,
		       bool data)
{
	int fd = fcp_sys_openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
	int ret = fd;

	if (fd < 0)
		return bench_syserr(fd, "create", name), fd;
	if (data) {
		memset(g->buf, 0x5a, SPARSE_DATA);
		ret = (int)fcp_sys_pwrite_full(fd, g->buf, SPARSE_DATA, off);
		g->bytes += SPARSE_DATA;
	}
	if (ret >= 0)
		ret = fcp_sys_ftruncate(fd, len);
	if (ret < 0)
		bench_syserr(ret, "write", name);
	fcp_sys_close(fd);
	g->files++;
	return ret < 0 ? ret : 0;
}

static int make_sparse(struct gen *g)
{
	int fd = gen_dir(g, g->dfd, "sparse"), ret;

	if (fd < 0)
		return fd;
	ret = sparse_file(g, fd, "leading_hole", SPARSE_HOLE, SPARSE_HOLE + SPARSE_DATA, true);
	if (ret >= 0)
		ret = sparse_file(g, fd, "trailing_hole", 0, SPARSE_HOLE + SPARSE_DATA, true);
	if (ret >= 0)
		ret = sparse_file(g, fd, "both_ends", SPARSE_HOLE, 2 * SPARSE_HOLE + SPARSE_DATA, true);
	if (ret >= 0)
		ret = sparse_file(g, fd, "all_hole", 0, SPARSE_HOLE, false);
	fcp_sys_close(fd);
	return ret;
}

static int make_xattr_and_fifo(struct gen *g)
{
	int x = gen_dir(g, g->dfd, "xattr"), s, fd, ret;

	if (x < 0)
		return x;
	ret = gen_file(g, x, "with_xattrs", 5000, 900002);
	fd = ret < 0 ? ret : fcp_sys_openat(x, "with_xattrs", O_RDONLY, 0);
	if (fd >= 0) {
		ret = fcp_sys_fsetxattr(fd, "user.fastcp.bench", "deterministic", 13);
		if (ret >= 0)
			ret = fcp_sys_fsetxattr(fd, "user.fastcp.empty", "", 0);
		if (ret == -EOPNOTSUPP) {
			bench_err("warning: '%s' does not support user xattrs; the tree has none",
				  g->dir);
			ret = 0;
		} else if (ret < 0) {
			bench_syserr(ret, "set xattr on", "xattr/with_xattrs");
		}
		fcp_sys_close(fd);
	}
	fcp_sys_close(x);
	s = ret < 0 ? ret : gen_dir(g, g->dfd, "special");
	if (s < 0)
		return s;
	ret = fcp_sys_mknodat(s, "fifo", S_IFIFO | 0644, 0);
	if (ret < 0)
		bench_syserr(ret, "create fifo", "special/fifo");
	else
		g->files++;
	fcp_sys_close(s);
	return ret;
}

int gen_links(struct gen *g)
{
	char *abs = realpath(g->dir, NULL), *outside, *base;
	int ret;

	if (!abs) {
		ret = -errno;
		bench_syserr(ret, "resolve", g->dir);
		return ret;
	}
	base = strrchr(abs, '/') + 1;
	if (!*base) {
		free(abs);
		bench_err("cannot generate the links kind at '/'");
		return -EINVAL;
	}
	outside = bench_xmalloc(strlen(abs) + 16);
	sprintf(outside, "%s.outside", abs);
	ret = make_outside(g, outside);
	if (ret >= 0)
		ret = make_data(g, gen_scaled(g, 40) < 2 ? 2 : gen_scaled(g, 40));
	if (ret >= 0)
		ret = make_symlinks(g, abs, base);
	if (ret >= 0)
		ret = make_hardlinks(g);
	if (ret >= 0)
		ret = make_sparse(g);
	if (ret >= 0)
		ret = make_xattr_and_fifo(g);
	free(outside);
	free(abs);
	return ret;
}
