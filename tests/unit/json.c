/* Unit tests for JSON text (lib/base/json.c): every byte of a path is kept,
 * valid UTF-8 as it is, other bytes as \udcXX (surrogateescape), control
 * characters, quotes and backslashes escaped; objects nest. */
#include "check.h"
#include "base/json.h"

#include <stdio.h>
#include <string.h>

static char out[512];

static const char *str(const char *s)
{
	struct fcp_json j;

	fcp_json_init(&j);
	fcp_json_open(&j, NULL);
	fcp_json_str(&j, "p", s);
	fcp_json_close(&j);
	snprintf(out, sizeof(out), "%s", j.p ? j.p : "(oom)");
	fcp_json_free(&j);
	return out;
}

int main(void)
{
	struct fcp_json j;

	CHECK_STR(str("a/b"), "{\"p\":\"a/b\"}");
	CHECK_STR(str(""), "{\"p\":\"\"}");
	CHECK_STR(str(NULL), "{\"p\":null}");
	CHECK_STR(str("q\"b\\"), "{\"p\":\"q\\\"b\\\\\"}");
	CHECK_STR(str("n\nt\t\x01\x7f"), "{\"p\":\"n\\u000at\\u0009\\u0001\\u007f\"}");
	/* Valid UTF-8 stays: é (2 bytes), € (3), 😀 (4). */
	CHECK_STR(str("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
		  "{\"p\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}");
	/* Not UTF-8: a lone byte, a cut sequence, an overlong form, an
	 * encoded surrogate, past U+10FFFF: each byte on its own. */
	CHECK_STR(str("a\xff"), "{\"p\":\"a\\udcff\"}");
	CHECK_STR(str("\xc3"), "{\"p\":\"\\udcc3\"}");
	CHECK_STR(str("\xc3z"), "{\"p\":\"\\udcc3z\"}");
	CHECK_STR(str("\xc0\xaf"), "{\"p\":\"\\udcc0\\udcaf\"}");
	CHECK_STR(str("\xed\xa0\x80"), "{\"p\":\"\\udced\\udca0\\udc80\"}");
	CHECK_STR(str("\xf4\x90\x80\x80"), "{\"p\":\"\\udcf4\\udc90\\udc80\\udc80\"}");
	CHECK_STR(str("\xe2\x82"), "{\"p\":\"\\udce2\\udc82\"}");

	fcp_json_init(&j);
	fcp_json_open(&j, NULL);
	fcp_json_u64(&j, "n", 18446744073709551615ull);
	fcp_json_open(&j, "o");
	fcp_json_bool(&j, "t", true);
	fcp_json_num(&j, "x", 1.5);
	fcp_json_close(&j);
	fcp_json_strs(&j, "a", (const char *const[]){ "x", "y" }, 2);
	fcp_json_num(&j, "nan", 0.0 / 0.0);
	fcp_json_close(&j);
	CHECK_STR(j.p, "{\"n\":18446744073709551615,\"o\":{\"t\":true,\"x\":1.500},"
		       "\"a\":[\"x\",\"y\"],\"nan\":0.000}");
	fcp_json_free(&j);
	CHECK_DONE();
}
