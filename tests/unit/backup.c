/* Unit tests for fcp_backup_name_like: the names --delete keeps under -b.
 * NAME + suffix (~ by default, -S, $SIMPLE_BACKUP_SUFFIX) and NAME.~N~
 * (N from 1) are backups, after at least one character of NAME; nothing
 * is without -b. And for fcp_backup_rename's names: never one the source
 * directory has (the copy writes it), one this run made, or one noted as
 * another SOURCE's copy; an older backup is replaced; a directory that
 * cannot be read says its own errno. */
#include "dest/backup.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void put(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	if (fd >= 0)
		close(fd);
}

static void check_text(int dirfd, const char *name, const char *want)
{
	char buf[64] = "";
	int fd = openat(dirfd, name, O_RDONLY);

	CHECK(fd >= 0 && read(fd, buf, sizeof(buf) - 1) >= 0);
	if (fd >= 0)
		close(fd);
	CHECK_STR(buf, want);
}

/* rename name of dst to its backup name; that name must be want. */
static void renamed(struct fcp_job *job, int dst, int src, const char *name, const char *want)
{
	char *b = NULL;

	CHECK(fcp_backup_rename(job, dst, src, name, &b) == 0);
	CHECK_STR(b, want);
	free(b);
}

static void test_names(void)
{
	char top[] = "/tmp/fcp-unit-backup.XXXXXX", cmd[64];
	struct fcp_options o = { .backup = FCP_BACKUP_SIMPLE };
	struct fcp_job job = { .o = &o };
	struct rlimit lim, low;
	struct stat ds;
	int t, src, dst;
	char *b = NULL;

	CHECK(mkdtemp(top) != NULL);
	t = open(top, O_RDONLY | O_DIRECTORY);
	CHECK(mkdirat(t, "s", 0755) == 0 && mkdirat(t, "d", 0755) == 0);
	src = openat(t, "s", O_RDONLY | O_DIRECTORY);
	dst = openat(t, "d", O_RDONLY | O_DIRECTORY);
	put(dst, "b", "OLD b");
	put(dst, "b~", "older backup");
	/* The source has a~: the backup of a is a~~, and the backup of the
	 * old a~ then a~~~, past the one made. */
	put(src, "a", "new");
	put(src, "a~", "source a~");
	put(dst, "a", "OLD");
	put(dst, "a~", "old a~");
	renamed(&job, dst, src, "a", "a~~");
	renamed(&job, dst, src, "a~", "a~~~");
	check_text(dst, "a~~", "OLD");
	check_text(dst, "a~~~", "old a~");
	/* An older backup the source lacks is replaced, as cp's is; another
	 * SOURCE's copy there (noted when walked) is not. */
	renamed(&job, dst, src, "b", "b~");
	check_text(dst, "b~", "OLD b");
	put(dst, "h", "OLD h");
	put(dst, "h~", "another SOURCE's h~");
	CHECK(fstat(dst, &ds) == 0);
	CHECK(fcp_backup_note_copy(&job, ((uint64_t)major(ds.st_dev) << 32) | minor(ds.st_dev),
				   ds.st_ino, "h~") == 0);
	CHECK(fcp_backup_note_copy(&job, 0, 0, "not-like-a-backup") == 0);
	renamed(&job, dst, src, "h", "h~~");
	check_text(dst, "h~", "another SOURCE's h~");
	/* Many backups (the record grows), then a second file of one of
	 * those names: its backup goes past the one this run made. */
	for (int i = 0; i < 100; i++) {
		char n[16], want[16];
		snprintf(n, sizeof(n), "g%d", i);
		snprintf(want, sizeof(want), "g%d~", i);
		put(dst, n, "g");
		renamed(&job, dst, src, n, want);
	}
	put(dst, "g42", "second g42");
	renamed(&job, dst, src, "g42", "g42~~");
	check_text(dst, "g42~", "g");
	/* Numbered: one past the highest of DEST's and the source's. */
	o.backup = FCP_BACKUP_NUMBERED;
	put(src, "c.~2~", "source c.~2~");
	put(dst, "c.~1~", "c1");
	put(dst, "c", "OLD c");
	renamed(&job, dst, src, "c", "c.~3~");
	/* No descriptor left to read the directory with: its errno. */
	put(dst, "e", "e");
	CHECK(getrlimit(RLIMIT_NOFILE, &lim) == 0);
	low = (struct rlimit){ (rlim_t)dst + 1, lim.rlim_max };
	CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
	CHECK(fcp_backup_rename(&job, dst, src, "e", &b) == -EMFILE && !b);
	CHECK(setrlimit(RLIMIT_NOFILE, &lim) == 0);
	check_text(dst, "e", "e");
	fcp_backup_free(&job);
	close(src);
	close(dst);
	close(t);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	struct fcp_options o = { 0 };

	unsetenv("SIMPLE_BACKUP_SUFFIX");
	o.backup = FCP_BACKUP_NONE;
	CHECK(!fcp_backup_name_like(&o, "f~"));
	CHECK(!fcp_backup_name_like(&o, "f.~1~"));
	o.backup = FCP_BACKUP_EXISTING;
	CHECK(fcp_backup_name_like(&o, "f~"));
	CHECK(fcp_backup_name_like(&o, "f.~0~")); /* ends in ~ */
	CHECK(fcp_backup_name_like(&o, "photo.jpg.~12~"));
	CHECK(!fcp_backup_name_like(&o, "~"));
	CHECK(!fcp_backup_name_like(&o, "f"));
	CHECK(!fcp_backup_name_like(&o, "f.bak"));
	o.backup_suffix = ".bak";
	CHECK(fcp_backup_name_like(&o, "f.bak"));
	CHECK(!fcp_backup_name_like(&o, ".bak"));
	CHECK(!fcp_backup_name_like(&o, "f~"));
	CHECK(!fcp_backup_name_like(&o, "f.~0~"));
	CHECK(!fcp_backup_name_like(&o, ".~1~"));
	CHECK(!fcp_backup_name_like(&o, "f.~~"));
	CHECK(!fcp_backup_name_like(&o, "f.~1x~"));
	CHECK(fcp_backup_name_like(&o, "f.~1~"));
	CHECK(fcp_backup_name_like(&o, "a.~10~"));
	o.backup = FCP_BACKUP_NUMBERED;
	CHECK(fcp_backup_name_like(&o, "f.bak") && fcp_backup_name_like(&o, "f.~3~"));
	o.backup_suffix = NULL;
	setenv("SIMPLE_BACKUP_SUFFIX", ".orig", 1);
	CHECK(fcp_backup_name_like(&o, "f.orig") && !fcp_backup_name_like(&o, "f~"));
	unsetenv("SIMPLE_BACKUP_SUFFIX");
	test_names();
	CHECK_DONE();
}
