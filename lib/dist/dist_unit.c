/*
 * dist_unit.c - a unit of work as bytes, between ranks: a head (kind,
 * the directory's flags and statx, the root's id), NUL-terminated strings
 * (where the root's source and copy are, how messages name them, the
 * directory's path below the root), the names of a batch. Packed in the
 * host's byte order: the ranks of one copy run one build on one
 * architecture. Every unit taken is checked to lie within its message.
 */
#include "dist/dist_int.h"
#include "base/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int buf_put(struct buf *b, const void *p, size_t n)
{
	char *q = fcp_grow(b->p, &b->cap, b->len + n, 1, 4096);

	if (!q)
		return -ENOMEM;
	b->p = q;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static int put_str(struct buf *b, const char *s)
{
	return buf_put(b, s ? s : "", strlen(s ? s : "") + 1);
}

static unsigned dir_flags(const struct fcp_dir *d)
{
	return (d->made ? F_MADE : 0) | (d->created ? F_CREATED : 0) | (d->hidden ? F_HIDDEN : 0) |
	       (d->gives_acl ? F_GIVES_ACL : 0) | (d->rotational ? F_ROTATIONAL : 0) |
	       (d->no_special ? F_NO_SPECIAL : 0) | (d->root->adopted ? F_ADOPTED : 0);
}

static int pack(struct buf *b, enum unit_kind kind, const struct fcp_dir *d, const char *rel,
		const char *names, size_t names_len, uint32_t count, const struct unit_range *range)
{
	const struct fcp_root *r = d->root;
	const struct fcp_dist_root *at = r->dist;
	struct unit_head h = { .kind = kind, .flags = dir_flags(d), .root = r->id,
			       .count = count, .dst_ino = d->dst_ino, .st = d->st };
	const char *s[S_COUNT] = { at->src_at, at->dst_at, r->src_abs, r->dst_abs,
				   at->disp_src, at->disp_dst, r->rel_top, r->name, rel };
	size_t start = b->len;
	static const char pad[8];
	int e = buf_put(b, &h, sizeof(h));

	for (int i = 0; i < S_COUNT && !e; i++)
		e = put_str(b, s[i]);
	if (!e && names_len)
		e = buf_put(b, names, names_len);
	if (!e && (b->len - start) % 8)
		e = buf_put(b, pad, 8 - (b->len - start) % 8);
	if (e) {
		b->len = start;
		return e;
	}
	h.len = b->len - start;
	if (range)
		h.range = *range;
	memcpy(b->p + start, &h, sizeof(h));
	return 0;
}

/* Append a unit of d (at rel below its root copy) to b; the names are
 * names_len bytes of count NUL-terminated names. */
int fcp_unit_pack(struct buf *b, enum unit_kind kind, const struct fcp_dir *d, const char *rel,
		  const char *names, size_t names_len, uint32_t count)
{
	return pack(b, kind, d, rel, names, names_len, count, NULL);
}

int fcp_unit_pack_range(struct buf *b, const struct fcp_dir *d, const char *rel,
			const char *names, size_t names_len, const struct unit_range *range)
{
	return pack(b, UNIT_RANGE, d, rel, names, names_len, 2, range);
}

void fcp_unit_set_range(struct buf *b, size_t at, int first, int end)
{
	struct unit_head h;

	memcpy(&h, b->p + at, sizeof(h));
	h.range.first = first;
	h.range.end = end;
	memcpy(b->p + at, &h, sizeof(h));
}

/* The unit at *off in buf, checked to lie within it; advances *off. */
bool fcp_unit_unpack(const char *buf, size_t len, size_t *off, struct unit *u)
{
	const char *p, *end;

	if (len - *off < sizeof(u->h))
		return false;
	memcpy(&u->h, buf + *off, sizeof(u->h));
	if (u->h.len < sizeof(u->h) || u->h.len > len - *off)
		return false;
	p = buf + *off + sizeof(u->h);
	end = buf + *off + u->h.len;
	for (int i = 0; i < S_COUNT; i++) {
		const char *z = memchr(p, 0, end - p);
		if (!z)
			return false;
		u->s[i] = p;
		p = z + 1;
	}
	u->names = p;
	for (uint32_t i = 0; i < u->h.count; i++) {
		const char *z = memchr(p, 0, end - p);
		if (!z)
			return false;
		p = z + 1;
	}
	u->names_len = p - u->names;
	*off += u->h.len;
	return true;
}

/* How many items of work unit u is: a directory to read, or its names
 * (a range: one file's part, which its owner counts). */
int fcp_unit_items(const struct unit *u)
{
	return u->h.kind == UNIT_SCAN || u->h.kind == UNIT_RANGE ? 1 : (int)u->h.count;
}

/* How many counts of its directory unit u's work holds: one a queued item
 * (a scan, a batch of names), so one a name only when each name is an
 * item of its own. */
int fcp_unit_refs(const struct unit *u)
{
	return u->h.kind == UNIT_NAMES ? (int)u->h.count : 1;
}
