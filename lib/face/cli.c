/*
 * cli.c - fastcp's command line: cp's habits first.
 *
 * Lives in the library so that the unit tests can parse command lines
 * without running a copy.
 */
#include "fastcp.h"
#include "tree/dirlink.h"
#include "base/filter.h"
#include "base/sys.h"
#include "core/hash.h"
#include "core/job.h"
#include "dest/manifest.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Grouped the way people look for things (copying, copying again, checking,
 * choosing, output, cp's and rsync's spellings, tuning), examples last, each
 * line readable alone: a user scans for a word, not the whole text.
 * tests/e2e/help_sections.sh checks the headings, their order and that every
 * long option is here. */
static const char usage_text[] =
	"usage: fastcp [OPTIONS] SOURCE... DEST\n"
	"       fastcp [OPTIONS] -T SOURCE DEST\n"
	"       fastcp --check [OPTIONS] SOURCE... DEST\n"
	"       fastcp --check --manifest FILE DEST\n"
	"\n"
	"Copy files and directory trees exactly: data, holes, mode, owner, times,\n"
	"xattrs, ACLs, hard links, symlinks and special files (archive mode is the\n"
	"default). One SOURCE and a DEST that is not a directory: DEST becomes the\n"
	"copy; otherwise each SOURCE is copied to DEST/SOURCE's name.\n"
	"\n"
	"Copying:\n"
	"  -T, --no-target-directory     treat DEST as the copy itself\n"
	"  -t, --target-directory DIR    copy every SOURCE into DIR\n"
	"  -P, --no-dereference          keep symlinks as symlinks (default)\n"
	"  -L, --dereference             follow symlinks (loops are reported)\n"
	"      --symlinks=POLICY         symlinks: keep, follow, rewrite (re-point\n"
	"                                absolute links into the tree to the copy), skip\n"
	"      --reflink[=WHEN]          clone files: auto (default: when possible),\n"
	"                                always (fail a file that cannot), never\n"
	"      --no-preserve=LIST        leave out mode,ownership,timestamps,xattr,\n"
	"                                links or all (everything is kept by default)\n"
	"      --preserve=LIST           keep again what --no-preserve left out\n"
	"      --dedup[=HOW]             write files of one content once: the others\n"
	"                                as clones of the first copy (reflink, the\n"
	"                                default) or hard links to it (hardlink)\n"
	"      --fsync                   make every file durable before it is renamed\n"
	"      --atomic                  a new copy with a failed item keeps its hidden\n"
	"                                name (default: it gets its name, the failed\n"
	"                                items are listed)\n"
	"      --retries N               copy a file again from scratch after a\n"
	"                                transient error (EIO, ETIMEDOUT...), N times\n"
	"      --retry-wait SECONDS      wait before each of --retries (default 1)\n"
	"\n"
	"Copying again (sync, mirror, delete, resume, move):\n"
	"      --sync                    copy only what changed: an entry of the same\n"
	"                                type, size and mtime is skipped (its metadata\n"
	"                                brought up to date)\n"
	"  -c, --checksum                copy only what changed, deciding by content\n"
	"                                (XXH3-128) rather than by size and mtime\n"
	"      --mirror                  make DEST's copy the same as SOURCE: --sync\n"
	"                                and --delete (rsync -a --delete, robocopy /MIR)\n"
	"      --delete                  remove from the copy what SOURCE lacks\n"
	"                                (implies --sync)\n"
	"      --max-delete N            delete at most N entries (then exit 1)\n"
	"      --delete-excluded         --delete also removes what the filters exclude\n"
	"      --dry-run                 list what would change (-vv: every entry) and\n"
	"                                end with one line: would copy N entries\n"
	"                                (F files, D directories...; X MB), update M,\n"
	"                                ...; change nothing\n"
	"      --resume                  files from 1 GiB record their progress, and a\n"
	"                                re-run finishes them from there (with --sync)\n"
	"      --move                    move: rename on one filesystem, else copy,\n"
	"                                make durable, then remove the source\n"
	"\n"
	"Checking (verify, check, manifest):\n"
	"      --verify                  read each copied file back from storage and\n"
	"                                compare (XXH3-128); a mismatch is copied once\n"
	"                                more, then failed\n"
	"      --check                   compare SOURCE with its copy in DEST (content\n"
	"                                and metadata), say each difference, change\n"
	"                                nothing; exit 0 equal, 1 different\n"
	"      --manifest FILE           record the files copied or checked, with their\n"
	"                                hashes, in FILE (SQLite); --check --manifest\n"
	"                                FILE DEST re-reads DEST against it (bit rot)\n"
	"\n"
	"Choosing what to copy (filters):\n"
	"      --exclude PATTERN         leave out what matches (rsync's rules: '*',\n"
	"                                '**', '?', '[...]', a leading '/' anchors at\n"
	"                                the source, a trailing '/' is for directories)\n"
	"      --include PATTERN         copy what matches (among --include and\n"
	"                                --exclude, the first that matches decides)\n"
	"      --exclude-from FILE       --exclude rules from FILE ('-': standard\n"
	"                                input), one a line, '+ ' for an --include\n"
	"      --gitignore               leave out what the tree's .gitignore files\n"
	"                                ignore (as git ls-files would)\n"
	"      --exclude-caches          leave out directories with a CACHEDIR.TAG\n"
	"  -x, --one-file-system         do not copy what is mounted below a SOURCE\n"
	"      --min-size SIZE           leave out files smaller than SIZE (K, M, G)\n"
	"      --max-size SIZE           leave out files larger than SIZE (K, M, G)\n"
	"      --newer-than WHEN         copy only what was modified after WHEN (a date\n"
	"                                2026-01-31[ HH:MM[:SS]], @EPOCH, or 7d, 12h)\n"
	"      --older-than WHEN         copy only what was modified before WHEN (a\n"
	"                                date, @EPOCH, or an age such as 7d, 12h, 2w)\n"
	"  -m, --prune-empty-dirs        leave out the directories the filters left\n"
	"                                empty (as rsync -m)\n"
	"\n"
	"Output:\n"
	"  -v, --verbose                 print each item that changed, as cp -v does\n"
	"                                ('s/a' -> 'd/a'; removed 'd/x'); -vv also\n"
	"                                what was left as it was; then the summary\n"
	"                                and its table\n"
	"      --itemize-changes         print -v's lines as rsync -i does\n"
	"                                (>f+++++++++ d/a, .f..t...... d/b)\n"
	"      --stats                   print the summary and its table (total,\n"
	"                                copied, skipped, failed, extras, deleted),\n"
	"                                also when stderr is not a terminal\n"
	"  -q, --quiet                   print no summary\n"
	"      --progress[=WHEN]         a status line on stderr: auto (default: on a\n"
	"                                terminal), bar (bare --progress), plain (a\n"
	"                                full line every 5 s, for logs), none\n"
	"      --json                    print the summary as one JSON object on\n"
	"                                stdout, alone (other lines go to stderr),\n"
	"                                with \"changed\"; not with --events -\n"
	"      --events FILE             write NDJSON events to FILE ('-': stdout):\n"
	"                                start, each item, progress, end\n"
	"      --log FILE                write one line per item to FILE: action, path,\n"
	"                                bytes, result, reason\n"
	"      --debug                   say how each file was copied, and why\n"
	"      --help                    show this help\n"
	"      --version                 show the version (with -v: threads, engines)\n"
	"\n"
	"cp compatibility (and rsync habits; see 'Differences from cp' in fastcp(1)):\n"
	"  -a, -r, -R, --archive, --recursive  accepted for habit (always on)\n"
	"  -p, -d, --preserve=context    accepted for habit (archive mode is on; -p\n"
	"                                after --no-preserve keeps mode, owner, times)\n"
	"  -Z, --context                 the copy gets its place's default SELinux\n"
	"                                label, not its source's\n"
	"  -n, --no-clobber              replace no existing file\n"
	"  -i, --interactive             ask before replacing a file (answer on stdin)\n"
	"  -u, --update[=WHICH]          replace only files older than their source\n"
	"                                (older, the default), all, or none (as -n)\n"
	"  -b, --backup[=CONTROL]        rename each replaced file first: numbered (t),\n"
	"                                existing (nil), simple (never), none (off)\n"
	"  -S, --suffix SUFFIX           simple backups end in SUFFIX (default ~)\n"
	"      --parents                 copy SOURCE to DEST/SOURCE, its whole path\n"
	"  -H                            follow symlinks given as SOURCE\n"
	"  -l, --link                    hard-link files instead of copying them\n"
	"  -s, --symbolic-link           make symlinks to the sources instead of copies\n"
	"      --attributes-only         copy the metadata, not the data\n"
	"  -f, --force, --remove-destination  accepted: a file is always replaced\n"
	"                                whole, by a rename (never written in place)\n"
	"      --in-place                rewrite a file that is there, its own inode,\n"
	"                                as cp does (never through a symlink)\n"
	"      --strip-trailing-slashes  remove trailing slashes from each SOURCE\n"
	"      --sparse=WHEN             holes in the copy: auto (default: where the\n"
	"                                source has them), always (runs of zeros too),\n"
	"                                never\n"
	"      --copy-contents           read FIFOs and devices as files: their data\n"
	"                                becomes a regular file\n"
	"  -A, -X, -h, --acls, --xattrs, --human-readable  rsync's: accepted (ACLs and\n"
	"                                xattrs are always kept; sizes are always\n"
	"                                readable); -h alone shows this help\n"
	"      --inplace                 rsync's spelling of --in-place\n"
	"      --ignore-existing         rsync's: replace no existing file (as -n;\n"
	"                                it may go with --delete)\n"
	"      --size-only               rsync's: as --sync, but a file of the same\n"
	"                                size is up to date whatever its mtime\n"
	"      --info=progress2          rsync's: a status line for the whole copy\n"
	"                                (--info=stats2: --stats)\n"
	"  -K, --keep-directory-symlink, --keep-dirlinks  copy a directory into the\n"
	"                                directory a symlink in DEST leads to (not\n"
	"                                into a SOURCE; not with --delete)\n"
	"  rsync's -z (--compress), --partial and --remove-source-files are refused,\n"
	"  naming fastcp's way: local paths only; --resume; --move.\n"
	"\n"
	"Tuning:\n"
	"  -j, --threads N               worker threads (default 3 per CPU, at most 32,\n"
	"                                growing to 128 while they wait on slow sources)\n"
	"      --no-io-uring             copy small files with plain system calls, not\n"
	"                                in io_uring batches\n"
	"      --direct-read=WHEN        read files above 256 KiB around the page cache:\n"
	"                                auto (default: if none of it is cached),\n"
	"                                always, never\n"
	"      --bwlimit RATE            read at most RATE bytes/s from the sources\n"
	"                                (K, M, G: binary multiples; clones are free)\n"
	"      --iolimit N               at most N I/O operations per second\n"
	"\n"
	"Examples:\n"
	"  fastcp photos /backup/                    copy into /backup/photos\n"
	"  fastcp --mirror --dry-run -T ~/photos /backup/photos   what would change\n"
	"  fastcp --mirror -T ~/photos /backup/photos    again: only the changes\n"
	"  fastcp --check -T ~/photos /backup/photos     equal? exit 0 if so\n"
	"  fastcp --move card/DCIM photos            killed? the same command again\n"
	"  fastcp --gitignore -T ~/src /backup/src   what git would keep\n"
	"\n"
	"Files are written under a temporary name (.fcp-*) and renamed into place\n"
	"when complete. Errors are reported per item and the copy goes on.\n"
	"\n"
	"Exit status: 0 all copied, 1 some items failed, 2 bad usage.\n";

