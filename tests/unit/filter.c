/* Unit test: the glob (rsync's and git's '**'), rsync's rule order and
 * anchoring, git's ignore-file syntax and negation (lib/base/filter.c). */
#include "check.h"
#include "base/filter.h"

#include <stdbool.h>

#define GIT FCP_GLOB_GIT

/* Cases from git's t3070-wildmatch and rsync's wildtest.txt. */
static void glob_cases(void)
{
	static const struct { const char *pat, *text; bool rsync, git; } v[] = {
		{ "foo", "foo", 1, 1 }, { "foo", "bar", 0, 0 }, { "", "", 1, 1 },
		{ "???", "foo", 1, 1 }, { "??", "foo", 0, 0 }, { "*", "foo", 1, 1 },
		{ "f*", "foo", 1, 1 }, { "*f", "foo", 0, 0 }, { "*foo*", "foo", 1, 1 },
		{ "*ob*a*r*", "foobar", 1, 1 }, { "*ab", "aaaaaaabababab", 1, 1 },
		{ "foo\\*", "foo*", 1, 1 }, { "foo\\*bar", "foobar", 0, 0 },
		{ "f\\\\oo", "f\\oo", 1, 1 }, { "*[al]?", "ball", 1, 1 },
		{ "[ten]", "ten", 0, 0 }, { "**[!te]", "ten", 1, 1 }, { "**[!ten]", "ten", 0, 0 },
		{ "t[a-g]n", "ten", 1, 1 }, { "t[!a-g]n", "ten", 0, 0 }, { "t[!a-g]n", "ton", 1, 1 },
		{ "t[^a-g]n", "ton", 1, 1 }, { "a[]]b", "a]b", 1, 1 }, { "a[]-]b", "a-b", 1, 1 },
		{ "a[]-]b", "a]b", 1, 1 }, { "a[]-]b", "aab", 0, 0 }, { "a[]a-]b", "aab", 1, 1 },
		{ "]", "]", 1, 1 }, { "foo\\", "foo\\", 0, 0 }, { "[abc", "a", 0, 0 },
		/* '/' */
		{ "foo*bar", "foo/baz/bar", 0, 0 }, { "foo**bar", "foo/baz/bar", 1, 0 },
		{ "foo**bar", "foobazbar", 1, 1 }, { "foo/**/bar", "foo/baz/bar", 1, 1 },
		{ "foo/**/**/bar", "foo/baz/bar", 0, 1 }, { "foo/**/bar", "foo/b/a/z/bar", 1, 1 },
		{ "foo/**/bar", "foo/bar", 0, 1 }, { "foo/**/**/bar", "foo/bar", 0, 1 },
		{ "foo?bar", "foo/bar", 0, 0 }, { "foo[/]bar", "foo/bar", 0, 0 },
		{ "f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", 1, 1 },
		{ "**/foo", "foo", 0, 1 }, { "**/foo", "XXX/foo", 1, 1 },
		{ "**/foo", "bar/baz/foo", 1, 1 }, { "*/foo", "bar/baz/foo", 0, 0 },
		{ "**/bar*", "foo/bar/baz", 0, 0 }, { "**/bar/*", "deep/foo/bar/baz", 1, 1 },
		{ "**/bar/*", "deep/foo/bar/baz/", 0, 0 }, { "**/bar/**", "deep/foo/bar/baz/", 1, 1 },
		{ "**/bar/*", "deep/foo/bar", 0, 0 }, { "**/bar/**", "deep/foo/bar/", 1, 1 },
		{ "**/bar**", "foo/bar/baz", 1, 0 }, { "*/bar/**", "foo/bar/baz/x", 1, 1 },
		{ "*/bar/**", "deep/foo/bar/baz/x", 0, 0 }, { "**/bar/*/*", "deep/foo/bar/baz/x", 1, 1 },
		{ "a/**", "a", 0, 0 }, { "**", "a/b/c", 1, 1 }, { "*", "a/b", 0, 0 },
		/* classes */
		{ "[[:alpha:]][[:digit:]][[:upper:]]", "a1B", 1, 1 },
		{ "[[:digit:][:upper:][:space:]]", "1", 1, 1 },
		{ "[[:digit:][:upper:][:space:]]", "a", 0, 0 },
		{ "[[:digit:][:punct:][:space:]]", ".", 1, 1 },
		{ "[a-c[:digit:]x-z]", "5", 1, 1 }, { "[a-c[:digit:]x-z]", "q", 0, 0 },
		{ "[[:nope:]]", "n", 0, 0 }, { "[[:]", "[", 1, 1 },
		/* backtracking that must stay cheap */
		{ "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1", 0, 0 },
		{ "**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", 0, 0 },
		{ "*a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", 0, 0 },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		bool r = fcp_glob_match(v[i].pat, v[i].text, 0);
		bool g = fcp_glob_match(v[i].pat, v[i].text, GIT);
		CHECK(r == v[i].rsync);
		CHECK(g == v[i].git);
		if (r != v[i].rsync || g != v[i].git)
			fprintf(stderr, "  pattern '%s' text '%s': rsync %d git %d\n", v[i].pat,
				v[i].text, r, g);
	}
}

