/*
 * filter.c - rsync's filter rules and git's ignore rules (filter.h).
 *
 * The glob is wildmatch's algorithm (rsync's lib/wildmatch.c, kept by git
 * as wildmatch.c): recursion only at a '*', and two abort codes that stop
 * the backtracking as soon as no later start can match, so a hostile
 * pattern costs polynomial time, not exponential.
 */
#include "base/filter.h"
#include "base/grow.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { MATCH = 0, NOMATCH = 1, ABORT_ALL = -1, ABORT_TO_STARSTAR = -2 };

static bool glob_special(char c)
{
	return c == '*' || c == '?' || c == '[' || c == '\\';
}

/* "[:name:]" at p (inside a class): 1 when c belongs, 0 when not, -1
 * for an unknown name (a malformed pattern, as in git); *end is set on
 * the ']' of ":]", or NULL when no ":]" closes it (then it is a '['). */
static int posix_class(const char *p, unsigned char c, const char **end)
{
	static const struct { const char *name; int (*is)(int); } cls[] = {
		{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank },
		{ "cntrl", iscntrl }, { "digit", isdigit }, { "graph", isgraph },
		{ "lower", islower }, { "print", isprint }, { "punct", ispunct },
		{ "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
	};
	const char *s = p + 2, *close = strchr(s, ']');
	size_t n;

	*end = NULL;
	if (!close || close == s || close[-1] != ':')
		return 0;
	*end = close;
	n = close - 1 - s;
	for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++)
		if (strlen(cls[i].name) == n && !strncmp(s, cls[i].name, n))
			return cls[i].is(c) != 0;
	return -1;
}

/* The class at p ('[' already passed) against t: MATCH or NOMATCH, and
 * *pp on its closing ']'; ABORT_ALL when the class never closes. */
static int match_class(const char **pp, unsigned char t)
{
	const char *p = *pp, *end;
	unsigned char prev = 0, c = *p;
	bool negated = false, matched = false;

	if (c == '!' || c == '^') {
		negated = true;
		c = *++p;
	}
	do {
		if (!c)
			return ABORT_ALL;
		if (c == '\\') {
			if (!(c = *++p))
				return ABORT_ALL;
			matched |= t == c;
		} else if (c == '-' && prev && p[1] && p[1] != ']') {
			c = *++p;
			if (c == '\\' && !(c = *++p))
				return ABORT_ALL;
			matched |= t <= c && t >= prev;
			c = 0; /* a range ends: no range starts from its end */
		} else if (c == '[' && p[1] == ':') {
			int in = posix_class(p, t, &end);
			if (in < 0)
				return ABORT_ALL;
			if (!end) {
				matched |= t == '['; /* "[:" without ":]": a '[' */
			} else {
				matched |= in;
				p = end;
				c = 0;
			}
		} else {
			matched |= t == c;
		}
		prev = c;
	} while ((c = *++p) != ']');
	*pp = p;
	return matched != negated && t != '/' ? MATCH : NOMATCH;
}

/* The stars from first to p (p past the last): may they cross '/'? In git's dialect
 * only as a whole component; then "x/ ** /y" (p on "/y") matched with the
 * slash skipped is tried first, as git does, so that it also matches
 * "x/y". */
static int star_star(const char *pat, const char *first, const char *p, const char *text,
		     unsigned flags, bool *slash);
static int dowild(const char *pat, const char *p, const char *text, unsigned flags);

static int star(const char *pat, const char *p, const char *text, unsigned flags)
{
	const char *first = p;
	bool slash = false;
	int m;

	if (*++p == '*') {
		while (*++p == '*')
			;
		if (star_star(pat, first, p, text, flags, &slash) == MATCH)
			return MATCH;
	}
	if (!*p) /* trailing: '**' takes everything, '*' the rest of a name */
		return !slash && strchr(text, '/') ? NOMATCH : MATCH;
	if (!slash && *p == '/') {
		const char *s = strchr(text, '/');
		return s ? dowild(pat, p + 1, s + 1, flags) : NOMATCH;
	}
	for (unsigned char t = *text; t; t = *++text) {
		/* A literal next: what comes before it belongs to the star. */
		if (!glob_special(*p)) {
			while ((t = *text) && (slash || t != '/') && t != (unsigned char)*p)
				text++;
			/* Not before the end: no later start finds it either. */
			if (t != (unsigned char)*p)
				return t ? ABORT_TO_STARSTAR : ABORT_ALL;
		}
		if ((m = dowild(pat, p, text, flags)) != NOMATCH) {
			if (!slash || m != ABORT_TO_STARSTAR)
				return m;
		} else if (!slash && t == '/') {
			return ABORT_TO_STARSTAR;
		}
	}
	return ABORT_ALL;
}