/* Choosing what to copy (apart from the others, which may grow). */
enum {
	OPT_EXCLUDE = 768, OPT_INCLUDE, OPT_EXCLUDE_FROM, OPT_GITIGNORE, OPT_EXCLUDE_CACHES,
	OPT_MIN_SIZE, OPT_MAX_SIZE, OPT_NEWER, OPT_OLDER, OPT_DELETE_EXCLUDED,
};

enum {
	OPT_SYMLINKS = 256, OPT_REFLINK, OPT_NO_PRESERVE, OPT_PRESERVE, OPT_FSYNC,
	OPT_NO_URING, OPT_DIRECT_READ, OPT_HELP, OPT_VERSION, OPT_STATS,
	OPT_DRY_RUN, OPT_DELETE, OPT_MAX_DELETE, OPT_MIRROR, OPT_MOVE, OPT_RESUME,
	OPT_VERIFY, OPT_PROGRESS, OPT_JSON, OPT_EVENTS, OPT_LOG,
	OPT_DEDUP,
	/* cp's own options */
	OPT_SYNC, OPT_UPDATE, OPT_BACKUP, OPT_PARENTS, OPT_ATTR_ONLY, OPT_REMOVE_DEST,
	OPT_STRIP_SLASHES, OPT_DEBUG, OPT_SPARSE, OPT_COPY_CONTENTS, OPT_IN_PLACE,
};

