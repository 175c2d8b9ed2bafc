/* Unit tests for the command line: cp's options and fastcp's own. */
#include "check.h"
#include "fastcp.h"

#include <stdio.h>
#include <unistd.h>

static int parse(struct fcp_options *o, char **argv)
{
	char **srcs, *dst;
	int argc = 0, nsrc;

	while (argv[argc])
		argc++;
	fcp_options_init(o);
	return fcp_cli_parse(argc, argv, o, &srcs, &nsrc, &dst) ? -1 : nsrc;
}

int main(void)
{
	struct fcp_options o;

	/* Usage errors print to stderr; keep the test log readable. */
	freopen("/dev/null", "w", stderr);

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
	CHECK_DONE();
}
