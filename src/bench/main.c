/*
 * main.c - fastcp-bench: option dispatch only. Each mode parses its own
 * options in its own file; see man/fastcp-bench.1 for the manual.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

#ifndef FCP_VERSION
#define FCP_VERSION "unknown"
#endif

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *what;
} modes[] = {
	{ "gen", bench_gen_main, "KIND DIR        make a deterministic workload tree" },
	{ "compare", bench_compare_main, "SRC -- CMD...  time copy commands side by side" },
	{ "disk", bench_disk_main, "PATH           block-size disk benchmark (DiskGraf-style)" },
	{ "floor", bench_floor_main, "SRC DST       the least time writing SRC's tree to DST takes" },
	{ "files", bench_files_main, "PATH          large and small file benchmark (CDDVDSpd-style)" },
	{ "seekfs", bench_seekfs_main, "IMAGE MNT    serve IMAGE through FUSE as a seeking disk would" },
};
#define NMODES (int)(sizeof(modes) / sizeof(modes[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: fastcp-bench MODE [OPTIONS] ARGS  (MODE --help for its options)\n");
	for (int i = 0; i < NMODES; i++)
		fprintf(f, "  fastcp-bench %s %s\n", modes[i].name, modes[i].what);
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 2) {
		usage(stderr);
		return FCP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return FCP_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("fastcp-bench %s\n", FCP_VERSION);
		return FCP_EXIT_OK;
	}
	for (int i = 0; i < NMODES; i++) {
		if (strcmp(argv[1], modes[i].name))
			continue;
		/* getopt in the mode sees "fastcp-bench-MODE ARGS" */
		ret = modes[i].main(argc - 1, argv + 1);
		return ret < 0 ? FCP_EXIT_OK : ret;
	}
	bench_err("unknown mode '%s'", argv[1]);
	usage(stderr);
	return FCP_EXIT_USAGE;
}