enum { OPT_CHECK = 512, OPT_MANIFEST }; /* issue 19 */
enum { OPT_ATOMIC = 3301 }; /* issue 33 */
enum { OPT_ITEMIZE = 3501 }; /* issue 35: what is printed */
enum { OPT_RETRIES = 1024, OPT_RETRY_WAIT, OPT_BWLIMIT, OPT_IOLIMIT }; /* issue 20: limits */
/* Habits of cp and rsync users (issue 35): their options taken with their
 * meaning where it fits fastcp, else refused naming fastcp's way. */
enum {
	OPT_CONTEXT = 1280, OPT_KEEP_DIR_SYMLINK, OPT_PARTIAL, OPT_INPLACE, OPT_IGNORE_EXISTING,
	OPT_REMOVE_SOURCE, OPT_SIZE_ONLY, OPT_INFO, OPT_COMPRESS, OPT_HUMAN, OPT_ACLS,
	OPT_XATTRS, OPT_PRUNE_EMPTY,
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
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "exclude-from", required_argument, NULL, OPT_EXCLUDE_FROM },
	{ "gitignore", no_argument, NULL, OPT_GITIGNORE },
	{ "exclude-caches", no_argument, NULL, OPT_EXCLUDE_CACHES },
	{ "one-file-system", no_argument, NULL, 'x' },
	{ "min-size", required_argument, NULL, OPT_MIN_SIZE },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "newer-than", required_argument, NULL, OPT_NEWER },
	{ "older-than", required_argument, NULL, OPT_OLDER },
	{ "delete-excluded", no_argument, NULL, OPT_DELETE_EXCLUDED },
	{ "sync", no_argument, NULL, OPT_SYNC },
	{ "checksum", no_argument, NULL, 'c' },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "manifest", required_argument, NULL, OPT_MANIFEST },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "delete", no_argument, NULL, OPT_DELETE },
	{ "max-delete", required_argument, NULL, OPT_MAX_DELETE },
	{ "mirror", no_argument, NULL, OPT_MIRROR },
	{ "move", no_argument, NULL, OPT_MOVE },
	{ "atomic", no_argument, NULL, OPT_ATOMIC },
	{ "resume", no_argument, NULL, OPT_RESUME },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "dedup", optional_argument, NULL, OPT_DEDUP },
	{ "retries", required_argument, NULL, OPT_RETRIES },
	{ "retry-wait", required_argument, NULL, OPT_RETRY_WAIT },
	{ "bwlimit", required_argument, NULL, OPT_BWLIMIT },
	{ "iolimit", required_argument, NULL, OPT_IOLIMIT },
	{ "context", optional_argument, NULL, OPT_CONTEXT },
	{ "keep-directory-symlink", no_argument, NULL, OPT_KEEP_DIR_SYMLINK },
	{ "keep-dirlinks", no_argument, NULL, OPT_KEEP_DIR_SYMLINK },
	{ "partial", no_argument, NULL, OPT_PARTIAL },
	{ "inplace", no_argument, NULL, OPT_INPLACE },
	{ "ignore-existing", no_argument, NULL, OPT_IGNORE_EXISTING },
	{ "remove-source-files", no_argument, NULL, OPT_REMOVE_SOURCE },
	{ "size-only", no_argument, NULL, OPT_SIZE_ONLY },
	{ "info", required_argument, NULL, OPT_INFO },
	{ "compress", no_argument, NULL, OPT_COMPRESS },
	{ "human-readable", no_argument, NULL, OPT_HUMAN },
	{ "acls", no_argument, NULL, OPT_ACLS },
	{ "xattrs", no_argument, NULL, OPT_XATTRS },
	{ "prune-empty-dirs", no_argument, NULL, OPT_PRUNE_EMPTY },
	/* cp's own options */
	{ "no-clobber", no_argument, NULL, 'n' },
	{ "force", no_argument, NULL, 'f' },
	{ "interactive", no_argument, NULL, 'i' },
	{ "update", optional_argument, NULL, OPT_UPDATE },
	{ "backup", optional_argument, NULL, OPT_BACKUP },
	{ "suffix", required_argument, NULL, 'S' },
	{ "target-directory", required_argument, NULL, 't' },
	{ "parents", no_argument, NULL, OPT_PARENTS },
	{ "link", no_argument, NULL, 'l' },
	{ "symbolic-link", no_argument, NULL, 's' },
	{ "attributes-only", no_argument, NULL, OPT_ATTR_ONLY },
	{ "remove-destination", no_argument, NULL, OPT_REMOVE_DEST },
	{ "strip-trailing-slashes", no_argument, NULL, OPT_STRIP_SLASHES },
	{ "debug", no_argument, NULL, OPT_DEBUG },
	{ "sparse", required_argument, NULL, OPT_SPARSE },
	{ "copy-contents", no_argument, NULL, OPT_COPY_CONTENTS },
	{ "in-place", no_argument, NULL, OPT_IN_PLACE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "progress", optional_argument, NULL, OPT_PROGRESS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "itemize-changes", no_argument, NULL, OPT_ITEMIZE },
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
		{ "links", FCP_PRESERVE_LINKS }, { "context", FCP_PRESERVE_CONTEXT },
		{ "all", FCP_PRESERVE_ALL },
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