struct want { const char *path; bool dir; int r; };

static void expect(const struct fcp_rules *r, const struct want *w, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		int got = fcp_rules_match(r, w[i].path, w[i].dir);
		CHECK(got == w[i].r);
		if (got != w[i].r)
			fprintf(stderr, "  %s: '%s'%s gave %d, want %d\n", what, w[i].path,
				w[i].dir ? "/" : "", got, w[i].r);
	}
}

#define EXPECT(r, w) expect(r, w, sizeof(w) / sizeof(w[0]), #w)

static void rsync_rules(void)
{
	struct fcp_rules r = { 0 };
	static const struct want basic[] = {
		{ "x.o", 0, 1 }, { "a/b/x.o", 0, 1 }, { "x.c", 0, 0 }, { "x.o/y", 0, 0 },
		{ "build", 1, 1 }, { "a/build", 1, 0 }, { "a/build", 0, 0 },
		{ "cache", 1, 1 }, { "a/b/cache", 1, 1 }, { "cache", 0, 0 },
		{ "a/b", 0, 1 }, { "x/a/b", 0, 1 }, { "xa/b", 0, 0 }, { "a/bc", 0, 0 },
		{ "deep/p/q/z", 0, 1 }, { "deep/z", 0, 0 }, { "x/deep/p/z", 0, 0 },
	};

	CHECK(fcp_rules_add(&r, "*.o", false) == 0);
	CHECK(fcp_rules_add(&r, "/build", false) == 0);
	CHECK(fcp_rules_add(&r, "cache/", false) == 0);
	CHECK(fcp_rules_add(&r, "a/b", false) == 0);
	CHECK(fcp_rules_add(&r, "/deep/**/z", false) == 0);
	CHECK(fcp_rules_add(&r, "", false) < 0);
	CHECK(fcp_rules_add(&r, "/", false) < 0);
	CHECK(r.needs_path && r.needs_type && !r.git);
	EXPECT(&r, basic);
	fcp_rules_free(&r);

	/* In order, first match wins; '*' also takes directories. */
	static const struct want order[] = {
		{ "x.c", 0, -1 }, { "x.h", 0, 1 }, { "src", 1, 1 }, { "keep.h", 0, -1 },
	};
	fcp_rules_add(&r, "keep.h", true);
	fcp_rules_add(&r, "*.c", true);
	fcp_rules_add(&r, "*", false);
	fcp_rules_add(&r, "x.c", false); /* never reached */
	CHECK(!r.needs_path && !r.needs_type);
	EXPECT(&r, order);
	fcp_rules_free(&r);

	/* A leading "**" + "/" spans zero or more directories, as in rsync,
	 * which matches such a pattern against "/" + the path; "/" + "**"
	 * + "/", anchored, and "a/" + "**" + "/b" do not. */
	static const struct want lead[] = {
		{ "x", 0, 1 }, { "a/x", 0, 1 }, { "a/b/x", 1, 1 }, { "xa", 0, 0 }, { "a/xa", 0, 0 },
		{ "d", 1, 1 }, { "a/d", 1, 1 }, { "d", 0, 0 }, { "d/f", 0, 0 },
		{ "p/q", 0, 1 }, { "a/p/q", 0, 1 }, { "ap/q", 0, 0 },
		{ "e", 1, 1 }, { "e", 0, 0 }, { "e/f", 0, 1 }, { "a/e/g/h", 0, 1 }, { "ae/f", 0, 0 },
		{ "y", 0, 0 }, { "a/y", 0, 1 }, { "m/n", 0, 0 }, { "m/z/n", 0, 1 },
	};
	fcp_rules_add(&r, "**/x", false);
	fcp_rules_add(&r, "**/d/", false);
	fcp_rules_add(&r, "***/p/q", false);
	fcp_rules_add(&r, "**/e/***", false);
	fcp_rules_add(&r, "/**/y", false);
	fcp_rules_add(&r, "m/**/n", false);
	EXPECT(&r, lead);
	fcp_rules_free(&r);

	static const struct want tree[] = {
		{ "src", 1, -1 }, { "src/x.c", 0, -1 }, { "src/x.h", 0, 1 }, { "src/sub", 1, -1 },
	};
	fcp_rules_add(&r, "*/", true);
	fcp_rules_add(&r, "*.c", true);
	fcp_rules_add(&r, "*", false);
	EXPECT(&r, tree);
	fcp_rules_free(&r);

	/* "dir/" + "***": the directory and everything below it. */
	static const struct want stars[] = {
		{ "dir", 1, -1 }, { "dir/a", 0, -1 }, { "dir/a/b", 0, -1 }, { "other", 1, 1 },
		{ "other/dir", 1, 1 }, { "dir", 0, 1 }, /* a file named dir: not it (rsync) */
	};
	fcp_rules_add(&r, "/dir/***", true);
	fcp_rules_add(&r, "*", false);
	EXPECT(&r, stars);
	fcp_rules_free(&r);

	/* --exclude-from: comments, blank lines, "+ " and "- " prefixes. */
	static const char file[] = "# comment\n; also\n\n+ *.keep\n- *.tmp\nlog*\r\n/top/\n";
	static const struct want from[] = {
		{ "a.keep", 0, -1 }, { "a.tmp", 0, 1 }, { "log1", 0, 1 }, { "top", 1, 1 },
		{ "top", 0, 0 }, { "x/top", 1, 0 }, { "# comment", 0, 0 }, { "; also", 0, 0 },
	};
	CHECK(fcp_rules_parse(&r, file, sizeof(file) - 1) == 0);
	CHECK(r.n == 4);
	EXPECT(&r, from);
	fcp_rules_free(&r);

	/* Found by the fuzz target: a NUL inside a line ends its pattern,
	 * and "/" + "***" with nothing before it is no "dir/" + "***". */
	static const char nul[] = "/\0x//***\n//***\n";
	static const struct want w_nul[] = { { "a", 1, 1 }, { "a/b", 0, 1 } };
	CHECK(fcp_rules_parse(&r, nul, sizeof(nul) - 1) == 0);
	EXPECT(&r, w_nul);
	fcp_rules_free(&r);
}

