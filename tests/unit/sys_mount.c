/* Unit tests for fcp_sys_mount_id (sys.c), which --delete uses to tell a
 * mount point inside DEST from a directory of DEST's own mount: a name and
 * a descriptor of the same directory give one id; a directory and another
 * mounted below it (/proc below /) give two; a symlink is asked about
 * itself when not followed. */
#include "check.h"
#include "base/sys.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

int main(void)
{
	uint64_t root = 0, root_fd = 0, proc = 0, self = 0;
	int fd = fcp_sys_openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY, 0);

	CHECK(fd >= 0);
	CHECK(fcp_sys_mount_id(AT_FDCWD, "/", 0, &root) == 0);
	CHECK(fcp_sys_mount_id(fd, "", AT_EMPTY_PATH, &root_fd) == 0);
	CHECK(root == root_fd);
	if (fcp_sys_mount_id(AT_FDCWD, "/proc", 0, &proc) < 0) {
		printf("no /proc here: the mount below / is not tried\n");
		return 77;
	}
	CHECK(proc != root);
	/* /proc/self is a symlink in /proc: not followed, it is on /proc. */
	CHECK(fcp_sys_mount_id(AT_FDCWD, "/proc/self", AT_SYMLINK_NOFOLLOW, &self) == 0);
	CHECK(self == proc);
	CHECK(fcp_sys_mount_id(AT_FDCWD, "/nonexistent-fcp", 0, &self) == -ENOENT);
	close(fd);
	CHECK_DONE();
}