/* --backup's CONTROL (or $VERSION_CONTROL), with cp's words and aliases;
 * a unique prefix is enough, as in cp. -1 when unknown or ambiguous. */
static int backup_control(const char *arg)
{
	static const struct { const char *word; enum fcp_backup b; } words[] = {
		{ "none", FCP_BACKUP_NONE }, { "off", FCP_BACKUP_NONE },
		{ "simple", FCP_BACKUP_SIMPLE }, { "never", FCP_BACKUP_SIMPLE },
		{ "existing", FCP_BACKUP_EXISTING }, { "nil", FCP_BACKUP_EXISTING },
		{ "numbered", FCP_BACKUP_NUMBERED }, { "t", FCP_BACKUP_NUMBERED },
	};
	int found = -1;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strcmp(arg, words[i].word))
			return words[i].b;
		if (*arg && !strncmp(arg, words[i].word, strlen(arg))) {
			if (found >= 0 && found != (int)words[i].b)
				return -1;
			found = words[i].b;
		}
	}
	return found;
}

static int parse_habit(int c, const char *arg, struct fcp_options *o);

/* cp's own options: one block, so that the table above stays readable. */
static int parse_cp(int c, const char *arg, struct fcp_options *o)
{
	static const char *const update[] = { "all", "none", "older" };
	static const char *const sparse[] = { "auto", "always", "never" };
	const char *env;
	int v;

	switch (c) {
	case 'n':
		o->update = FCP_UPDATE_NONE;
		o->interactive = false;
		o->ignore_existing = false;
		break;
	case 'i':
		o->interactive = true;
		if (o->update == FCP_UPDATE_NONE) /* the last of -i and -n wins */
			o->update = FCP_UPDATE_ALL;
		break;
	case 'u': /* -n wins over -u in either order, as in cp */
		if (o->update != FCP_UPDATE_NONE)
			o->update = FCP_UPDATE_OLDER;
		break;
	case OPT_UPDATE:
		if ((v = arg ? parse_word(arg, update, 3) : FCP_UPDATE_OLDER) < 0)
			return bad("invalid --update value '%s' (older, all, none)", arg);
		o->update = (enum fcp_update)v;
		break;
	case 'b': case OPT_BACKUP:
		if (c == 'b')
			arg = NULL;
		env = getenv("VERSION_CONTROL");
		if (!arg && env && *env)
			arg = env;
		if ((v = arg ? backup_control(arg) : FCP_BACKUP_EXISTING) < 0)
			return bad("invalid backup type '%s' (none, off, numbered, t, existing, "
				   "nil, simple, never)", arg);
		o->backup = (enum fcp_backup)v;
		break;
	case 'S':
		if (!*arg || strchr(arg, '/'))
			return bad("invalid suffix '%s', contains directory separator", arg);
		o->backup_suffix = arg;
		if (o->backup == FCP_BACKUP_NONE) /* -S alone backs up, as in cp */
			o->backup = FCP_BACKUP_EXISTING;
		break;
	case 't': o->target_directory = true; o->target = arg; break;
	case OPT_PARENTS: o->parents = true; break;
	case 'H':
		o->deref_args = true;
		if (o->symlinks == FCP_SYMLINKS_FOLLOW)
			o->symlinks = FCP_SYMLINKS_KEEP;
		break;
	case 'l': case 's':
		if (o->make == (c == 'l' ? FCP_MAKE_SYMLINK : FCP_MAKE_HARDLINK))
			return bad("%s", "cannot make both hard and symbolic links");
		o->make = c == 'l' ? FCP_MAKE_HARDLINK : FCP_MAKE_SYMLINK;
		break;
	case OPT_ATTR_ONLY: o->attributes_only = true; break;
	/* The default: a file is replaced whole, by a rename. */
	case 'f': o->force |= FCP_FORCE; break;
	case OPT_REMOVE_DEST: o->force |= FCP_FORCE_REMOVE; break;
	case OPT_STRIP_SLASHES: o->strip_slashes = true; break;
	case OPT_DEBUG: o->debug = true; break;
	case OPT_COPY_CONTENTS: o->copy_contents = true; break;
	case OPT_IN_PLACE: o->in_place = true; break;
	case OPT_SPARSE:
		if ((v = parse_word(arg, sparse, 3)) < 0)
			return bad("invalid --sparse value '%s' (auto, always, never)", arg);
		o->sparse = (enum fcp_sparse)v;
		break;
	default:
		return parse_habit(c, arg, o);
	}
	return 0;
}

