/* Unit tests for fcp_sys_open_regular and fcp_sys_write_line (sys.c).
 * A FIFO is never opened (an O_NONBLOCK-less open of one would block
 * here, with no writer): -ENXIO, its type in st; a symlink under
 * O_NOFOLLOW is named as one, not followed; a regular file comes back
 * readable, the same inode st describes. A line written to a pipe whose
 * reader is gone fails with EPIPE (SIGPIPE ignored), not with death. */
#include "check.h"
#include "base/sys.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char dir[] = "/tmp/fcp-sys-open.XXXXXX", buf[16] = { 0 };
	struct statx st, now;
	int d, fd, p[2];

	CHECK(mkdtemp(dir) != NULL);
	d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(d >= 0);
	CHECK(mkfifoat(d, "fifo", 0600) == 0);
	CHECK(symlinkat("file", d, "link") == 0);
	fd = openat(d, "file", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && write(fd, "content", 7) == 7);
	close(fd);

	/* No O_NONBLOCK: were the FIFO opened, this would hang. */
	CHECK(fcp_sys_open_regular(d, "fifo", O_RDONLY, STATX_BASIC_STATS, &st) == -ENXIO);
	CHECK(S_ISFIFO(st.stx_mode));
	CHECK(fcp_sys_open_regular(d, "link", O_RDONLY | O_NOFOLLOW, STATX_BASIC_STATS, &st) ==
	      -ENXIO);
	CHECK(S_ISLNK(st.stx_mode));
	fd = fcp_sys_open_regular(d, "link", O_RDONLY, STATX_BASIC_STATS, &st);
	CHECK(fd >= 0 && S_ISREG(st.stx_mode));
	if (fd >= 0)
		close(fd);
	fd = fcp_sys_open_regular(d, "file", O_RDONLY | O_NOFOLLOW, STATX_BASIC_STATS, &st);
	CHECK(fd >= 0);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 7 && !strcmp(buf, "content"));
	CHECK(fd >= 0 && fcp_sys_fstatx(fd, &now) == 0 && now.stx_ino == st.stx_ino &&
	      st.stx_size == 7);
	if (fd >= 0)
		close(fd);
	CHECK(fcp_sys_open_regular(d, "missing", O_RDONLY, STATX_BASIC_STATS, &st) == -ENOENT);

	signal(SIGPIPE, SIG_IGN);
	CHECK(pipe(p) == 0);
	CHECK(fcp_sys_write_line(p[1], "one\n", 4) == 0);
	close(p[0]);
	CHECK(fcp_sys_write_line(p[1], "two\n", 4) == -EPIPE);
	close(p[1]);

	unlinkat(d, "fifo", 0);
	unlinkat(d, "link", 0);
	unlinkat(d, "file", 0);
	close(d);
	rmdir(dir);
	CHECK_DONE();
}
