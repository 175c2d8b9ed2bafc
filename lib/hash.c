/*
 * hash.c - XXH3-128 of a file's content (hash.h).
 */
#include "config.h"
#include "hash.h"
#include "job.h"
#include "limiter.h"
#include "sys.h"

#include <errno.h>

#ifdef HAVE_XXHASH
#include <xxhash.h>

bool fcp_hash_available(void)
{
	return true;
}


int fcp_hash_fd(const struct fcp_job *job, int fd, uint64_t len, void *buf, size_t cap,
		bool direct, struct fcp_hash *out)
{
	XXH3_state_t *st = XXH3_createState();
	uint64_t off = 0;
	int r = 0;

	if (!st)
		return -ENOMEM;
	XXH3_128bits_reset(st);
	while (off < len) {
		size_t want = len - off < cap ? (size_t)(len - off) : cap;
		ssize_t n;

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
	}
	XXH128_hash_t h = XXH3_128bits_digest(st);
	XXH3_freeState(st);
	out->lo = h.low64;
	out->hi = h.high64;
	return r;
}
#else
bool fcp_hash_available(void)
{
	return false;
}

int fcp_hash_fd(const struct fcp_job *job, int fd, uint64_t len, void *buf, size_t cap,
		bool direct, struct fcp_hash *out)
{
	(void)job, (void)direct, (void)fd, (void)len, (void)buf, (void)cap;
	out->lo = out->hi = 0;
	return -ENOSYS;
}
#endif
