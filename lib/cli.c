/*
 * cli.c - fastcp's command line: cp's habits first.
 *
 * Lives in the library so that the unit tests can parse command lines
 * without running a copy.
 */
#include "fastcp.h"
#include "hash.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: fastcp [OPTIONS] SOURCE... DEST\n"
	"       fastcp [OPTIONS] -T SOURCE DEST\n"
	"\n"
	"Copy files and directory trees exactly: data, holes, mode, owner, times,\n"
	"xattrs, ACLs, hard links, symlinks and special files (archive mode is the\n"
	"default). One SOURCE and a DEST that is not a directory: DEST becomes the\n"
	"copy; otherwise each SOURCE is copied to DEST/SOURCE's name.\n"
	"\n"
	"  -a, -r, -R, --archive, --recursive  accepted for habit (always on)\n"
	"  -T, --no-target-directory     treat DEST as the copy itself\n"
	"  -P, --no-dereference          keep symlinks as symlinks (default)\n"
	"  -L, --dereference             follow symlinks (loops are reported)\n"
	"      --symlinks=POLICY         keep, follow, rewrite (re-point absolute links\n"
	"                                into the copied tree to the copy) or skip\n"
	"      --reflink[=WHEN]          auto (default: clone when possible), always\n"
	"                                (fail a file that cannot be cloned), never\n"
	"      --no-preserve=LIST        mode,ownership,timestamps,xattr,links,all\n"
	"      --preserve=LIST           turn parts back on (same names)\n"
	"      --fsync                   make every file durable before it is renamed\n"
	"  -j, --threads N               worker threads (default 3 per CPU, at most 32)\n"
	"      --no-io-uring             use the synchronous small-file path\n"
	"      --direct-read=WHEN        read medium files around the page cache:\n"
	"                                auto (default: if none of it is cached),\n"
	"                                always, never\n"
	"  -u, --sync                    copy again only what changed: an entry of the\n"
	"                                same type, size and mtime is skipped, its\n"
	"                                metadata brought up to date (not cp's -u)\n"
	"  -c, --checksum                the same, deciding by content (XXH3-128)\n"
	"      --delete                  remove what the source lacks from the copy\n"
	"      --max-delete N            delete at most N entries (then exit 1)\n"
	"      --mirror                  --sync --delete\n"
	"      --move                    move: rename on one filesystem, else copy,\n"
	"                                make durable, then remove the source\n"
	"      --dry-run                 say what would be copied, updated, deleted\n"
	"                                and left unchanged; change nothing\n"
	"  -v, --verbose                 print each item as it is done (stdout), and\n"
	"                                the summary\n"
	"      --stats                   print the summary (also when stderr is no\n"
	"                                terminal, where it is left out by default)\n"
	"  -q, --quiet                   no summary\n"
	"      --progress[=WHEN]         a status line on stderr: auto (default: on a\n"
	"                                terminal), bar (bare --progress), plain (a\n"
	"                                full line every 5 s, for logs), none\n"
	"      --json                    the summary as one JSON object on stdout\n"
	"      --events FILE             NDJSON events to FILE ('-': stdout): start,\n"
	"                                each item, progress, end\n"
	"      --log FILE                one line per item: action, path, bytes,\n"
	"                                result, reason\n"
	"      --help                    show this help\n"
	"      --version                 show the version (with -v: threads, engines)\n"
	"\n"
	"Files are written under a temporary name (.fcp-*) and renamed into place\n"
	"when complete. Errors are reported per item and the copy goes on.\n"
	"\n"
	"Exit status: 0 all copied, 1 some items failed, 2 bad usage.\n";

enum {
	OPT_SYMLINKS = 256, OPT_REFLINK, OPT_NO_PRESERVE, OPT_PRESERVE, OPT_FSYNC,
	OPT_NO_URING, OPT_DIRECT_READ, OPT_HELP, OPT_VERSION, OPT_STATS,
	OPT_DRY_RUN, OPT_DELETE, OPT_MAX_DELETE, OPT_MIRROR, OPT_MOVE,
	OPT_PROGRESS, OPT_JSON, OPT_EVENTS, OPT_LOG,
};