static int star_star(const char *pat, const char *first, const char *p, const char *text,
		     unsigned flags, bool *slash)
{
	const char *before = first - 1; /* the character before the stars */

	*slash = true;
	if (!(flags & FCP_GLOB_GIT))
		return NOMATCH;
	if ((before < pat || *before == '/') && (!*p || *p == '/')) {
		if (*p == '/' && dowild(pat, p + 1, text, flags) == MATCH)
			return MATCH;
		return NOMATCH;
	}
	*slash = false; /* "a**b": git reads it as '*' */
	return NOMATCH;
}

static int dowild(const char *pat, const char *p, const char *text, unsigned flags)
{
	for (; *p; text++, p++) {
		unsigned char t = *text, c = *p;
		int m;

		if (!t && c != '*')
			return ABORT_ALL;
		switch (c) {
		case '\\':
			/* A '\' at the very end quotes nothing: no match. */
			if (!(c = *++p))
				return NOMATCH;
			/* fall through */
		default:
			if (t != c)
				return NOMATCH;
			continue;
		case '?':
			if (t == '/')
				return NOMATCH;
			continue;
		case '*':
			return star(pat, p, text, flags);
		case '[':
			p++;
			if ((m = match_class(&p, t)) != MATCH)
				return m;
			continue;
		}
	}
	return *text ? NOMATCH : MATCH;
}

bool fcp_glob_match(const char *pat, const char *text, unsigned flags)
{
	return dowild(pat, pat, text, flags) == MATCH;
}

static int push(struct fcp_rules *r, struct fcp_rule *rule)
{
	struct fcp_rule *v = fcp_grow(r->v, &r->cap, r->n + 1, sizeof(*v), 8);

	if (!v)
		return -ENOMEM;
	r->v = v;
	r->v[r->n++] = *rule;
	r->needs_path |= rule->path;
	r->needs_type |= rule->dir_only || rule->dir_too;
	return 0;
}

/* Compile pattern s (len bytes, prefixes gone) into a rule. */
static int compile(struct fcp_rules *r, const char *s, size_t len, bool include)
{
	struct fcp_rule rule = { .include = include };

	len = strnlen(s, len); /* a NUL in a file's line ends the pattern */
	if (len && s[len - 1] == '/' && (len < 2 || s[len - 2] != '\\')) {
		rule.dir_only = true;
		while (len && s[len - 1] == '/')
			len--;
	}
	if (len && s[0] == '/') {
		rule.anchored = true;
		while (len && s[0] == '/')
			s++, len--;
	}
	/* Something before the "/" + "***" (what dir_itself() matches). */
	if (!r->git && len >= 5 && !memcmp(s + len - 4, "/***", 4)) {
		rule.dir_too = true;
		len -= 1; /* below it ("dir/" + "**"); dir_too adds dir */
	}
	if (!len)
		return -EINVAL;
	if (memchr(s, '/', len) || (!r->git && memmem(s, len, "**", 2)))
		rule.path = true;
	/* git anchors every pattern with a '/' before its end at the base. */
	if (r->git && rule.path)
		rule.anchored = true;
	rule.path |= rule.anchored;
	if (!(rule.pat = strndup(s, len)))
		return -ENOMEM;
	if (push(r, &rule) < 0) {
		free(rule.pat);
		return -ENOMEM;
	}
	return 0;
}

int fcp_rules_add(struct fcp_rules *r, const char *pattern, bool include)
{
	return compile(r, pattern, strlen(pattern), include);
}

