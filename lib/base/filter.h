/*
 * filter.h - pattern matchers for choosing what to copy: rsync's filter
 * rules (--exclude, --include, --exclude-from) and git's ignore files
 * (--gitignore).
 *
 * Pure functions of strings, no syscalls and no allocation while
 * matching: rules are compiled once, when they are read (the command
 * line, or a .gitignore when its directory is scanned), and matched per
 * entry against its path relative to the copy's root (or, for a
 * .gitignore, to the ignore file's directory). lib/policy/pick.c decides with
 * them; the fuzz target (tests/fuzz/filter.c) and the unit test drive
 * them alone.
 *
 * Globs (fcp_glob_match) are wildmatch's, the matcher both rsync and git
 * use: '*' and '?' never match '/', "[...]" is a class ("[!..]" or
 * "[^..]" negated, ranges, [:alpha:] and the other POSIX classes), '\'
 * quotes the next character. '**' matches across '/': anywhere in rsync's
 * dialect; in git's only as a whole component ("**" + "/x", "x/" + "**",
 * "x/" + "**" + "/y", the last also matching "x/y"), elsewhere it is '*'.
 */
#ifndef FCP_FILTER_H
#define FCP_FILTER_H

#include <stdbool.h>
#include <stddef.h>

enum {
	FCP_GLOB_GIT = 1, /* git's '**' (whole components only) */
};

/* Does text match the glob pat? */
bool fcp_glob_match(const char *pat, const char *text, unsigned flags);

struct fcp_rule {
	char *pat;              /* the glob, without anchor or trailing '/' */
	bool include;           /* rsync '+' / --include; git '!' */
	bool dir_only;          /* a trailing '/': directories only */
	bool anchored;          /* matched against the whole path from the base */
	bool path;              /* against the path (else the last name) */
	bool dir_too;           /* rsync "dir/" + "***": dir itself, all below */
};

/* A list of rules in one dialect. */
struct fcp_rules {
	struct fcp_rule *v;
	size_t n, cap;
	bool git;               /* git's dialect and order (last match wins) */
	bool needs_path;        /* some rule looks past the last name */
	bool needs_type;        /* some rule is for directories only (or
				 * "dir/" + "***": directory dir) */
};

/* An rsync rule: pattern as given to --exclude (include false) or
 * --include. A leading '/' anchors it at the root of the copy; a pattern
 * with a '/' (or '**') elsewhere matches the end of the path at a name
 * boundary; one without, the last name at any depth. 0 or -ENOMEM;
 * -EINVAL for an empty pattern. */
int fcp_rules_add(struct fcp_rules *r, const char *pattern, bool include);

/* The lines of a file: rsync's --exclude-from (blank lines and lines
 * starting with '#' or ';' skipped; "- " and "+ " prefixes say exclude
 * or include, else exclude) or, with r->git, a .gitignore (git's rules:
 * '#' comments, '\#' and '\!' escapes, trailing spaces cut unless quoted
 * with '\', '!' negates, a '/' at the start or in the middle anchors at
 * the file's directory). 0 or -ENOMEM. */
int fcp_rules_parse(struct fcp_rules *r, const char *text, size_t len);

void fcp_rules_free(struct fcp_rules *r);

/* The command line's rules (struct fcp_options.filter). */
struct fcp_filter {
	struct fcp_rules rules;
};

void fcp_filter_free(struct fcp_filter *f);

/* The rule that decides for an entry whose path (relative to the rules'
 * base, no leading '/') is path, a directory when is_dir: 1 excluded, -1
 * included, 0 no rule matched. rsync's dialect: the first matching rule;
 * git's: the last. */
int fcp_rules_match(const struct fcp_rules *r, const char *path, bool is_dir);

#endif
