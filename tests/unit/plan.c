/* Unit tests for the plan (lib/policy/plan.c): the action for each kind of
 * difference between a source entry and what is at its destination, with
 * and without --sync and --checksum, and that nothing is looked at where
 * nothing can exist (a directory made by this job). */
#include "check.h"
#include "core/hash.h"
#include "policy/plan.h"
#include "base/sys.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static struct fcp_options o;
static struct fcp_job job;
static struct fcp_dir dir;
static int sdir, ddir;

static void put(int dirfd, const char *name, const char *data, long mtime)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct timespec ts[2] = { { mtime, 0 }, { mtime, 5 } };

	CHECK(fd >= 0 && write(fd, data, strlen(data)) == (ssize_t)strlen(data));
	CHECK(fchmod(fd, 0644) == 0 && futimens(fd, ts) == 0);
	close(fd);
}

/* The action for name, as entry.c asks it: source stat'ed, file open. */
static enum fcp_action act(const char *name)
{
	struct fcp_entry e = { .w = fcp_sched_worker(&job, 0), .job = &job, .d = &dir,
			       .name = name, .dst_name = name, .src_fd = -1 };
	enum fcp_action a;

	CHECK(fcp_sys_statx(sdir, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &e.st) == 0);
	if (S_ISREG(e.st.stx_mode))
		e.src_fd = openat(sdir, name, O_RDONLY);
	a = fcp_plan_entry(&e);
	if (e.src_fd >= 0)
		close(e.src_fd);
	return a;
}

int main(void)
{
	char sp[] = "/tmp/fcp-plan-s-XXXXXX", dp[] = "/tmp/fcp-plan-d-XXXXXX";
	struct timespec old[2] = { { 1, 0 }, { 1, 0 } };

	CHECK(mkdtemp(sp) && mkdtemp(dp));
	sdir = open(sp, O_RDONLY | O_DIRECTORY);
	ddir = open(dp, O_RDONLY | O_DIRECTORY);
	fcp_options_init(&o);
	job.o = &o;
	job.is_root = geteuid() == 0;
	CHECK(fcp_sched_create(&job, 1, 1) == 0);
	dir.src_fd = sdir;
	dir.dst_fd = ddir;
	dir.made = false;

	put(sdir, "same", "abc", 100);        put(ddir, "same", "abc", 100);
	put(sdir, "size", "abcd", 100);       put(ddir, "size", "abc", 100);
	put(sdir, "mtime", "abc", 100);       put(ddir, "mtime", "abc", 101);
	put(sdir, "stamp", "abc", 100);       put(ddir, "stamp", "abX", 100);
	put(sdir, "mode", "abc", 100);        put(ddir, "mode", "abc", 100);
	put(sdir, "xattr", "abc", 100);       put(ddir, "xattr", "abc", 100);
	put(sdir, "absent", "abc", 100);
	put(sdir, "type", "abc", 100);        CHECK(mkdirat(ddir, "type", 0755) == 0);
	CHECK(fchmodat(ddir, "mode", 0600, 0) == 0);
	CHECK(utimensat(ddir, "mode", (struct timespec[2]){ { 100, 0 }, { 100, 5 } }, 0) == 0);
	CHECK(symlinkat("t1", sdir, "link") == 0 && symlinkat("t2", ddir, "link") == 0);
	CHECK(symlinkat("t1", sdir, "samelink") == 0 && symlinkat("t1", ddir, "samelink") == 0);
	CHECK(utimensat(sdir, "samelink", old, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(utimensat(ddir, "samelink", old, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(mkdirat(sdir, "sub", 0755) == 0 && mkdirat(ddir, "sub", 0755) == 0);
	bool xattrs = fsetxattr(openat(sdir, "xattr", O_RDONLY), "user.k", "v", 1, 0) == 0;

	/* No option: every entry is copied, nothing is compared. */
	CHECK(!fcp_plan_looks(&job, &dir));
	CHECK(act("same") == FCP_ACT_COPY);

	o.sync = true;
	CHECK(fcp_plan_looks(&job, &dir));
	CHECK(act("same") == FCP_ACT_SKIP);
	CHECK(act("absent") == FCP_ACT_COPY);
	CHECK(act("size") == FCP_ACT_REPLACE);
	CHECK(act("mtime") == FCP_ACT_REPLACE);
	CHECK(act("stamp") == FCP_ACT_SKIP); /* the quick check cannot see it */
	CHECK(act("mode") == FCP_ACT_META);
	CHECK(!xattrs || act("xattr") == FCP_ACT_META);
	CHECK(act("type") == FCP_ACT_REPLACE);
	CHECK(act("link") == FCP_ACT_REPLACE);
	CHECK(act("samelink") == FCP_ACT_SKIP);
	CHECK(act("sub") == FCP_ACT_SKIP);   /* a directory: gone into */
	CHECK(!strcmp(fcp_plan_verb(FCP_ACT_META), "update metadata"));

	/* A directory this job made holds nothing: nothing is asked. */
	dir.made = true;
	CHECK(!fcp_plan_looks(&job, &dir));
	CHECK(act("same") == FCP_ACT_COPY);
	dir.made = false;

	if (fcp_hash_available()) {
		o.checksum = true;
		CHECK(act("stamp") == FCP_ACT_REPLACE);
		CHECK(act("mtime") == FCP_ACT_META); /* same bytes: only the mtime */
		CHECK(act("same") == FCP_ACT_SKIP);
		CHECK(act("size") == FCP_ACT_REPLACE);
	}
	fcp_sched_destroy(&job);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", sp, dp);
	CHECK(system(cmd) == 0);
	CHECK_DONE();
}
