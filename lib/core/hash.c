/*
 * hash.c - XXH3-128 of a file's content (hash.h).
 */
#include "config.h"
#include "core/hash.h"
#include "core/job.h"
#include "core/limiter.h"
#include "base/sys.h"

#include <errno.h>
#include <stdlib.h>

#define W FCP_HASH_WINDOW

#ifdef HAVE_XXHASH
#include <xxhash.h>

bool fcp_hash_available(void)
{
	return true;
}

/* The windows' hashes, as they complete, into the outer hash (hash.h):
 * all of them go in, and the end decides whether the outer one counts. */
struct outer {
	XXH3_state_t *st;
	struct fcp_hash first;
	size_t n;
};

static void outer_put(struct outer *o, const struct fcp_hash *h)
{
	unsigned char b[16];

	for (int i = 0; i < 8; i++) {
		b[i] = (unsigned char)(h->hi >> (56 - 8 * i));
		b[8 + i] = (unsigned char)(h->lo >> (56 - 8 * i));
	}
	if (o->n++ == 0)
		o->first = *h;
	XXH3_128bits_update(o->st, b, 16);
}

static void outer_end(struct outer *o, struct fcp_hash *out)
{
	XXH128_hash_t h;

	if (o->n == 1) {
		*out = o->first;
		return;
	}
	h = o->n ? XXH3_128bits_digest(o->st) : XXH3_128bits(NULL, 0);
	*out = (struct fcp_hash){ h.low64, h.high64 };
}

/* The window that inner hashed is complete: into o, inner reset. */
static void window_done(struct outer *o, XXH3_state_t *inner)
{
	XXH128_hash_t h = XXH3_128bits_digest(inner);
	struct fcp_hash f = { h.low64, h.high64 };

	outer_put(o, &f);
	XXH3_128bits_reset(inner);
}

void fcp_hash_windows(const struct fcp_hash *win, size_t n, struct fcp_hash *out)
{
	struct outer o = { 0 };

	if (n == 1) {
		*out = win[0];
		return;
	}
	if (n > 1 && !(o.st = XXH3_createState())) {
		out->lo = out->hi = 0; /* no memory: a hash that matches nothing */
		return;
	}
	if (o.st)
		XXH3_128bits_reset(o.st);
	for (size_t i = 0; i < n; i++)
		outer_put(&o, &win[i]);
	outer_end(&o, out);
	XXH3_freeState(o.st);
}

void fcp_hash_buf(const void *buf, size_t len, struct fcp_hash *out)
{
	size_t n = (size_t)((len + W - 1) / W);
	struct fcp_hash win[8] = { 0 }, *v = n <= 8 ? win : malloc(n * sizeof(*v));

	if (!v) {
		out->lo = out->hi = 0;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = len - i * W < W ? len - i * W : (size_t)W;
		XXH128_hash_t h = XXH3_128bits((const char *)buf + i * W, k);
		v[i] = (struct fcp_hash){ h.low64, h.high64 };
	}
	fcp_hash_windows(v, n, out);
	if (v != win)
		free(v);
}

int fcp_hash_fd(const struct fcp_job *job, int fd, uint64_t len, void *buf, size_t cap,
		bool direct, struct fcp_hash *out)
{
	XXH3_state_t *st = XXH3_createState(), *all = XXH3_createState();
	struct outer o = { .st = all };
	uint64_t off = 0;
	int r = 0;

	if (!st || !all) {
		XXH3_freeState(st);
		XXH3_freeState(all);
		return -ENOMEM;
	}
	XXH3_128bits_reset(st);
	XXH3_128bits_reset(all);
	while (off < len) {
		size_t want = len - off < cap ? (size_t)(len - off) : cap;
		ssize_t n;

		/* Never across a window's end: each window is hashed alone. */
		if (want > W - off % W)
			want = (size_t)(W - off % W);
		/* Reads to compare are reads all the same: --bwlimit and
		 * --iolimit hold for --check, --checksum and --dedup too. */
		if (job)
			want = fcp_limit_read(job, want, len - off, direct ? FCP_DIRECT_ALIGN : 0);
		/* A full read or the end of the file: a short count is never
		 * taken for the end (sys.c); a direct one asks for whole
		 * blocks and may be short only there. */
		n = direct ? fcp_sys_pread(fd, buf, (want + FCP_DIRECT_ALIGN - 1) &
						     ~(size_t)(FCP_DIRECT_ALIGN - 1), (off_t)off)
			   : fcp_sys_pread_full(fd, buf, want, (off_t)off);
		if (n == -EINVAL && direct) {
			direct = false;
			fcp_sys_set_direct(fd, false);
			continue;
		}
		if (n < 0 || n == 0) {
			r = n < 0 ? (int)n : FCP_ESHRANK;
			break;
		}
		if ((size_t)n > want)
			n = (ssize_t)want; /* it grew meanwhile: len is what counts */
		XXH3_128bits_update(st, buf, (size_t)n);
		off += (uint64_t)n;
		if (off % W == 0 || off == len)
			window_done(&o, st);
	}
	outer_end(&o, out);
	XXH3_freeState(st);
	XXH3_freeState(all);
	return r;
}
#else
bool fcp_hash_available(void)
{
	return false;
}

void fcp_hash_windows(const struct fcp_hash *win, size_t n, struct fcp_hash *out)
{
	(void)win, (void)n;
	out->lo = out->hi = 0;
}

void fcp_hash_buf(const void *buf, size_t len, struct fcp_hash *out)
{
	(void)buf, (void)len;
	out->lo = out->hi = 0;
}

int fcp_hash_fd(const struct fcp_job *job, int fd, uint64_t len, void *buf, size_t cap,
		bool direct, struct fcp_hash *out)
{
	(void)job, (void)direct, (void)fd, (void)len, (void)buf, (void)cap;
	out->lo = out->hi = 0;
	return -ENOSYS;
}
#endif
