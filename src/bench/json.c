/*
 * json.c - see json.h.
 */
#include "json.h"

#include <errno.h>
#include <math.h>

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void member(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	fprintf(j->f, "\n%*s", 2 * j->depth, "");
	if (key) {
		put_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_level(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth < 31)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_level(struct json *j, char c)
{
	if (j->depth > 0)
		j->depth--;
	fprintf(j->f, "\n%*s%c", 2 * j->depth, "", c);
}

int json_open(struct json *j, const char *path)
{
	j->f = fopen(path, "w");
	if (!j->f)
		return -errno;
	j->depth = 0;
	j->need_comma[0] = false;
	fputc('{', j->f);
	j->depth = 1;
	j->need_comma[1] = false;
	return 0;
}

int json_close(struct json *j)
{
	int err;

	close_level(j, '}');
	fputc('\n', j->f);
	err = ferror(j->f);
	if (fclose(j->f) != 0 || err)
		return errno ? -errno : -EIO;
	return 0;
}

void json_obj(struct json *j, const char *key) { open_level(j, key, '{'); }
void json_arr(struct json *j, const char *key) { open_level(j, key, '['); }
void json_end_obj(struct json *j) { close_level(j, '}'); }
void json_end_arr(struct json *j) { close_level(j, ']'); }

void json_str(struct json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		put_string(j->f, val);
	else
		fputs("null", j->f);
}

void json_num(struct json *j, const char *key, double val)
{
	member(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.6g", val);
	else
		fputs("null", j->f);
}

void json_int(struct json *j, const char *key, int64_t val)
{
	member(j, key);
	fprintf(j->f, "%lld", (long long)val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}
