/*
 * path.c - paths judged as strings: normalised, classified as inside or
 * outside a tree, re-pointed from one tree to another. Nothing here looks
 * at a filesystem, so that a check can judge a link the way the copy made
 * it without calling into the copy.
 */
#include "base/path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *fcp_path_normalize(const char *path)
{
	size_t len = strlen(path);
	char *out = malloc(len + 2), *o = out;
	bool abs = path[0] == '/';
	size_t fixed = 0; /* length of the prefix ".." cannot remove */
	const char *p = path;

	if (!out)
		return NULL;
	if (abs) {
		*o++ = '/';
		fixed = 1;
	}
	while (*p) {
		const char *s = p;
		size_t n;

		while (*p && *p != '/')
			p++;
		n = p - s;
		while (*p == '/')
			p++;
		if (n == 0 || (n == 1 && s[0] == '.'))
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			if ((size_t)(o - out) > fixed) {
				while (o > out + fixed && o[-1] != '/')
					o--;
				if (o > out + fixed)
					o--; /* the separator before the removed name */
				continue;
			}
			if (abs)
				continue; /* "/.." is "/" */
			/* A relative path climbing above its start keeps it. */
			if (o > out)
				*o++ = '/';
			memcpy(o, "..", 2);
			o += 2;
			fixed = o - out;
			continue;
		}
		if (o > out && o[-1] != '/')
			*o++ = '/';
		memcpy(o, s, n);
		o += n;
	}
	if (o == out)
		*o++ = abs ? '/' : '.';
	*o = 0;
	return out;
}

const char *fcp_path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/') {
		if (path[0] != '/')
			return NULL;
	} else if (strncmp(path, dir, n) || (path[n] && path[n] != '/')) {
		return NULL;
	} else {
		path += n;
	}
	while (*path == '/')
		path++;
	return path;
}

static bool under(const char *path, const char *root)
{
	return fcp_path_under(path, root) != NULL;
}

struct fcp_link_class fcp_link_classify(const char *target, const char *rel_dir,
					const char *src_root)
{
	struct fcp_link_class c = { .absolute = target[0] == '/' };
	char *joined, *norm;
	size_t n;

	if (c.absolute) {
		norm = fcp_path_normalize(target);
		c.internal = norm && src_root && under(norm, src_root);
		free(norm);
		return c;
	}
	n = strlen(rel_dir) + strlen(target) + 2;
	joined = malloc(n);
	if (!joined)
		return c;
	snprintf(joined, n, "%s%s%s", rel_dir, *rel_dir ? "/" : "", target);
	norm = fcp_path_normalize(joined);
	c.internal = norm && strcmp(norm, "..") != 0 && strncmp(norm, "../", 3) != 0;
	free(norm);
	free(joined);
	return c;
}

char *fcp_link_rewrite(const char *target, const char *src_root, const char *dst_root)
{
	char *norm, *out;
	size_t n;

	if (target[0] != '/' || !src_root || !dst_root)
		return NULL;
	norm = fcp_path_normalize(target);
	if (!norm || !under(norm, src_root)) {
		free(norm);
		return NULL;
	}
	n = strlen(src_root) == 1 ? 0 : strlen(src_root);
	out = malloc(strlen(dst_root) + strlen(norm + n) + 1);
	if (out) {
		strcpy(out, dst_root);
		strcat(out, norm + n);
	}
	free(norm);
	return out;
}
