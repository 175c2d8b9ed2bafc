/*
 * fastcp - copy files and directory trees exactly, fast.
 * main() parses the command line and runs one job; all work is in libfastcp.
 */
#include "fastcp.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct fcp_options o;
	struct fcp_stats s;
	char **srcs, *dst;
	int nsrc, r;

	fcp_options_init(&o);
	r = fcp_cli_parse(argc, argv, &o, &srcs, &nsrc, &dst);
	if (r)
		return r < 0 ? FCP_EXIT_OK : r;
	r = fcp_job_run(&o, srcs, nsrc, dst, &s);
	/* o is still read below; only what the parse allocated is freed. */
	fcp_options_release(&o);
	/* The summary, unless -q: for a person at a terminal, or when asked
	 * (-v, --stats); a script's copy stays as quiet as cp's. */
	if (o.json) {
		/* A reader that quit must not turn the end of a copy into
		 * death by SIGPIPE: it is told as the failed write it is. */
		signal(SIGPIPE, SIG_IGN);
		int w = fcp_stats_print_json(&s, stdout);
		if (w < 0) {
			fprintf(stderr, "fastcp: cannot write the --json summary to standard "
				"output: %s\n", strerror(-w));
			r = r == FCP_EXIT_OK ? FCP_EXIT_PARTIAL : r;
		}
	} else if (!o.quiet && (o.verbose || o.stats || isatty(STDERR_FILENO)) &&
		   (!o.dry_run || o.stats)) {
		/* A dry run's summary is its "would" line (below): the copy's
		 * zeros only with --stats. */
		/* The first errors again, for a person whose terminal has
		 * scrolled them away; a log file has them in their place. */
		if (!isatty(STDERR_FILENO))
			s.errors[0][0] = 0;
		fcp_stats_print(&s, stderr);
		if ((o.verbose || o.stats) && !o.dry_run && !o.check)
			fcp_stats_print_table(&s, stderr);
	}
	/* A dry run ends its list with what it would do, on the list's
	 * stream. */
	if (o.dry_run && !o.check && !o.quiet)
		fcp_stats_print_plan(&s, o.json ? stderr : stdout);
	fcp_stats_print_problems(&s, stderr);
	if (s.signal) { /* die of it, as the caller of an interrupted copy expects */
		signal(s.signal, SIG_DFL);
		raise(s.signal);
	}
	return r;
}
