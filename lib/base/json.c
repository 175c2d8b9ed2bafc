/*
 * json.c - JSON text in a growing buffer (json.h).
 */
#include "base/json.h"
#include "base/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fcp_json_init(struct fcp_json *j)
{
	memset(j, 0, sizeof(*j));
	j->first = true;
}

void fcp_json_free(struct fcp_json *j)
{
	free(j->p);
	fcp_json_init(j);
}

static void put(struct fcp_json *j, const char *s, size_t n)
{
	char *p = fcp_grow(j->p, &j->cap, j->len + n + 1, 1, 256);

	if (!p) {
		j->oom = true;
		return;
	}
	j->p = p;
	memcpy(j->p + j->len, s, n);
	j->len += n;
	j->p[j->len] = 0;
}

void fcp_json_raw(struct fcp_json *j, const char *s)
{
	put(j, s, strlen(s));
}

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0. Overlong
 * forms, surrogates and values past U+10FFFF are not valid. */
static int utf8_len(const unsigned char *s)
{
	int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	unsigned cp;

	if (!n || s[0] > 0xf4)
		return 0;
	cp = s[0] & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

static void put_string(struct fcp_json *j, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	char esc[8];

	put(j, "\"", 1);
	while (*s) {
		int n = *s < 0x80 ? 1 : utf8_len(s);

		if (*s == '"' || *s == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*s;
			put(j, esc, 2);
		} else if (*s < 0x20 || *s == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", *s);
			put(j, esc, 6);
		} else if (n == 0) {
			snprintf(esc, sizeof(esc), "\\udc%02x", *s);
			put(j, esc, 6);
			n = 1;
		} else {
			put(j, (const char *)s, n);
		}
		s += n;
	}
	put(j, "\"", 1);
}

static void key(struct fcp_json *j, const char *k)
{
	if (!j->first)
		put(j, ",", 1);
	j->first = false;
	if (k) {
		put_string(j, k);
		put(j, ":", 1);
	}
}

void fcp_json_open(struct fcp_json *j, const char *k)
{
	if (k || j->len)
		key(j, k);
	put(j, "{", 1);
	j->first = true;
}

void fcp_json_close(struct fcp_json *j)
{
	put(j, "}", 1);
	j->first = false;
}

void fcp_json_str(struct fcp_json *j, const char *k, const char *s)
{
	key(j, k);
	if (s)
		put_string(j, s);
	else
		put(j, "null", 4);
}

void fcp_json_u64(struct fcp_json *j, const char *k, uint64_t v)
{
	char buf[24];

	key(j, k);
	put(j, buf, snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v));
}

void fcp_json_num(struct fcp_json *j, const char *k, double v)
{
	char buf[32];

	key(j, k);
	/* JSON has no NaN or infinity. */
	if (v != v || v > 1e300 || v < -1e300)
		v = 0;
	put(j, buf, snprintf(buf, sizeof(buf), "%.3f", v));
}

void fcp_json_bool(struct fcp_json *j, const char *k, bool v)
{
	key(j, k);
	put(j, v ? "true" : "false", v ? 4 : 5);
}

void fcp_json_strs(struct fcp_json *j, const char *k, const char *const *s, int n)
{
	key(j, k);
	put(j, "[", 1);
	for (int i = 0; i < n; i++) {
		if (i)
			put(j, ",", 1);
		put_string(j, s[i]);
	}
	put(j, "]", 1);
}