/* A line of a .gitignore (len bytes, no newline). */
static int git_line(struct fcp_rules *r, const char *s, size_t len)
{
	bool negate = false;

	if (len && s[len - 1] == '\r')
		len--;
	/* Trailing spaces go, unless the last one is quoted. */
	while (len && s[len - 1] == ' ' && (len < 2 || s[len - 2] != '\\'))
		len--;
	if (!len || s[0] == '#')
		return 0;
	if (s[0] == '!') {
		negate = true;
		s++, len--;
	}
	/* "\!" and "\#" start a pattern with that character: the glob's
	 * quoting takes care of it. */
	return len ? compile(r, s, len, negate) : 0;
}

/* A line of an --exclude-from file. */
static int rsync_line(struct fcp_rules *r, const char *s, size_t len)
{
	bool include = false;

	if (len && s[len - 1] == '\r')
		len--;
	if (!len || s[0] == '#' || s[0] == ';')
		return 0;
	if (len >= 2 && (s[0] == '+' || s[0] == '-') && s[1] == ' ') {
		include = s[0] == '+';
		s += 2, len -= 2;
	}
	return len ? compile(r, s, len, include) : 0;
}

int fcp_rules_parse(struct fcp_rules *r, const char *text, size_t len)
{
	const char *end = text + len;

	while (text < end) {
		const char *nl = memchr(text, '\n', end - text);
		size_t n = (nl ? nl : end) - text;
		int e = r->git ? git_line(r, text, n) : rsync_line(r, text, n);

		if (e == -ENOMEM)
			return e;
		text += n + (nl != NULL);
	}
	return 0;
}

void fcp_rules_free(struct fcp_rules *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].pat);
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
	r->needs_path = r->needs_type = false;
}

/* Does rule x match path (its last name at base)? */
static bool rule_matches(const struct fcp_rule *x, const char *path, const char *base,
			 unsigned flags)
{
	if (!x->path)
		return fcp_glob_match(x->pat, base, flags);
	if (x->anchored)
		return fcp_glob_match(x->pat, path, flags);
	/* rsync matches a pattern that begins with "**" against the path
	 * with a '/' put before it, so that "**" + "/x" is "x at any depth",
	 * the top included ("**" spans zero or more directories). That '/'
	 * can only meet a '/' right after the stars, and then the rest of the
	 * pattern is matched against the whole path; anything else the stars
	 * take is matched below as it is. (git's "**" does it itself.) */
	if (!(flags & FCP_GLOB_GIT) && !strncmp(x->pat, "**", 2)) {
		const char *rest = x->pat + strspn(x->pat, "*");

		if (*rest == '/' && fcp_glob_match(rest + 1, path, flags))
			return true;
	}
	/* rsync: an unanchored pattern with a '/' matches the end of the
	 * path, starting at any name. */
	for (const char *s = path; s; s = strchr(s, '/'), s = s ? s + 1 : NULL)
		if (fcp_glob_match(x->pat, s, flags))
			return true;
	return false;
}

/* rsync "dir/" + "***" (pat "dir/" + "**"): also dir itself. */
static bool dir_itself(const struct fcp_rule *x, const char *path, const char *base,
		       unsigned flags)
{
	size_t n = strlen(x->pat) - 3;
	char one[n + 1];

	memcpy(one, x->pat, n);
	one[n] = 0;
	struct fcp_rule y = *x;
	y.pat = one;
	return rule_matches(&y, path, base, flags);
}

void fcp_filter_free(struct fcp_filter *f)
{
	if (f)
		fcp_rules_free(&f->rules);
	free(f);
}

int fcp_rules_match(const struct fcp_rules *r, const char *path, bool is_dir)
{
	const char *base = strrchr(path, '/');
	unsigned flags = r->git ? FCP_GLOB_GIT : 0;

	base = base ? base + 1 : path;
	for (size_t k = 0; k < r->n; k++) {
		/* git: the last rule that matches decides; rsync: the first. */
		const struct fcp_rule *x = &r->v[r->git ? r->n - 1 - k : k];

		if (x->dir_only && !is_dir)
			continue;
		/* "dir/" + "***" is "dir/" and "dir/" + "**", as in rsync: a
		 * file named dir is not it. */
		if (rule_matches(x, path, base, flags) ||
		    (x->dir_too && is_dir && dir_itself(x, path, base, flags)))
			return x->include ? -1 : 1;
	}
	return 0;
}
