/* Unit tests for symlink classification, rewriting and path normalisation. */
#include "check.h"
#include "base/path.h"

#include <stdlib.h>

static void norm(const char *in, const char *want)
{
	char *got = fcp_path_normalize(in);
	CHECK_STR(got, want);
	free(got);
}

static void rewrite(const char *t, const char *src, const char *dst, const char *want)
{
	char *got = fcp_link_rewrite(t, src, dst);
	if (!want) {
		CHECK(got == NULL);
	} else {
		CHECK_STR(got, want);
	}
	free(got);
}

int main(void)
{
	struct fcp_link_class c;

	norm("/a/b/../c", "/a/c");
	norm("/a/./b//c/", "/a/b/c");
	norm("/..", "/");
	norm("/", "/");
	norm("a/../..", "..");
	norm("../../x", "../../x");
	norm("a/b/../../c", "c");
	norm(".", ".");
	norm("a/..", ".");

	rewrite("/src/tree/a/f", "/src/tree", "/dst/copy", "/dst/copy/a/f");
	rewrite("/src/tree", "/src/tree", "/dst/copy", "/dst/copy");
	rewrite("/src/tree/../tree/x", "/src/tree", "/dst/copy", "/dst/copy/x");
	rewrite("/src/treeX/f", "/src/tree", "/dst/copy", NULL);   /* a sibling, not inside */
	rewrite("/etc/passwd", "/src/tree", "/dst/copy", NULL);
	rewrite("rel/path", "/src/tree", "/dst/copy", NULL);        /* relative stays */
	rewrite("/x/y", "/", "/dst", "/dst/x/y");

	c = fcp_link_classify("../a/f", "c", "/src");
	CHECK(!c.absolute && c.internal);
	c = fcp_link_classify("../../etc", "c", "/src");
	CHECK(!c.absolute && !c.internal);
	c = fcp_link_classify("../x", "", "/src");
	CHECK(!c.internal);
	c = fcp_link_classify("/src/a", "deep/er", "/src");
	CHECK(c.absolute && c.internal);
	c = fcp_link_classify("/srcx/a", "", "/src");
	CHECK(c.absolute && !c.internal);
	c = fcp_link_classify("/src/../etc", "", "/src");
	CHECK(c.absolute && !c.internal);
	CHECK_DONE();
}
