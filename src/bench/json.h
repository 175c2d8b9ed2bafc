/*
 * json.h - a tiny streaming JSON writer for --json FILE.
 *
 * Every call takes the member name (NULL inside arrays); the writer adds
 * the commas, so callers read like the document they produce. Numbers that
 * are not finite are written as null, because JSON has no NaN.
 */
#ifndef FCP_BENCH_JSON_H
#define FCP_BENCH_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
	FILE *f;
	int depth;
	bool need_comma[32];
};

/* Open path for writing and begin the top-level object. 0 or -errno. */
int json_open(struct json *j, const char *path);
/* End the top-level object and close; 0 or -errno (e.g. disk full). */
int json_close(struct json *j);

void json_obj(struct json *j, const char *key);
void json_arr(struct json *j, const char *key);
void json_end_obj(struct json *j);
void json_end_arr(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_num(struct json *j, const char *key, double val);
void json_int(struct json *j, const char *key, int64_t val);
void json_bool(struct json *j, const char *key, bool val);

#endif
