/*
 * verify.c - is the copy the same tree as the source?
 *
 * A benchmark that times a wrong copy measures nothing, so every compare
 * run is checked here before its time is accepted. The check walks both
 * trees side by side (never following symlinks) and compares names, types,
 * sizes, bytes and symlink targets. Metadata (owner, mode, times, xattrs)
 * is not compared: tools differ in what they keep by default.
 */
#include "bench.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
#define CHUNK (1024 * 1024)

struct vctx {
	char *why;
	size_t whylen;
	char *a, *b; /* two CHUNK buffers */
};

static int differ(struct vctx *v, const char *rel, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(v->why, v->whylen, "'%s': %s", *rel ? rel : ".", msg);
	return 1;
}

static int same_bytes(struct vctx *v, int sfd, int dfd, const char *name, const char *rel)
{
	int a = fcp_sys_openat(sfd, name, O_RDONLY | O_NOFOLLOW, 0);
	int b = a < 0 ? a : fcp_sys_openat(dfd, name, O_RDONLY | O_NOFOLLOW, 0);
	int ret = 0;

	if (a < 0 || b < 0) {
		ret = a < 0 ? a : b;
		goto out;
	}
	for (uint64_t off = 0;; off += CHUNK) {
		ssize_t ra = fcp_sys_read_full(a, v->a, CHUNK);
		ssize_t rb = fcp_sys_read_full(b, v->b, CHUNK);

		if (ra < 0 || rb < 0) {
			ret = ra < 0 ? (int)ra : (int)rb;
			break;
		}
		if (ra != rb || memcmp(v->a, v->b, ra)) {
			ret = differ(v, rel, "content differs near byte %llu",
				     (unsigned long long)off);
			break;
		}
		if (ra < CHUNK)
			break;
	}
out:
	if (a >= 0)
		fcp_sys_close(a);
	if (b >= 0)
		fcp_sys_close(b);
	return ret;
}

static int same_link(struct vctx *v, int sfd, int dfd, const char *name, const char *rel)
{
	char *ta = NULL, *tb = NULL;
	int ret = fcp_sys_readlinkat(sfd, name, &ta);

	if (ret >= 0)
		ret = fcp_sys_readlinkat(dfd, name, &tb);
	if (ret >= 0)
		ret = strcmp(ta, tb) ? differ(v, rel, "symlink target '%s' instead of '%s'", tb, ta) : 0;
	free(ta);
	free(tb);
	return ret;
}

static int verify_dir(struct vctx *v, int sfd, int dfd, const char *rel);

static int verify_entry(struct vctx *v, int sfd, int dfd, const char *name, const char *rel)
{
	struct statx sa, sb;
	unsigned mask = STATX_TYPE | STATX_SIZE;
	int ret = fcp_sys_statx(sfd, name, AT_SYMLINK_NOFOLLOW, mask, &sa);

	if (ret < 0)
		return ret;
	ret = fcp_sys_statx(dfd, name, AT_SYMLINK_NOFOLLOW, mask, &sb);
	if (ret < 0)
		return ret;
	if ((sa.stx_mode & S_IFMT) != (sb.stx_mode & S_IFMT))
		return differ(v, rel, "file type differs");
	if (S_ISREG(sa.stx_mode)) {
		if (sa.stx_size != sb.stx_size)
			return differ(v, rel, "size %llu instead of %llu",
				      (unsigned long long)sb.stx_size,
				      (unsigned long long)sa.stx_size);
		return same_bytes(v, sfd, dfd, name, rel);
	}
	if (S_ISLNK(sa.stx_mode))
		return same_link(v, sfd, dfd, name, rel);
	if (S_ISDIR(sa.stx_mode)) {
		int a = fcp_sys_openat(sfd, name, DIR_FLAGS, 0);
		int b = a < 0 ? a : fcp_sys_openat(dfd, name, DIR_FLAGS, 0);

		ret = (a < 0 || b < 0) ? (a < 0 ? a : b) : verify_dir(v, a, b, rel);
		if (a >= 0)
			fcp_sys_close(a);
		if (b >= 0)
			fcp_sys_close(b);
	}
	return ret;
}

/* Both listings are sorted, so one merge pass finds missing and extra names. */
static int verify_dir(struct vctx *v, int sfd, int dfd, const char *rel)
{
	struct bench_dirent *ea, *eb;
	size_t na, nb, i;
	int ret = bench_dir_read(sfd, &ea, &na);

	if (ret < 0)
		return ret;
	ret = bench_dir_read(dfd, &eb, &nb);
	if (ret < 0) {
		bench_dir_free(ea, na);
		return ret;
	}
	for (i = 0; i < na && i < nb && !ret; i++) {
		char *sub = *rel ? bench_path_join(rel, ea[i].name) : bench_xstrdup(ea[i].name);

		int c = strcmp(ea[i].name, eb[i].name);

		if (c < 0)
			ret = differ(v, sub, "missing from the copy");
		else if (c > 0)
			ret = differ(v, rel, "extra entry '%s' in the copy", eb[i].name);
		else
			ret = verify_entry(v, sfd, dfd, ea[i].name, sub);
		free(sub);
	}
	if (!ret && na > nb) {
		char *sub = *rel ? bench_path_join(rel, ea[nb].name) : bench_xstrdup(ea[nb].name);

		ret = differ(v, sub, "missing from the copy");
		free(sub);
	} else if (!ret && nb > na) {
		ret = differ(v, rel, "extra entry '%s' in the copy", eb[na].name);
	}
	bench_dir_free(ea, na);
	bench_dir_free(eb, nb);
	return ret;
}

int bench_verify(const char *src, const char *dst, char *why, size_t whylen)
{
	struct vctx v = { why, whylen, bench_xmalloc(CHUNK), bench_xmalloc(CHUNK) };
	int a = fcp_sys_openat(AT_FDCWD, src, O_RDONLY | O_DIRECTORY, 0);
	int b = fcp_sys_openat(AT_FDCWD, dst, O_RDONLY | O_DIRECTORY, 0);
	int ret;

	if (a < 0 || b < 0) {
		ret = b == -ENOENT ? differ(&v, "", "the copy does not exist") :
		      b == -ENOTDIR ? differ(&v, "", "the copy is not a directory") :
		      a < 0 ? a : b;
	} else {
		ret = verify_dir(&v, a, b, "");
	}
	if (a >= 0)
		fcp_sys_close(a);
	if (b >= 0)
		fcp_sys_close(b);
	free(v.a);
	free(v.b);
	return ret;
}