static void git_rules(void)
{
	struct fcp_rules r = { .git = true };
	static const char file[] =
		"*.log\n!keep.log\n/root.txt\nbuild/\ndoc/**/*.pdf\n\\#hash\n\\!bang\n"
		"trail\\ \nspace   \n# comment\n\n**/deep\nout/**\nsub/x\n!/out/back\n"
		"a**b\n";
	static const struct want w[] = {
		{ "x.log", 0, 1 }, { "d/x.log", 0, 1 }, { "keep.log", 0, -1 }, { "d/keep.log", 0, -1 },
		{ "root.txt", 0, 1 }, { "d/root.txt", 0, 0 },
		{ "build", 1, 1 }, { "d/build", 1, 1 }, { "build", 0, 0 },
		{ "doc/a.pdf", 0, 1 }, { "doc/x/y/a.pdf", 0, 1 }, { "d/doc/a.pdf", 0, 0 },
		{ "#hash", 0, 1 }, { "!bang", 0, 1 }, { "trail ", 0, 1 }, { "trail", 0, 0 },
		{ "space", 0, 1 }, { "space   ", 0, 0 }, { "# comment", 0, 0 },
		{ "deep", 0, 1 }, { "x/y/deep", 1, 1 },
		{ "out", 1, 0 }, { "out/x", 0, 1 }, { "out/x/y", 0, 1 }, { "out/back", 0, -1 },
		{ "sub/x", 0, 1 }, { "q/sub/x", 0, 0 },
		{ "aXb", 0, 1 }, { "a/b", 0, 0 }, { "q/aXYb", 0, 1 },
	};

	CHECK(fcp_rules_parse(&r, file, sizeof(file) - 1) == 0);
	EXPECT(&r, w);
	fcp_rules_free(&r);

	/* Last match wins: a later exclude takes back an earlier '!'. */
	static const char again[] = "!*.c\n*.c\n";
	static const struct want w2[] = { { "a.c", 0, 1 } };
	fcp_rules_parse(&r, again, sizeof(again) - 1);
	EXPECT(&r, w2);
	fcp_rules_free(&r);
}

int main(void)
{
	glob_cases();
	rsync_rules();
	git_rules();
	CHECK_DONE();
}
