/* Unit test: the filter options on the command line (lib/face/cli.c): sizes,
 * times, rules, and what is refused. */
#include "check.h"
#include "fastcp.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Parse "fastcp OPT ARG a b" with usage messages sent to /dev/null;
 * returns fcp_cli_parse's code, the options in *o. */
static int parse2(struct fcp_options *o, const char *opt, const char *arg)
{
	char *argv[] = { "fastcp", (char *)opt, (char *)arg, "a", "b", NULL };
	char **srcs, *dst;
	int nsrc, saved = dup(2), null = open("/dev/null", O_WRONLY), r;

	if (!arg) {
		argv[2] = "a";
		argv[3] = "b";
		argv[4] = NULL;
	}
	fcp_options_init(o);
	fflush(stderr);
	dup2(null, 2);
	r = fcp_cli_parse(arg ? 5 : 4, argv, o, &srcs, &nsrc, &dst);
	if (r) /* the rules read before the error */
		fcp_options_release(o);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(null);
	return r;
}

static void sizes(void)
{
	static const struct { const char *arg; long long v; } ok[] = {
		{ "0", 0 }, { "100", 100 }, { "1K", 1024 }, { "1k", 1024 }, { "3M", 3 << 20 },
		{ "2G", 2LL << 30 }, { "1T", 1LL << 40 }, { "8388607T", 8388607LL << 40 },
	};
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1X", "1KB", "1.5K", "K", "0x10", "99999999999999999999",
		"8388608T",
	};
	struct fcp_options o;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK(parse2(&o, "--max-size", ok[i].arg) == 0 && o.max_size == ok[i].v);
		CHECK(parse2(&o, "--min-size", ok[i].arg) == 0 && o.min_size == ok[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(parse2(&o, "--max-size", bad[i]) == FCP_EXIT_USAGE);
		CHECK(parse2(&o, "--min-size", bad[i]) == FCP_EXIT_USAGE);
	}
	CHECK(parse2(&o, "a", NULL) == 0 && o.max_size == -1 && o.min_size == 0);
	CHECK(!fcp_options_filter(&o));
	CHECK(parse2(&o, "--max-size", "1") == 0 && fcp_options_filter(&o));
}

static void times(void)
{
	static const struct { const char *arg; long long secs; } ok[] = {
		{ "@0", 0 }, { "@1000000000", 1000000000 }, { "2026-01-31", 1769817600 },
		{ "2026-01-31 12:30", 1769862600 }, { "2026-01-31T12:30:15", 1769862615 },
	};
	static const char *const bad[] = {
		"", "yesterday", "12", "@", "@-1", "@1x", "2026-13-01", "2026-01-32", "2026-02-30", "2026-1-1",
		"2026-01-31x", "2026-01-31 25:00", "2026-01-31 12", "2026-01-31 12:00:", "5y",
		"d", "-1d", "99999999999w",
	};
	struct fcp_options o;
	long long now = time(NULL);

	setenv("TZ", "UTC", 1);
	tzset();
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK(parse2(&o, "--newer-than", ok[i].arg) == 0 &&
		      o.newer_than == ok[i].secs * 1000000000 && o.older_than == LLONG_MAX);
		CHECK(parse2(&o, "--older-than", ok[i].arg) == 0 &&
		      o.older_than == ok[i].secs * 1000000000 && o.newer_than == LLONG_MIN);
	}
	/* Ages: before now (the parse reads the clock again). */
	CHECK(parse2(&o, "--newer-than", "2d") == 0);
	CHECK(llabs(o.newer_than / 1000000000 - (now - 2 * 86400)) <= 2);
	CHECK(parse2(&o, "--older-than", "90m") == 0);
	CHECK(llabs(o.older_than / 1000000000 - (now - 90 * 60)) <= 2);
	CHECK(parse2(&o, "--older-than", "1w") == 0);
	CHECK(llabs(o.older_than / 1000000000 - (now - 7 * 86400)) <= 2);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse2(&o, "--newer-than", bad[i]);
		CHECK(r == FCP_EXIT_USAGE);
		if (r != FCP_EXIT_USAGE)
			fprintf(stderr, "  --newer-than '%s' accepted\n", bad[i]);
	}
}

static void rules(void)
{
	struct fcp_options o;
	char path[] = "/tmp/fcp-cli-filter-XXXXXX";
	int fd = mkstemp(path);

	CHECK(parse2(&o, "--exclude", "*.o") == 0 && o.filter && fcp_options_filter(&o));
	fcp_options_release(&o);
	CHECK(!o.filter);
	CHECK(parse2(&o, "--include", "") == FCP_EXIT_USAGE);
	CHECK(parse2(&o, "--exclude", "/") == FCP_EXIT_USAGE);
	fcp_options_release(&o);
	CHECK(parse2(&o, "--exclude-from", "/nonexistent/rules") == FCP_EXIT_USAGE);
	/* Read to its end whatever it is, as rsync does: no rules. */
	CHECK(parse2(&o, "--exclude-from", "/dev/null") == 0 && !fcp_options_filter(&o));
	fcp_options_release(&o);
	CHECK(parse2(&o, "--exclude-from", "/") == FCP_EXIT_USAGE); /* a directory */
	CHECK(fd >= 0 && write(fd, "# only a comment\n", 17) == 17);
	CHECK(parse2(&o, "--exclude-from", path) == 0 && !fcp_options_filter(&o));
	fcp_options_release(&o);
	unlink(path);
	close(fd);
	CHECK(parse2(&o, "--gitignore", NULL) == 0 && o.gitignore && fcp_options_filter(&o));
	CHECK(parse2(&o, "--exclude-caches", NULL) == 0 && o.exclude_caches);
	CHECK(parse2(&o, "-x", NULL) == 0 && o.one_file_system && !fcp_options_filter(&o));
	CHECK(parse2(&o, "--one-file-system", NULL) == 0 && o.one_file_system);
	CHECK(parse2(&o, "--delete-excluded", NULL) == 0 && o.delete_excluded && o.delete_extra);
}

int main(void)
{
	sizes();
	times();
	rules();
	CHECK_DONE();
}
