/* Unit tests for the summary lines: counts in words that agree with them
 * (1 item, 2 items), and attributes counted as attributes, not items. */
#include "check.h"
#include "fastcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char text[4096];

static const char *problems(const struct fcp_stats *s)
{
	FILE *f = fmemopen(text, sizeof(text), "w");

	fcp_stats_print_problems(s, f);
	fclose(f);
	return text;
}

static const char *summary(const struct fcp_stats *s)
{
	FILE *f = fmemopen(text, sizeof(text), "w");

	fcp_stats_print(s, f);
	fclose(f);
	return text;
}

#define HAS(text, s) CHECK(strstr((text), (s)) != NULL)
#define HASNT(text, s) CHECK(strstr((text), (s)) == NULL)

int main(void)
{
	struct fcp_stats s;

	memset(&s, 0, sizeof(s));
	CHECK_STR(problems(&s), "");

	s.failed = 1;
	HAS(problems(&s), "fastcp: 1 item failed\n");
	s.failed = 2;
	HAS(problems(&s), "fastcp: 2 items failed\n");
	s.failed = 0;
	s.not_copied = 1;
	HAS(problems(&s), "fastcp: 1 item not copied");
	s.not_copied = 7;
	HAS(problems(&s), "fastcp: 7 items not copied");
	s.not_copied = 0;

	/* Extended attributes, ACLs and labels are counted one by one: three
	 * attributes of one file are not "3 items". */
	s.warnings[FCP_WARN_XATTR] = 3;
	problems(&s);
	HAS(text, "3 extended attributes not preserved");
	HASNT(text, "items");
	s.warnings[FCP_WARN_XATTR] = 1;
	HAS(problems(&s), "1 extended attribute not preserved");
	s.warnings[FCP_WARN_XATTR] = 0;
	s.warnings[FCP_WARN_ACL] = 1;
	HAS(problems(&s), "1 ACL not preserved");
	s.warnings[FCP_WARN_ACL] = 2;
	HAS(problems(&s), "2 ACLs not preserved");
	s.warnings[FCP_WARN_ACL] = 0;
	s.warnings[FCP_WARN_LABEL] = 1;
	HAS(problems(&s), "1 security label not preserved");
	s.warnings[FCP_WARN_LABEL] = 0;
	/* Ownership, permissions and times: once per item. */
	s.warnings[FCP_WARN_OWNER] = 1;
	HAS(problems(&s), "ownership not preserved on 1 item\n");
	s.warnings[FCP_WARN_OWNER] = 4;
	HAS(problems(&s), "ownership not preserved on 4 items\n");
	s.warnings[FCP_WARN_OWNER] = 0;
	s.warnings[FCP_WARN_TIMES] = 1;
	HAS(problems(&s), "timestamps not preserved on 1 item\n");
	s.warnings[FCP_WARN_TIMES] = 0;

	memset(&s, 0, sizeof(s));
	s.files = s.dirs = s.symlinks = s.hardlinks = s.specials = 1;
	s.threads = 1;
	s.cloned_files = 1;
	summary(&s);
	HAS(text, "copied 1 file (");
	HAS(text, ", 1 directory, 1 symlink, 1 hard link, 1 special file in ");
	HAS(text, "(1 thread, ");
	HAS(text, "1 file cloned (reflink)");
	HASNT(text, "verified");
	/* --verify: clones are said to be re-read, not copied twice. */
	s.cloned_files = s.verified_cloned = 2;
	s.verified_files = 3;
	s.verified_bytes = 4000;
	summary(&s);
	HAS(text, "fastcp: 2 files cloned, verified by re-reading shared extents\n");
	HASNT(text, "(reflink)");
	HAS(text, "fastcp: verified 3 files (4.0 KB) read back from storage\n");
	/* tmpfs, ramfs: the memory the copy was written to is all there is. */
	s.verified_memory = 3;
	summary(&s);
	HAS(text, "fastcp: verified 3 files (4.0 KB) read back from memory: the destination "
		  "(tmpfs or ramfs) keeps them nowhere else\n");
	HASNT(text, "storage");
	s.verified_memory = 1;
	summary(&s);
	HAS(text, "fastcp: verified 3 files (4.0 KB) read back: 2 from storage, 1 from memory "
		  "(tmpfs or ramfs)\n");
	s.cloned_files = s.verified_cloned = s.verified_files = s.verified_bytes = 0;
	s.verified_memory = 0;
	s.files = s.dirs = s.symlinks = s.hardlinks = s.specials = 0;
	s.threads = 2;
	summary(&s);
	HAS(text, "copied 0 files (");
	HAS(text, ", 0 directories, 0 symlinks, 0 hard links, 0 special files in ");
	HAS(text, "(2 threads, ");

	/* The counters copiers are compared by, and the first errors again. */
	memset(&s, 0, sizeof(s));
	s.seconds = 2;
	s.bytes = 3000000;
	s.bytes_cloned = 1000000;
	s.bytes_holes = 4000;
	s.excluded = 3;
	s.io_ops = 500;
	s.cpu_user = 0.5;
	s.cpu_system = 0.5;
	s.max_rss_kb = 2000;
	snprintf(s.errors[0], sizeof(s.errors[0]), "cannot open 'x': Permission denied");
	summary(&s);
	HAS(text, "fastcp: data: 2.0 MB copied, 1.0 MB cloned, 4.0 KB of holes not written; "
		  "0 skipped, 0 failed\n");
	/* The filters' count once: its own line, not again in the data line. */
	HAS(text, "fastcp: 3 excluded (left out by a filter)\n");
	CHECK(!strstr(strstr(text, "excluded") + 1, "excluded"));
	HAS(text, "fastcp: 500 I/O operations (250/s); CPU 50% (user 0.50 s, system 0.50 s); "
		  "peak memory 2.0 MB\n");
	HAS(text, "the first errors again:\n  cannot open 'x': Permission denied\n");
	CHECK_DONE();
}
