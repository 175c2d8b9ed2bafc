/* Unit tests for the command line: cp's options and fastcp's own. */
#include "check.h"
#include "core/hash.h"
#include "fastcp.h"
#include "dest/manifest.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* fcp_cli_parse with its usage messages (on fd 2) sent to /dev/null, so
 * that the log shows only the checks that failed. */
static int quiet_parse(int argc, char **argv, struct fcp_options *o, char ***srcs, int *nsrc,
		       char **dst)
{
	int saved = dup(2), null = open("/dev/null", O_WRONLY), r;

	fflush(stderr);
	dup2(null, 2);
	r = fcp_cli_parse(argc, argv, o, srcs, nsrc, dst);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(null);
	return r;
}

static int parse(struct fcp_options *o, char **argv)
{
	char **srcs, *dst;
	int argc = 0, nsrc;

	while (argv[argc])
		argc++;
	fcp_options_init(o);
	return quiet_parse(argc, argv, o, &srcs, &nsrc, &dst) ? -1 : nsrc;
}

/* The exit code of a parse (0, FCP_EXIT_USAGE, or -1 for --help), and on
 * success the first source and the destination. */
static const char *first_src, *dest;
static int parse_rc(char **argv)
{
	struct fcp_options o;
	char **srcs = NULL;
	int argc = 0, nsrc, r;

	while (argv[argc])
		argc++;
	fcp_options_init(&o);
	first_src = dest = NULL;
	r = quiet_parse(argc, argv, &o, &srcs, &nsrc, (char **)&dest);
	if (r == 0)
		first_src = srcs[0];
	return r;
}