static const struct option longopts[] = {
	{ "archive", no_argument, NULL, 'a' },
	{ "recursive", no_argument, NULL, 'r' },
	{ "no-target-directory", no_argument, NULL, 'T' },
	{ "no-dereference", no_argument, NULL, 'P' },
	{ "dereference", no_argument, NULL, 'L' },
	{ "symlinks", required_argument, NULL, OPT_SYMLINKS },
	{ "reflink", optional_argument, NULL, OPT_REFLINK },
	{ "no-preserve", required_argument, NULL, OPT_NO_PRESERVE },
	{ "preserve", required_argument, NULL, OPT_PRESERVE },
	{ "fsync", no_argument, NULL, OPT_FSYNC },
	{ "threads", required_argument, NULL, 'j' },
	{ "no-io-uring", no_argument, NULL, OPT_NO_URING },
	{ "direct-read", required_argument, NULL, OPT_DIRECT_READ },
	{ "sync", no_argument, NULL, 'u' },
	{ "checksum", no_argument, NULL, 'c' },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "delete", no_argument, NULL, OPT_DELETE },
	{ "max-delete", required_argument, NULL, OPT_MAX_DELETE },
	{ "mirror", no_argument, NULL, OPT_MIRROR },
	{ "move", no_argument, NULL, OPT_MOVE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "progress", optional_argument, NULL, OPT_PROGRESS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ 0 },
};

__attribute__((format(printf, 1, 2))) static int bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fastcp: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'fastcp --help' for more information.\n", stderr);
	return FCP_EXIT_USAGE;
}

/* Parse a --preserve/--no-preserve list into FCP_PRESERVE_* bits; -1 on an
 * unknown name. */
static int preserve_bits(const char *list)
{
	static const struct { const char *name; int bits; } names[] = {
		{ "mode", FCP_PRESERVE_MODE }, { "ownership", FCP_PRESERVE_OWNER },
		{ "timestamps", FCP_PRESERVE_TIMES }, { "xattr", FCP_PRESERVE_XATTR },
		{ "links", FCP_PRESERVE_LINKS }, { "all", FCP_PRESERVE_ALL },
	};
	char *copy = strdup(list), *tok, *rest = copy;
	int bits = 0;

	/* strsep, not strtok: an empty name ("a,,b" or "") is an error too. */
	while (bits >= 0 && (tok = strsep(&rest, ","))) {
		size_t i;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			bits = -1;
			break;
		}
		bits |= names[i].bits;
	}
	free(copy);
	return bits;
}

/* A count in [min, max] written in decimal digits only: no sign, space,
 * base prefix or trailing garbage, and no value that overflows (strtol
 * would have cut 4294967297 to 1 through the int). */
static int parse_count(const char *arg, long min, long max, int *out)
{
	char *end;
	long v;

	if (*arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_word(const char *arg, const char *const *words, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, words[i]))
			return i;
	return -1;
}

