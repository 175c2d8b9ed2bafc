/*
 * node.c - the directory node model's helpers, used by every module that
 * works on an entry of a node: a new work item, and the paths of a node
 * or of its entries, for messages and lookups.
 */
#include "core/job.h"
#include "core/node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fcp_item *fcp_item_new(enum fcp_item_kind kind, struct fcp_dir *d, const char *name,
			      const char *dst_name, unsigned char d_type)
{
	size_t n = strlen(name) + 1;
	size_t m = dst_name ? strlen(dst_name) + 1 : 0;
	struct fcp_item *it = malloc(sizeof(*it) + n + m);

	if (!it)
		return NULL;
	it->kind = kind;
	it->dir = d;
	it->d_type = d_type;
	it->count = 0;
	it->ctx = NULL;
	memcpy(it->name, name, n);
	it->dst_name = NULL;
	if (dst_name) {
		it->dst_name = it->name + n;
		memcpy(it->dst_name, dst_name, m);
	}
	return it;
}

char *fcp_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *s;

	/* A command-line path may end in slashes ("out/"): one separates,
	 * never two ("out//d"). */
	while (n > 1 && dir[n - 1] == '/' && dir[n - 2] == '/')
		n--;
	s = malloc(n + strlen(name) + 2);
	if (s)
		sprintf(s, "%.*s%s%s", (int)n, dir, n && *name && dir[n - 1] != '/' ? "/" : "",
			name);
	return s;
}

/* Join the names from the root down; used only for messages and the rare
 * hard-link re-open, so it walks the parent chain each time, joining from
 * the leaf up. Empty components (a top pseudo-dir for ".") are skipped. */
static char *chain_path(const struct fcp_dir *d, const char *name, bool dst)
{
	char *p = strdup(name ? name : ""), *up;

	for (; d && p; d = d->parent) {
		const char *s = dst ? d->dst_name : d->name;
		if (!*s)
			continue;
		up = fcp_path_join(s, p);
		free(p);
		p = up;
	}
	return p;
}

char *fcp_dir_src_path(const struct fcp_dir *d, const char *name) { return chain_path(d, name, false); }
char *fcp_dir_dst_path(const struct fcp_dir *d, const char *name) { return chain_path(d, name, true); }

char *fcp_dir_rel_path(const struct fcp_dir *d)
{
	/* Stop below the root directory: its name is the command-line path. */
	const struct fcp_dir *x;
	size_t len = 1;
	char *p, *end;

	for (x = d; x && x->depth > 0; x = x->parent)
		len += strlen(x->name) + 1;
	p = malloc(len);
	if (!p)
		return NULL;
	end = p + len - 1;
	*end = 0;
	for (x = d; x && x->depth > 0; x = x->parent) {
		size_t n = strlen(x->name);
		if (*end)
			*--end = '/';
		end -= n;
		memcpy(end, x->name, n);
	}
	memmove(p, end, strlen(end) + 1);
	return p;
}
