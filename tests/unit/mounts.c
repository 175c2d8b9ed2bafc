/* Unit tests for mounts.c (a mountinfo line: what a mount shows, and
 * where; a path of this process as a path of its filesystem) and
 * fcp_path_under (path.c), which srcmount.c uses to tell a SOURCE
 * directory bind-mounted inside DEST. */
#include "check.h"
#include "base/mounts.h"
#include "base/path.h"

#include <errno.h>
#include <stdlib.h>

static void parse(void)
{
	struct fcp_mount m;

	CHECK(fcp_mount_parse("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw",
			      &m) == 0);
	CHECK(m.id == 36 && m.major == 98 && m.minor == 0);
	CHECK_STR(m.root, "/mnt1");
	CHECK_STR(m.point, "/mnt2");
	fcp_mount_clear(&m);
	/* Escapes: a space, a tab, a backslash; a newline ends the line. */
	CHECK(fcp_mount_parse("7 1 8:1 /a\\040b /x\\011y\\134z rw - ext4 /dev/sda1 rw\n8 1 0:1 / /q",
			      &m) == 0);
	CHECK_STR(m.root, "/a b");
	CHECK_STR(m.point, "/x\ty\\z");
	fcp_mount_clear(&m);
	/* The root of a directory removed since it was mounted. */
	CHECK(fcp_mount_parse("44 26 254:0 /tmp/s/a//deleted /tmp/d/m rw - ext4 /dev/vda rw",
			      &m) == 0);
	CHECK_STR(m.root, "/tmp/s/a");
	fcp_mount_clear(&m);
	/* Not a mount line. */
	CHECK(fcp_mount_parse("", &m) == -EINVAL);
	CHECK(fcp_mount_parse("36 35 98:0\n/a /b", &m) == -EINVAL);
	CHECK(fcp_mount_parse("36 35 98:0 rel /b rw", &m) == -EINVAL);
	CHECK(fcp_mount_parse("garbage", &m) == -EINVAL);
	CHECK(m.root == NULL && m.point == NULL);
}

static void table(void)
{
	struct fcp_mounts t = { 0 };
	const struct fcp_mount *m;

	CHECK(fcp_mounts_parse("1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
			       "bad line\n"
			       "2 1 8:1 /srv/data /home/u/data rw - ext4 /dev/sda1 rw\n"
			       "3 1 0:5 / /proc rw - proc proc rw", &t) == 0);
	CHECK(t.n == 3);
	m = fcp_mounts_find(&t, 2);
	CHECK(m && m->minor == 1);
	CHECK_STR(m ? m->root : NULL, "/srv/data");
	CHECK(fcp_mounts_find(&t, 9) == NULL);
	fcp_mounts_free(&t);
	CHECK(t.n == 0 && t.v == NULL);
}

static void check_fs(const char *root, const char *point, const char *path, const char *want)
{
	struct fcp_mount m = { .root = (char *)root, .point = (char *)point };
	char *got = fcp_mount_fs_path(&m, path);

	if (want)
		CHECK_STR(got, want);
	else
		CHECK(got == NULL);
	free(got);
}

static void fs_paths(void)
{
	check_fs("/", "/", "/tmp/s/a", "/tmp/s/a");
	check_fs("/", "/", "/", "/");
	/* A bind mount of /tmp/s/a at /tmp/d/keep/m2. */
	check_fs("/tmp/s/a", "/tmp/d/keep/m2", "/tmp/d/keep/m2", "/tmp/s/a");
	check_fs("/tmp/s/a", "/tmp/d/keep/m2", "/tmp/d/keep/m2/x/y", "/tmp/s/a/x/y");
	check_fs("/tmp/s/a", "/tmp/d/keep/m2", "/tmp/d/keep/m20", NULL);
	check_fs("/tmp/s/a", "/tmp/d/keep/m2", "/tmp/d/keep", NULL);
	/* The root of a filesystem mounted below /. */
	check_fs("/", "/mnt/disk", "/mnt/disk/photos", "/photos");
}

static void under(void)
{
	CHECK_STR(fcp_path_under("/a/b", "/a/b"), "");
	CHECK_STR(fcp_path_under("/a/b/c/d", "/a/b"), "c/d");
	CHECK_STR(fcp_path_under("/a/b/c", "/a/b/"), "c");
	CHECK_STR(fcp_path_under("/a/b", "/"), "a/b");
	CHECK_STR(fcp_path_under("/", "/"), "");
	CHECK_STR(fcp_path_under("s/a", "s"), "a");
	CHECK(fcp_path_under("/a/bc", "/a/b") == NULL);
	CHECK(fcp_path_under("/a", "/a/b") == NULL);
	CHECK(fcp_path_under("a/b", "/") == NULL);
}

int main(void)
{
	parse();
	table();
	fs_paths();
	under();
	CHECK_DONE();
}