static int parse_one(int c, const char *arg, struct fcp_options *o)
{
	static const char *const symlinks[] = { "keep", "follow", "rewrite", "skip" };
	static const char *const when[] = { "auto", "always", "never" }; /* both enums */
	static const char *const progress[] = { "auto", "bar", "plain", "none" };
	_Static_assert(FCP_DIRECT_AUTO == (int)FCP_REFLINK_AUTO &&
		       FCP_DIRECT_ALWAYS == (int)FCP_REFLINK_ALWAYS &&
		       FCP_DIRECT_NEVER == (int)FCP_REFLINK_NEVER, "when[] serves both enums");
	int v;

	switch (c) {
	case 'a': case 'r': case 'R': break;
	case 'T': o->no_target_dir = true; break;
	case 'P': o->symlinks = FCP_SYMLINKS_KEEP; break;
	case 'L': o->symlinks = FCP_SYMLINKS_FOLLOW; break;
	case 'v': o->verbose++; break;
	case OPT_STATS: o->stats = true; break;
	case 'q': o->quiet = true; break;
	case OPT_JSON: o->json = true; break;
	case OPT_EVENTS: o->events = arg; break;
	case OPT_LOG: o->log = arg; break;
	case OPT_PROGRESS:
		if ((v = arg ? parse_word(arg, progress, 4) : FCP_PROGRESS_BAR) < 0)
			return bad("invalid --progress value '%s' (auto, bar, plain, none)", arg);
		o->progress = (enum fcp_progress)v;
		break;
	case OPT_FSYNC: o->fsync = true; break;
	case 'u': o->sync = true; break;
	case 'c': o->checksum = true; break;
	case OPT_DRY_RUN: o->dry_run = true; break;
	case OPT_DELETE: o->delete_extra = true; break;
	case OPT_MIRROR: o->sync = o->delete_extra = true; break;
	case OPT_MOVE: o->move = true; break;
	case OPT_MAX_DELETE:
		if (parse_count(arg, 0, 2147483647, &v) < 0)
			return bad("invalid --max-delete count '%s' (0 to 2147483647)", arg);
		o->max_delete = v;
		break;
	case OPT_NO_URING: o->no_io_uring = true; break;
	case OPT_SYMLINKS:
		if ((v = parse_word(arg, symlinks, 4)) < 0)
			return bad("invalid --symlinks policy '%s' (keep, follow, rewrite, skip)", arg);
		o->symlinks = (enum fcp_symlinks)v;
		break;
	case OPT_DIRECT_READ:
		if ((v = parse_word(arg, when, 3)) < 0)
			return bad("invalid --direct-read value '%s' (auto, always, never)", arg);
		o->direct_read = (enum fcp_direct_read)v;
		break;
	case OPT_REFLINK:
		/* A bare --reflink means always, as in cp. */
		if ((v = arg ? parse_word(arg, when, 3) : FCP_REFLINK_ALWAYS) < 0)
			return bad("invalid --reflink value '%s' (auto, always, never)", arg);
		o->reflink = (enum fcp_reflink)v;
		break;
	case OPT_NO_PRESERVE:
	case OPT_PRESERVE:
		if ((v = preserve_bits(arg)) < 0)
			return bad("invalid attribute list '%s'", arg);
		o->preserve = c == OPT_PRESERVE ? o->preserve | v : o->preserve & ~v;
		break;
	case 'j':
		if (parse_count(arg, 1, 1024, &v) < 0)
			return bad("invalid thread count '%s' (1 to 1024)", arg);
		o->threads = v;
		break;
	default:
		return FCP_EXIT_USAGE;
	}
	return 0;
}

int fcp_cli_parse(int argc, char **argv, struct fcp_options *o, char ***srcs, int *nsrc,
		  char **dst)
{
	int c, r;
	bool version = false;

	/* 0, not 1: GNU getopt then starts afresh (a second parse in one
	 * process), permutation state included. Options may follow the
	 * operands, as in cp ("fastcp a b -v"); "--" ends them. */
	optind = 0;
	opterr = 0; /* our own messages, without the program's path */
	while ((c = getopt_long(argc, argv, ":arRTPLvqucj:", longopts, NULL)) != -1) {
		if (c == OPT_HELP) {
			fputs(usage_text, stdout);
			return -1;
		}
		if (c == OPT_VERSION) {
			version = true;
			continue;
		}
		if (c == '?' && optopt > 0 && optopt < 256)
			return bad("invalid option -- '%c'", optopt);
		if (c == '?')
			return bad("unrecognized option '%s'", argv[optind - 1]);
		if (c == ':')
			return bad("option '%s' requires an argument", argv[optind - 1]);
		if ((r = parse_one(c, optarg, o)))
			return r;
	}
	if (version) {
		printf("fastcp %s\n", fcp_version());
		if (o->verbose)
			fcp_describe(stdout);
		return -1;
	}
	if (o->max_delete >= 0 && !o->delete_extra)
		return bad("%s", "--max-delete limits --delete or --mirror, given neither");
	/* A dry run would have to say which sources go: it cannot know
	 * which copies would succeed. */
	if (o->move && o->dry_run)
		return bad("%s", "--dry-run cannot show a --move");
	if (o->checksum && !fcp_hash_available())
		return bad("%s", "--checksum is not available: fastcp was built without libxxhash");
	if (argc - optind < 1)
		return bad("%s", "missing file operand");
	if (argc - optind < 2)
		return bad("missing destination file operand after '%s'", argv[optind]);
	if (o->no_target_dir && argc - optind > 2)
		return bad("extra operand '%s'", argv[optind + 2]);
	/* An unset variable in a script ("fastcp $SRC $DEST") must not
	 * become "." and merge a tree into the current directory. */
	for (int i = optind; i < argc; i++)
		if (!argv[i][0])
			return bad("empty %s operand ''",
				   i == argc - 1 ? "destination" : "source");
	*srcs = argv + optind;
	*nsrc = argc - optind - 1;
	*dst = argv[argc - 1];
	return 0;
}