int main(void)
{
	struct fcp_options o;

	CHECK(parse(&o, (char *[]){ "fastcp", "a", "b", NULL }) == 1);
	CHECK(o.preserve == FCP_PRESERVE_ALL && o.reflink == FCP_REFLINK_AUTO);
	CHECK(o.symlinks == FCP_SYMLINKS_KEEP && !o.no_target_dir);

	CHECK(parse(&o, (char *[]){ "fastcp", "-a", "-r", "-R", "a", "b", "c", NULL }) == 2);
	CHECK(parse(&o, (char *[]){ "fastcp", "-T", "a", "b", NULL }) == 1 && o.no_target_dir);
	CHECK(parse(&o, (char *[]){ "fastcp", "-T", "a", "b", "c", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "a", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--bogus", "a", "b", NULL }) < 0);

	CHECK(parse(&o, (char *[]){ "fastcp", "-L", "a", "b", NULL }) == 1);
	CHECK(o.symlinks == FCP_SYMLINKS_FOLLOW);
	CHECK(parse(&o, (char *[]){ "fastcp", "-L", "-P", "a", "b", NULL }) == 1);
	CHECK(o.symlinks == FCP_SYMLINKS_KEEP);
	CHECK(parse(&o, (char *[]){ "fastcp", "--symlinks=rewrite", "a", "b", NULL }) == 1);
	CHECK(o.symlinks == FCP_SYMLINKS_REWRITE);
	CHECK(parse(&o, (char *[]){ "fastcp", "--symlinks=skip", "a", "b", NULL }) == 1);
	CHECK(o.symlinks == FCP_SYMLINKS_SKIP);
	CHECK(parse(&o, (char *[]){ "fastcp", "--symlinks=maybe", "a", "b", NULL }) < 0);

	CHECK(parse(&o, (char *[]){ "fastcp", "--reflink", "a", "b", NULL }) == 1);
	CHECK(o.reflink == FCP_REFLINK_ALWAYS);
	CHECK(parse(&o, (char *[]){ "fastcp", "--reflink=never", "a", "b", NULL }) == 1);
	CHECK(o.reflink == FCP_REFLINK_NEVER);
	CHECK(parse(&o, (char *[]){ "fastcp", "--reflink=sometimes", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "a", "b", NULL }) == 1 && !o.verify);
	CHECK(parse(&o, (char *[]){ "fastcp", "--verify", "a", "b", NULL }) == 1 && o.verify);
	CHECK(parse(&o, (char *[]){ "fastcp", "--verify=yes", "a", "b", NULL }) < 0);

	CHECK(parse(&o, (char *[]){ "fastcp", "--no-preserve=mode,ownership", "a", "b", NULL }) == 1);
	CHECK(o.preserve == (FCP_PRESERVE_ALL & ~(FCP_PRESERVE_MODE | FCP_PRESERVE_OWNER)));
	CHECK(parse(&o, (char *[]){ "fastcp", "--no-preserve=all", "--preserve=links", "a", "b", NULL }) == 1);
	CHECK(o.preserve == FCP_PRESERVE_LINKS);
	CHECK(parse(&o, (char *[]){ "fastcp", "--no-preserve=colour", "a", "b", NULL }) < 0);

	CHECK(parse(&o, (char *[]){ "fastcp", "-j", "8", "a", "b", NULL }) == 1 && o.threads == 8);
	CHECK(parse(&o, (char *[]){ "fastcp", "--threads=3", "a", "b", NULL }) == 1 && o.threads == 3);
	CHECK(parse(&o, (char *[]){ "fastcp", "-j", "0", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "-j", "x", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--fsync", "--no-io-uring", "a", "b", NULL }) == 1);
	CHECK(o.fsync && o.no_io_uring && o.direct_read == FCP_DIRECT_AUTO);
	CHECK(parse(&o, (char *[]){ "fastcp", "--direct-read=always", "a", "b", NULL }) == 1);
	CHECK(o.direct_read == FCP_DIRECT_ALWAYS);
	CHECK(parse(&o, (char *[]){ "fastcp", "--direct-read", "never", "a", "b", NULL }) == 1);
	CHECK(o.direct_read == FCP_DIRECT_NEVER);
	CHECK(parse(&o, (char *[]){ "fastcp", "--direct-read=sometimes", "a", "b", NULL }) < 0);

	/* Numbers out of range or with garbage are usage errors, never
	 * wrapped or cut: 4294967297 is 2^32 + 1, once taken as 1. */
	CHECK(parse_rc((char *[]){ "fastcp", "-j", "4294967297", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "-j", "99999999999999999999999", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "-j", "-1", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "-j", "1025", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "-j", "", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "-j", "4x", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "-j", " 4", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "--threads=0x10", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse(&o, (char *[]){ "fastcp", "-j1024", "a", "b", NULL }) == 1 && o.threads == 1024);
	CHECK(parse(&o, (char *[]){ "fastcp", "-j", "1", "a", "b", NULL }) == 1 && o.threads == 1);

	/* Options after the operands are options, as GNU getopt permutes. */
	CHECK(parse(&o, (char *[]){ "fastcp", "a", "b", "-v", NULL }) == 1 && o.verbose == 1);
	CHECK(parse_rc((char *[]){ "fastcp", "a", "b", "-v", NULL }) == 0);
	CHECK_STR(first_src, "a");
	CHECK_STR(dest, "b");
	CHECK(parse(&o, (char *[]){ "fastcp", "a", "-T", "b", NULL }) == 1 && o.no_target_dir);
	CHECK(parse(&o, (char *[]){ "fastcp", "a", "b", "-j", "2", NULL }) == 1 && o.threads == 2);
	CHECK(parse_rc((char *[]){ "fastcp", "a", "b", "--bogus", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "a", "b", "-Q", NULL }) == FCP_EXIT_USAGE); /* -x is --one-file-system */
	CHECK(parse_rc((char *[]){ "fastcp", "a", "b", "-j", NULL }) == FCP_EXIT_USAGE);
	/* "--" ends the options: what follows is an operand, dashes or not. */
	CHECK(parse_rc((char *[]){ "fastcp", "--", "a", "-v", NULL }) == 0);
	CHECK_STR(first_src, "a");
	CHECK_STR(dest, "-v");
	CHECK(parse(&o, (char *[]){ "fastcp", "-v", "a", "--", "-b", "--c", NULL }) == 2);
	CHECK(o.verbose == 1);
	/* A parse may follow another (getopt's state is reset). */
	CHECK(parse(&o, (char *[]){ "fastcp", "x", "--bogus", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "a", "b", "-v", NULL }) == 1 && o.verbose == 1);

	/* What a person or a program sees. */
	CHECK(parse(&o, (char *[]){ "fastcp", "a", "b", NULL }) == 1 &&
	      o.progress == FCP_PROGRESS_AUTO && !o.quiet && !o.json && !o.events && !o.log);
	CHECK(parse(&o, (char *[]){ "fastcp", "--progress", "a", "b", NULL }) == 1 &&
	      o.progress == FCP_PROGRESS_BAR);
	CHECK(parse(&o, (char *[]){ "fastcp", "--progress=plain", "a", "b", NULL }) == 1 &&
	      o.progress == FCP_PROGRESS_PLAIN);
	CHECK(parse(&o, (char *[]){ "fastcp", "--progress=none", "a", "b", NULL }) == 1 &&
	      o.progress == FCP_PROGRESS_NONE);
	CHECK(parse_rc((char *[]){ "fastcp", "--progress=yes", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse(&o, (char *[]){ "fastcp", "-q", "--json", "--stats", "a", "b", NULL }) == 1 &&
	      o.quiet && o.json && o.stats && !o.verbose);
	CHECK(parse(&o, (char *[]){ "fastcp", "--events", "-", "--log", "l", "a", "b", NULL }) == 1);
	CHECK_STR(o.events, "-");
	CHECK_STR(o.log, "l");
	CHECK(parse_rc((char *[]){ "fastcp", "a", "b", "--events", NULL }) == FCP_EXIT_USAGE);

	/* An empty operand (an unset variable) is bad usage, not "." */
	CHECK(parse_rc((char *[]){ "fastcp", "a", "", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "a", "", "c", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "-T", "a", "", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "--", "", "b", NULL }) == FCP_EXIT_USAGE);
	/* Copying again (issue 18): --sync; -u is cp's "older only" (issue
	 * 20), -n cp's no-clobber, not a dry run; --max-delete takes a count
	 * and needs --delete. */
	CHECK(parse(&o, (char *[]){ "fastcp", "--sync", "a", "b", NULL }) == 1 && o.sync);
	CHECK(!o.delete_extra && !o.dry_run && o.max_delete == -1);
	CHECK(parse(&o, (char *[]){ "fastcp", "--mirror", "a", "b", NULL }) == 1);
	CHECK(o.sync && o.delete_extra);
	CHECK(parse(&o, (char *[]){ "fastcp", "--dry-run", "--delete", "--max-delete", "0", "a",
				   "b", NULL }) == 1);
	/* --delete quick-checks as rsync's always does (issue 35); -c
	 * decides by content instead. */
	CHECK(o.dry_run && o.delete_extra && o.sync && o.max_delete == 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "-c", "--delete", "a", "b", NULL }) == 1);
	CHECK(o.delete_extra && o.checksum && !o.sync);
	/* cp's and rsync's habits (issue 35). */
	CHECK(parse(&o, (char *[]){ "fastcp", "-rp", "-pR", "-A", "-X", "-h", "a", "b", NULL }) == 1);
	CHECK(o.preserve == FCP_PRESERVE_ALL);
	CHECK(parse(&o, (char *[]){ "fastcp", "-L", "-dR", "a", "b", NULL }) == 1);
	CHECK(o.symlinks == FCP_SYMLINKS_KEEP && (o.preserve & FCP_PRESERVE_LINKS));
	CHECK(parse(&o, (char *[]){ "fastcp", "-Z", "a", "b", NULL }) == 1);
	CHECK(o.preserve == (FCP_PRESERVE_ALL & ~FCP_PRESERVE_CONTEXT));
	CHECK(parse(&o, (char *[]){ "fastcp", "-Z", "--preserve=context", "a", "b", NULL }) == 1);
	CHECK(o.preserve == FCP_PRESERVE_ALL);
	CHECK(parse_rc((char *[]){ "fastcp", "--context=u:r:t:s0", "a", "b", NULL }) ==
	      FCP_EXIT_USAGE);
	CHECK(parse(&o, (char *[]){ "fastcp", "--ignore-existing", "--delete", "a", "b", NULL }) == 1);
	CHECK(o.update == FCP_UPDATE_NONE && o.delete_extra);
	CHECK(parse(&o, (char *[]){ "fastcp", "--inplace", "--info=progress2", "a", "b", NULL }) == 1);
	CHECK(o.in_place && o.progress == FCP_PROGRESS_BAR);
	CHECK(parse(&o, (char *[]){ "fastcp", "--size-only", "a", "b", NULL }) == 1);
	CHECK(o.size_only && o.sync);
	CHECK(parse_rc((char *[]){ "fastcp", "-z", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "-h", NULL }) == -1); /* alone: help */
	CHECK(parse_rc((char *[]){ "fastcp", "--partial", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse(&o, (char *[]){ "fastcp", "-u", "a", "b", NULL }) == 1 && !o.sync &&
	      o.update == FCP_UPDATE_OLDER);
	CHECK(parse(&o, (char *[]){ "fastcp", "-n", "a", "b", NULL }) == 1 && !o.dry_run &&
	      o.update == FCP_UPDATE_NONE);
	CHECK(parse(&o, (char *[]){ "fastcp", "-n", "-b", "a", "b", NULL }) < 0);
	/* An rsync user's -n is a dry run: never with deletions (issue 33). */
	CHECK(parse_rc((char *[]){ "fastcp", "-n", "--delete", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "--mirror", "-n", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "--update=none", "--delete", "a", "b", NULL }) ==
	      FCP_EXIT_USAGE);
	CHECK(parse(&o, (char *[]){ "fastcp", "-u", "--delete", "a", "b", NULL }) == 1);
	/* --move only with a copy of the data (issue 33). */
	CHECK(parse(&o, (char *[]){ "fastcp", "--move", "-n", "a", "b", NULL }) == 1 && o.move);
	CHECK(parse_rc((char *[]){ "fastcp", "--move", "--attributes-only", "a", "b", NULL }) ==
	      FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "-l", "--move", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse_rc((char *[]){ "fastcp", "--move", "-s", "a", "b", NULL }) == FCP_EXIT_USAGE);
	CHECK(parse(&o, (char *[]){ "fastcp", "--backup=nu", "a", "b", NULL }) == 1 &&
	      o.backup == FCP_BACKUP_NUMBERED);
	CHECK(parse(&o, (char *[]){ "fastcp", "--backup=n", "a", "b", NULL }) < 0); /* none? never? */
	CHECK(parse(&o, (char *[]){ "fastcp", "-t", "d", "a", "b", NULL }) == 2);
	CHECK(parse_rc((char *[]){ "fastcp", "a", "--target-directory=d", NULL }) == 0);
	CHECK_STR(dest, "d");
	CHECK_STR(first_src, "a");
	CHECK(parse(&o, (char *[]){ "fastcp", "-t", "d", "-T", "a", NULL }) < 0);
	/* The last of -P, -L, -H wins; -S alone backs up; -b takes no value. */
	CHECK(parse(&o, (char *[]){ "fastcp", "-L", "-H", "a", "b", NULL }) == 1 && o.deref_args &&
	      o.symlinks == FCP_SYMLINKS_KEEP);
	CHECK(parse(&o, (char *[]){ "fastcp", "-H", "-P", "a", "b", NULL }) == 1 && !o.deref_args);
	CHECK(parse(&o, (char *[]){ "fastcp", "-S", ".bak", "a", "b", NULL }) == 1 &&
	      o.backup == FCP_BACKUP_EXISTING && !strcmp(o.backup_suffix, ".bak"));
	CHECK(parse(&o, (char *[]){ "fastcp", "-S", "x/y", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "-b", "a", "b", "c", NULL }) == 2 &&
	      o.backup == FCP_BACKUP_EXISTING);
	CHECK(parse(&o, (char *[]){ "fastcp", "--sparse=never", "--reflink=always", "a", "b",
				   NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--sparse=always", "a", "b", NULL }) == 1 &&
	      o.sparse == FCP_SPARSE_ALWAYS);
	CHECK(parse(&o, (char *[]){ "fastcp", "--update=none", "-u", "a", "b", NULL }) == 1 &&
	      o.update == FCP_UPDATE_NONE);
	CHECK(parse(&o, (char *[]){ "fastcp", "-l", "-s", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "-s", "--in-place", "--copy-contents",
				   "--attributes-only", "--debug", "--parents", "a", "b", NULL }) == 1 &&
	      o.make == FCP_MAKE_SYMLINK && o.in_place && o.copy_contents && o.attributes_only &&
	      o.debug && o.parents);
	CHECK(parse(&o, (char *[]){ "fastcp", "--delete", "--max-delete=-1", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--delete", "--max-delete=1e3", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--max-delete=3", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "-c", "a", "b", NULL }) ==
	      (fcp_hash_available() ? 1 : -1));
	/* --check (issue 19): one operand only with --manifest; nothing that
	 * would change anything; --manifest needs SQLite and a name. */
	if (fcp_hash_available()) {
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "a", "b", NULL }) == 1 && o.check);
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "-T", "a", "b", NULL }) == 1);
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "a", "b", "c", NULL }) == 2);
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "b", NULL }) < 0);
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "--manifest", "m", "b", NULL }) ==
		      (fcp_manifest_available() ? 0 : -1));
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "--delete", "a", "b", NULL }) < 0);
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "--mirror", "a", "b", NULL }) < 0);
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "--move", "a", "b", NULL }) < 0);
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "--dry-run", "a", "b", NULL }) < 0);
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "--parents", "a", "b", NULL }) < 0);
		/* -t DIR is DEST: its one operand is a SOURCE, not DEST alone. */
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "-t", "d", "a", NULL }) == 1);
		CHECK(parse(&o, (char *[]){ "fastcp", "--check", "--manifest", "m", "-t", "d", "a",
					    NULL }) == (fcp_manifest_available() ? 1 : -1));
	}
	CHECK(parse(&o, (char *[]){ "fastcp", "--manifest=", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--manifest", "m", "--dry-run", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--manifest", "m", "a", "b", NULL }) ==
	      (fcp_manifest_available() ? 1 : -1));
	CHECK(parse(&o, (char *[]){ "fastcp", "--manifest", "m", "b", NULL }) < 0);
	/* Retries and limits (issue 20): binary suffixes, fractions of a
	 * second, nothing negative or trailing. */
	CHECK(parse(&o, (char *[]){ "fastcp", "a", "b", NULL }) == 1);
	CHECK(o.retries == 0 && o.retry_wait == 1.0 && !o.bwlimit && !o.iolimit);
	CHECK(parse(&o, (char *[]){ "fastcp", "--retries", "3", "--retry-wait=0.25", "--bwlimit=50M",
				   "--iolimit", "1000", "a", "b", NULL }) == 1);
	CHECK(o.retries == 3 && o.retry_wait == 0.25 && o.bwlimit == 50u << 20 && o.iolimit == 1000);
	CHECK(parse(&o, (char *[]){ "fastcp", "--bwlimit=1.5k", "a", "b", NULL }) == 1 &&
	      o.bwlimit == 1536);
	CHECK(parse(&o, (char *[]){ "fastcp", "--bwlimit=2G", "a", "b", NULL }) == 1 &&
	      o.bwlimit == 2ull << 30);
	CHECK(parse(&o, (char *[]){ "fastcp", "--bwlimit=4096", "a", "b", NULL }) == 1 &&
	      o.bwlimit == 4096);
	CHECK(parse(&o, (char *[]){ "fastcp", "--bwlimit=0", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--bwlimit=5X", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--bwlimit=5MB", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--bwlimit=-5M", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--retries=-1", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--retry-wait=1s", "a", "b", NULL }) < 0);
	CHECK(parse(&o, (char *[]){ "fastcp", "--iolimit=0", "a", "b", NULL }) < 0);
	CHECK_DONE();
}
