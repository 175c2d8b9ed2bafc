/*
 * json.h - JSON text built in memory, so that a line can go out in one
 * write(2) (NDJSON events, --json).
 *
 * Strings are bytes (paths): valid UTF-8 is kept as it is; a byte that is
 * not part of valid UTF-8 becomes the lone surrogate \udcXX (XX its value),
 * Python's "surrogateescape": lossless (json.loads, then
 * .encode('utf-8', 'surrogateescape') gives the bytes back) and a valid
 * UTF-8 name reads as itself. Control characters, '"' and '\' are escaped.
 */
#ifndef FCP_JSON_H
#define FCP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fcp_json {
	char *p;
	size_t len, cap;
	bool first;   /* no member yet in the open object */
	bool oom;
};

void fcp_json_init(struct fcp_json *j);
void fcp_json_free(struct fcp_json *j);
/* "{" and "}": objects nest (a key, then fcp_json_open). */
void fcp_json_open(struct fcp_json *j, const char *key);
void fcp_json_close(struct fcp_json *j);
void fcp_json_str(struct fcp_json *j, const char *key, const char *s);
void fcp_json_u64(struct fcp_json *j, const char *key, uint64_t v);
void fcp_json_num(struct fcp_json *j, const char *key, double v);
void fcp_json_bool(struct fcp_json *j, const char *key, bool v);
/* An array of strings. */
void fcp_json_strs(struct fcp_json *j, const char *key, const char *const *s, int n);
/* Append raw text (a newline at the end of a line). */
void fcp_json_raw(struct fcp_json *j, const char *s);

#endif