/* --info=FLAGS: rsync's progress2 (and progress1) is --progress, stats
 * (stats1, stats2) is --stats; -1 for the others. */
static int parse_info(const char *arg, struct fcp_options *o)
{
	char *copy = strdup(arg), *tok, *rest = copy;
	int r = copy ? 0 : -1;

	while (r == 0 && (tok = strsep(&rest, ","))) {
		if (!strcmp(tok, "progress1") || !strcmp(tok, "progress2"))
			o->progress = FCP_PROGRESS_BAR;
		else if (!strcmp(tok, "stats") || !strcmp(tok, "stats1") || !strcmp(tok, "stats2"))
			o->stats = true;
		else
			r = -1;
	}
	free(copy);
	return r;
}

/*
 * Options cp and rsync users type by habit. Where fastcp does the same
 * already (it keeps everything by default), they are accepted; where it
 * has its own way, the refusal names it; fastcp never guesses a meaning
 * that could cost data.
 */
static int parse_habit(int c, const char *arg, struct fcp_options *o)
{
	switch (c) {
	/* cp -p keeps mode, owner and times; rsync -A, -X ACLs and xattrs
	 * (one part here): on by default, and on again after a
	 * --no-preserve before them, as in cp, where the last one wins.
	 * rsync -h only changes how numbers are printed. */
	case 'p':
		o->preserve |= FCP_PRESERVE_MODE | FCP_PRESERVE_OWNER | FCP_PRESERVE_TIMES;
		break;
	case 'A': case 'X': case OPT_ACLS: case OPT_XATTRS:
		o->preserve |= FCP_PRESERVE_XATTR;
		break;
	case 'h': case OPT_HUMAN:
		break;
	/* cp -d: --no-dereference --preserve=links, both the default. */
	case 'd':
		o->symlinks = FCP_SYMLINKS_KEEP;
		o->deref_args = false;
		o->preserve |= FCP_PRESERVE_LINKS;
		break;
	/* cp -Z: the copy gets the default SELinux context of its place, as
	 * a new file there would, not its source's. */
	case 'Z': case OPT_CONTEXT:
		if (arg)
			return bad("--context=%s: fastcp cannot give a named SELinux context; -Z "
				   "gives each copy the default context of its place", arg);
		o->preserve &= ~FCP_PRESERVE_CONTEXT;
		break;
	case 'K': case OPT_KEEP_DIR_SYMLINK: o->keep_dirlinks = true; break;
	case OPT_INPLACE: o->in_place = true; break;
	case 'm': case OPT_PRUNE_EMPTY: o->prune_empty_dirs = true; break;
	/* -n, named by rsync: it says what it means, so --delete may go with it. */
	case OPT_IGNORE_EXISTING:
		o->update = FCP_UPDATE_NONE;
		o->interactive = false;
		o->ignore_existing = true;
		break;
	case OPT_SIZE_ONLY: o->size_only = o->sync = true; break;
	case OPT_INFO:
		if (parse_info(arg, o) < 0)
			return bad("invalid --info value '%s' (progress2 is --progress, stats2 is "
				   "--stats, and -v prints each item)", arg);
		break;
	case 'z': case OPT_COMPRESS:
		return bad("%s", "-z (--compress) is not supported: fastcp copies between local "
			   "paths, with nothing to compress");
	case OPT_PARTIAL:
		return bad("%s", "--partial is not supported: a file gets its name only when whole; "
			   "use --resume to finish a killed run's large files where they stopped");
	case OPT_REMOVE_SOURCE:
		return bad("%s", "--remove-source-files is not supported: use --move (each source goes "
			   "once its copy is durable)");
	default:
		return FCP_EXIT_USAGE;
	}
	return 0;
}

