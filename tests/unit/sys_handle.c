/* Unit tests for fcp_sys_reopen_through (sys.c), which srcmount.c uses to
 * place a directory that a bind mount shows elsewhere: a directory (and a
 * file) opened again through the mount of another directory is the same
 * inode, and ".." of the directory leads to its parent in the filesystem.
 * Skipped where handles cannot be opened (not root, a filesystem
 * without them). */
#include "check.h"
#include "base/sys.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static bool same(int a, int b)
{
	struct statx x, y;

	return fcp_sys_fstatx(a, &x) == 0 && fcp_sys_fstatx(b, &y) == 0 &&
	       x.stx_ino == y.stx_ino && x.stx_dev_major == y.stx_dev_major &&
	       x.stx_dev_minor == y.stx_dev_minor;
}

int main(void)
{
	char top[] = "/tmp/fcp-handle.XXXXXX";
	int t, a, b, f, r, up;

	if (!mkdtemp(top))
		return 1;
	t = fcp_sys_openat(AT_FDCWD, top, O_PATH | O_DIRECTORY, 0);
	CHECK(t >= 0);
	CHECK(fcp_sys_mkdirat(t, "a", 0755) == 0);
	a = fcp_sys_openat(t, "a", O_PATH | O_DIRECTORY, 0);
	CHECK(fcp_sys_mkdirat(a, "b", 0755) == 0);
	b = fcp_sys_openat(a, "b", O_PATH | O_DIRECTORY, 0);
	f = fcp_sys_openat(a, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	CHECK(a >= 0 && b >= 0 && f >= 0);
	r = fcp_sys_reopen_through(t, b, O_PATH);
	if (r == -EPERM || r == -EOPNOTSUPP || r == -ENOSYS) {
		printf("file handles cannot be opened here (%d): not tried\n", r);
		rmdir(top); /* best effort: a/b, a/f are left in /tmp */
		return 77;
	}
	CHECK(r >= 0);
	CHECK(same(r, b));
	up = fcp_sys_openat(r, "..", O_PATH | O_DIRECTORY, 0);
	CHECK(up >= 0 && same(up, a));
	close(up);
	close(r);
	/* A file, and a mount descriptor that is O_PATH (taken as a
	 * directory of that mount). */
	r = fcp_sys_reopen_through(a, f, O_RDONLY);
	CHECK(r >= 0 && same(r, f));
	close(r);
	close(f);
	unlinkat(a, "f", 0);
	unlinkat(a, "b", AT_REMOVEDIR);
	unlinkat(t, "a", AT_REMOVEDIR);
	close(b);
	close(a);
	close(t);
	CHECK(rmdir(top) == 0);
	CHECK_DONE();
}