/* A size: decimal digits and an optional K, M, G or T (powers of 1024). */
static int parse_size(const char *arg, long long *out)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	long long v;
	int shift = 0;

	if (*arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	v = strtoll(arg, &end, 10);
	if (*end && end[1] == 0 && (u = strchr(units, toupper((unsigned char)*end))))
		shift = 10 * (int)(u - units + 1), end++;
	if (errno || *end || v > (LLONG_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

/* An ISO date "2026-01-31[ HH:MM[:SS]]" (local time; 'T' may part date
 * and time), "@EPOCH" (seconds), or an age "N[smhdw]" before now: in
 * nanoseconds since the epoch. */
static int parse_when(const char *arg, long long *out)
{
	static const struct { char unit; long long secs; } ages[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 604800 },
	};
	struct tm tm = { .tm_isdst = -1 };
	long long v;
	char *end;
	int n = -1;

	if (arg[0] == '@' || (arg[0] >= '0' && arg[0] <= '9' && !strchr(arg, '-'))) {
		long long now = time(NULL), secs = -1;

		errno = 0;
		v = strtoll(arg + (arg[0] == '@'), &end, 10);
		if (errno || end == arg + (arg[0] == '@') || v < 0)
			return -1;
		if (arg[0] == '@' && !*end)
			secs = v;
		for (size_t i = 0; arg[0] != '@' && i < sizeof(ages) / sizeof(ages[0]); i++)
			if (end[0] == ages[i].unit && !end[1]) {
				if (v > now / ages[i].secs)
					return -1; /* before the epoch */
				secs = now - v * ages[i].secs;
				end++;
			}
		/* A bare number is neither: refused, not guessed. */
		if (*end || secs < 0 || secs > LLONG_MAX / 1000000000)
			return -1;
		*out = secs * 1000000000;
		return 0;
	}
	if (sscanf(arg, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &n) != 3 || n != 10)
		return -1;
	if (arg[n] && ((arg[n] != ' ' && arg[n] != 'T') ||
		       sscanf(arg + n + 1, "%2d:%2d%n:%2d%n", &tm.tm_hour, &tm.tm_min, &n, &tm.tm_sec,
			      &n) < 2 || arg[11 + n]))
		return -1;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	n = tm.tm_mday;
	*out = (long long)mktime(&tm) * 1000000000;
	return tm.tm_mday == n ? 0 : -1; /* "2026-02-30" moved on to March */
}

/* The text of an --exclude-from file, read once to its end as rsync reads
 * it: "-" is stdin, and a pipe (a shell's <(...), /dev/fd/N) or a symlink
 * the user named is read as well as a file. */
static ssize_t read_rules(const char *arg, char **text)
{
	int fd = strcmp(arg, "-") ? fcp_sys_openat(AT_FDCWD, arg, O_RDONLY | O_NOCTTY | O_CLOEXEC, 0)
				  : STDIN_FILENO;
	ssize_t n;

	if (fd < 0)
		return fd;
	n = fcp_sys_read_stream(fd, 16 << 20, text);
	if (fd != STDIN_FILENO)
		close(fd);
	return n;
}

/* A rule of --exclude or --include, or the rules of an --exclude-from
 * file, added to the options' list. */
static int add_rules(struct fcp_options *o, int c, const char *arg)
{
	char *text = NULL;
	ssize_t n = 0;
	int r;

	if (!o->filter && !(o->filter = calloc(1, sizeof(*o->filter))))
		return bad("%s", "out of memory");
	if (c != OPT_EXCLUDE_FROM) {
		r = fcp_rules_add(&o->filter->rules, arg, c == OPT_INCLUDE);
		if (r == -EINVAL)
			return bad("empty pattern '%s' for --%s", arg,
				   c == OPT_INCLUDE ? "include" : "exclude");
		return r < 0 ? bad("%s", "out of memory") : 0;
	}
	n = read_rules(arg, &text);
	if (n < 0)
		return bad("cannot read --exclude-from file '%s': %s", arg, strerror((int)-n));
	r = fcp_rules_parse(&o->filter->rules, text, (size_t)n);
	free(text);
	return r < 0 ? bad("%s", "out of memory") : 0;
}

/* A non-negative decimal number (fractions allowed) with an optional
 * binary multiplier suffix from sfx ("KMG": 1024, 1024^2, 1024^3); -1 if
 * it is not one, or is above max. */
static double parse_amount(const char *arg, const char *sfx, double max)
{
	char *end;
	double v;

	if ((*arg < '0' || *arg > '9') && *arg != '.')
		return -1;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg)
		return -1;
	for (const char *s = sfx; *end && *s; s++) {
		v *= 1024;
		if ((*end | 0x20) == (*s | 0x20)) {
			end++;
			break;
		}
		if (!s[1])
			return -1;
	}
	return *end || v > max ? -1 : v;
}

/* --retries, --retry-wait, --bwlimit, --iolimit (lib/core/limiter.c). */
static int parse_limit(int c, const char *arg, struct fcp_options *o)
{
	double v;
	int n;

	switch (c) {
	case OPT_RETRIES:
		if (parse_count(arg, 0, 1000000, &n) < 0)
			return bad("invalid --retries count '%s' (0 to 1000000)", arg);
		o->retries = n;
		return 0;
	case OPT_RETRY_WAIT:
		if ((v = parse_amount(arg, "", 86400)) < 0)
			return bad("invalid --retry-wait '%s' (seconds, 0 to 86400)", arg);
		o->retry_wait = v;
		return 0;
	case OPT_BWLIMIT:
		if ((v = parse_amount(arg, "KMG", 1e18)) < 1)
			return bad("invalid --bwlimit rate '%s' (bytes per second, e.g. 50M)", arg);
		o->bwlimit = (uint64_t)v;
		return 0;
	case OPT_IOLIMIT:
		if (parse_count(arg, 1, 1000000000, &n) < 0)
			return bad("invalid --iolimit '%s' (operations per second, 1 to 1000000000)", arg);
		o->iolimit = (uint64_t)n;
		return 0;
	}
	return FCP_EXIT_USAGE;
}

static int parse_one(int c, const char *arg, struct fcp_options *o)
{
	static const char *const symlinks[] = { "keep", "follow", "rewrite", "skip" };
	static const char *const dedup[] = { "off", "reflink", "hardlink" };
	static const char *const when[] = { "auto", "always", "never" }; /* both enums */
	static const char *const progress[] = { "auto", "bar", "plain", "none" };
	_Static_assert(FCP_DIRECT_AUTO == (int)FCP_REFLINK_AUTO &&
		       FCP_DIRECT_ALWAYS == (int)FCP_REFLINK_ALWAYS &&
		       FCP_DIRECT_NEVER == (int)FCP_REFLINK_NEVER, "when[] serves both enums");
	int v;

	switch (c) {
	case 'a': case 'r': case 'R': break;
	case 'T': o->no_target_dir = true; break;
	/* The last of -P, -L and -H wins, as in cp. */
	case 'P': o->symlinks = FCP_SYMLINKS_KEEP; o->deref_args = false; break;
	case 'L': o->symlinks = FCP_SYMLINKS_FOLLOW; o->deref_args = false; break;
	case 'v': o->verbose++; break;
	case OPT_STATS: o->stats = true; break;
	case 'q': o->quiet = true; break;
	case OPT_JSON: o->json = true; break;
	case OPT_EVENTS: o->events = arg; break;
	case OPT_LOG: o->log = arg; break;
	case OPT_ITEMIZE: o->itemize = true; break;
	case OPT_PROGRESS:
		if ((v = arg ? parse_word(arg, progress, 4) : FCP_PROGRESS_BAR) < 0)
			return bad("invalid --progress value '%s' (auto, bar, plain, none)", arg);
		o->progress = (enum fcp_progress)v;
		break;
	case OPT_FSYNC: o->fsync = true; break;
	case OPT_SYNC: o->sync = true; break;
	case 'c': o->checksum = true; break;
	case OPT_CHECK: o->check = true; break;
	case OPT_MANIFEST:
		if (!*arg)
			return bad("%s", "empty --manifest file name ''");
		o->manifest = arg;
		break;
	case OPT_DRY_RUN: o->dry_run = true; break;
	case OPT_DELETE: o->delete_extra = true; break;
	case OPT_MIRROR: o->sync = o->delete_extra = true; break;
	case OPT_MOVE: o->move = true; break;
	case OPT_ATOMIC: o->atomic = true; break;
	/* Finishing what a killed run left is --sync's work: implied, so
	 * that the first run and the re-run can be one command. */
	case OPT_RESUME: o->resume = o->sync = true; break;
	case OPT_VERIFY: o->verify = true; break;
	case OPT_DEDUP:
		/* A bare --dedup clones, as a bare --reflink does. */
		if ((v = arg ? parse_word(arg, dedup, 3) : FCP_DEDUP_REFLINK) < 0)
			return bad("invalid --dedup value '%s' (off, reflink, hardlink)", arg);
		o->dedup = (enum fcp_dedup)v;
		break;
	case OPT_MAX_DELETE:
		if (parse_count(arg, 0, 2147483647, &v) < 0)
			return bad("invalid --max-delete count '%s' (0 to 2147483647)", arg);
		o->max_delete = v;
		break;
	case OPT_NO_URING: o->no_io_uring = true; break;
	case OPT_EXCLUDE: case OPT_INCLUDE: case OPT_EXCLUDE_FROM: return add_rules(o, c, arg);
	case OPT_GITIGNORE: o->gitignore = true; break;
	case OPT_EXCLUDE_CACHES: o->exclude_caches = true; break;
	case 'x': o->one_file_system = true; break;
	case OPT_DELETE_EXCLUDED: o->delete_excluded = o->delete_extra = true; break;
	case OPT_MIN_SIZE: case OPT_MAX_SIZE:
		if (parse_size(arg, c == OPT_MIN_SIZE ? &o->min_size : &o->max_size) < 0)
			return bad("invalid size '%s' for --%s (a number, then K, M, G or T)", arg,
				   c == OPT_MIN_SIZE ? "min-size" : "max-size");
		break;
	case OPT_NEWER: case OPT_OLDER:
		if (parse_when(arg, c == OPT_NEWER ? &o->newer_than : &o->older_than) < 0)
			return bad("invalid time '%s' for --%s (2026-01-31[ HH:MM[:SS]], @EPOCH, "
				   "or an age such as 7d)", arg,
				   c == OPT_NEWER ? "newer-than" : "older-than");
		break;
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
	case OPT_RETRIES:
	case OPT_RETRY_WAIT:
	case OPT_BWLIMIT:
	case OPT_IOLIMIT:
		return parse_limit(c, arg, o);
	default:
		return parse_cp(c, arg, o);
	}
	return 0;
}

/* --strip-trailing-slashes: "d/" names the entry d, not what it leads to
 * ("/" stays "/"). The operands are edited in place. */
static void strip_slashes(int n, char **ops)
{
	for (int i = 0; i < n; i++) {
		size_t len = strlen(ops[i]);

		while (len > 1 && ops[i][len - 1] == '/')
			ops[i][--len] = 0;
	}
}

/* Will the sources go into a directory? cp strips their slashes only
 * then: "cp --strip-trailing-slashes link/ new" still copies the
 * directory link/ leads to. */
static bool into_directory(const struct fcp_options *o, int n, char **ops)
{
	struct stat st;

	if (o->target_directory || n > 2)
		return true;
	return n == 2 && !o->no_target_dir && stat(ops[1], &st) == 0 && S_ISDIR(st.st_mode);
}

/* --check and --manifest with what they cannot go with. */
static int check_usage(const struct fcp_options *o, int operands)
{
	if (o->manifest && !fcp_manifest_available())
		return bad("%s", "--manifest is not available: fastcp was built without SQLite");
	if (o->manifest && o->dry_run)
		return bad("%s", "--manifest records what was done: not with --dry-run");
	if (!o->check)
		return 0;
	if (!fcp_hash_available())
		return bad("%s", "--check is not available: fastcp was built without libxxhash");
	/* A check changes nothing: what would change is --dry-run's to say. */
	if (o->move || o->delete_extra || o->dry_run || o->max_delete >= 0)
		return bad("%s", "--check changes nothing: not with --move, --delete, --mirror, "
			   "--max-delete or --dry-run");
	/* --parents makes SOURCE's directories in DEST before the walk. */
	if (o->parents)
		return bad("%s", "--check changes nothing: not with --parents");
	if (operands == 1 && !o->manifest)
		return bad("%s", "--check of one operand needs --manifest FILE");
	return 0;
}

/* The short options rsync users type by habit that mean another thing in
 * cp: -n with -v (rsync's -avn, a dry run) copies for real; -i with -a or
 * -v and no terminal to answer on (rsync's -ai, itemize) asks on a stdin
 * nobody reads. Said once, then the copy goes on as cp's. */
static void habit_notes(const struct fcp_options *o, bool short_n, bool short_i, bool short_a)
{
	if (short_n && o->verbose && o->update == FCP_UPDATE_NONE && !o->dry_run)
		fputs("fastcp: note: -n is cp's --no-clobber (replace no existing file), not "
		      "rsync's dry run: that is --dry-run\n", stderr);
	if (short_i && (short_a || o->verbose) && o->interactive && !o->itemize &&
	    !isatty(STDIN_FILENO))
		fputs("fastcp: note: -i is cp's --interactive (ask before replacing a file, the "
		      "answer read from stdin), not rsync's itemize: that is --itemize-changes\n",
		      stderr);
}

int fcp_cli_parse(int argc, char **argv, struct fcp_options *o, char ***srcs, int *nsrc,
		  char **dst)
{
	int c, r, li;
	bool version = false, short_n = false, short_i = false, short_a = false;

	/* 0, not 1: GNU getopt then starts afresh (a second parse in one
	 * process), permutation state included. Options may follow the
	 * operands, as in cp ("fastcp a b -v"); "--" ends them. */
	optind = 0;
	opterr = 0; /* our own messages, without the program's path */
	/* -h is rsync's --human-readable (accepted); alone, as in rsync, the
	 * person asks for help. */
	if (argc == 2 && !strcmp(argv[1], "-h")) {
		fputs(usage_text, stdout);
		return -1;
	}
	while ((li = -1, c = getopt_long(argc, argv, ":arRTPLvqucxj:nibS:t:HlsfpdZhzAXmK",
					 longopts, &li)) != -1) {
		/* getopt_long sets li for a long option only. */
		short_n |= c == 'n' && li < 0;
		short_i |= c == 'i' && li < 0;
		short_a |= c == 'a' && li < 0;
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
	/* stdout holds one JSON object or NDJSON lines: a program reading
	 * it could parse neither. */
	if (o->json && o->events && !strcmp(o->events, "-"))
		return bad("%s", "--json and --events - would both write to standard output: give "
			   "--events a file (--events FILE), or leave out --json (the end event "
			   "holds the summary)");
	if (o->max_delete >= 0 && !o->delete_extra)
		return bad("%s", "--max-delete limits --delete or --mirror, given neither");
	/* rsync always quick-checks: a --delete that copied every file again
	 * would be the slow surprise of a backup's re-run. -c decides by
	 * content instead. */
	if (o->delete_extra && !o->checksum)
		o->sync = true;
	if (o->size_only && (o->check || o->checksum))
		return bad("%s", "--size-only decides by size, --check and -c by content: not both");
	/* No file could pass both: a slip of the keyboard, not a copy of
	 * nothing to be reported as a success. */
	if (o->max_size >= 0 && o->min_size > o->max_size)
		return bad("--min-size %lld is larger than --max-size %lld: no file could pass both",
			   o->min_size, o->max_size);
	/* -t DIR is DEST: one operand more. */
	if ((r = check_usage(o, argc - optind + o->target_directory)))
		return r;
	/* DEST alone */
	if (o->check && o->manifest && argc - optind == 1 && !o->target_directory) {
		*srcs = argv + optind;
		*nsrc = 0;
		*dst = argv[optind];
		return argv[optind][0] ? 0 : bad("%s", "empty destination operand ''");
	}
	/* The metadata alone, or a link to the source, is no copy of the
	 * data: the source would go and its bytes with it. */
	if (fcp_move_conflict(o))
		return bad("--move cannot be combined with %s: it makes no copy of the data "
			   "before the source goes", fcp_move_conflict(o));
	if (fcp_dirlink_conflict(o))
		return bad("%s", fcp_dirlink_conflict(o));
	/* rsync's -n is a dry run: a user who means one must not get
	 * deletions for real, as cp's no-clobber would give. */
	if (o->update == FCP_UPDATE_NONE && o->delete_extra && !o->ignore_existing)
		return bad("%s", "-n (--no-clobber, --update=none) is not a dry run and cannot be "
			   "combined with --delete or --mirror: use --dry-run to see what would "
			   "be deleted");
	if (o->checksum && !fcp_hash_available())
		return bad("%s", "--checksum is not available: fastcp was built without libxxhash");
	if (o->verify && !fcp_hash_available())
		return bad("%s", "--verify is not available: fastcp was built without libxxhash");
	if (o->dedup && !fcp_hash_available())
		return bad("%s", "--dedup is not available: fastcp was built without libxxhash");
	if (o->backup && o->update == FCP_UPDATE_NONE)
		return bad("%s", "options --backup and --no-clobber are mutually exclusive");
	/* A clone shares the source's extents, holes and zeros as they are. */
	if (o->sparse != FCP_SPARSE_AUTO && o->reflink == FCP_REFLINK_ALWAYS)
		return bad("%s", "--reflink=always can be used only with --sparse=auto");
	if (o->target_directory && o->no_target_dir)
		return bad("%s", "cannot combine --target-directory (-t) and "
			   "--no-target-directory (-T)");
	if (o->strip_slashes && into_directory(o, argc - optind, argv + optind))
		strip_slashes(argc - optind - !o->target_directory, argv + optind);
	if (argc - optind < 1)
		return bad("%s", "missing file operand");
	if (o->target_directory) {
		if (!*o->target)
			return bad("%s", "empty target directory ''");
		for (int i = optind; i < argc; i++)
			if (!argv[i][0])
				return bad("%s", "empty source operand ''");
		habit_notes(o, short_n, short_i, short_a);
		*srcs = argv + optind;
		*nsrc = argc - optind;
		*dst = (char *)o->target;
		return 0;
	}
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
	habit_notes(o, short_n, short_i, short_a);
	*srcs = argv + optind;
	*nsrc = argc - optind - 1;
	*dst = argv[argc - 1];
	return 0;
}
