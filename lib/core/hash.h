/*
 * hash.h - content hashes: XXH3-128 over libxxhash's streaming API.
 *
 * One place that hashes, so that --checksum, --check, --dedup, the verify
 * pass and the hash manifest agree on what a file's hash is. Built without
 * libxxhash (HAVE_XXHASH unset in build/config.h), every call says so.
 *
 * A file's hash is that of its windows: XXH3-128 of each FCP_HASH_WINDOW
 * bytes (the last one shorter), and the file's hash the window's own when
 * there is one window (so a file up to 32 MiB has the plain XXH3-128 of its
 * bytes), XXH3-128 of the empty string when there is none, and XXH3-128 of
 * the windows' hashes (16 bytes each, high half first, big-endian) when
 * there are more. A large file is copied by several workers at once, a
 * chunk of one window each (chunk.c), and XXH3 cannot be joined from
 * parts: hashed by windows, a copy can record the hash of the bytes it
 * wrote as each runner writes them, in no order.
 */
#ifndef FCP_HASH_H
#define FCP_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fcp_hash {
	uint64_t lo, hi;
};

#define FCP_HASH_WINDOW ((uint64_t)32 << 20)

/* Whether this build can hash at all (was built with libxxhash). */
bool fcp_hash_available(void);

struct fcp_job;

/*
 * Hash the first len bytes of fd, read from offset 0 with pread through
 * buf (cap bytes), each read within job's --bwlimit and --iolimit (job
 * may be NULL: no limits). direct: fd reads with O_DIRECT (buf and cap
 * page-aligned): reads ask for whole blocks, a count short of a whole
 * block is the end of the file, and a refusal (EINVAL) turns O_DIRECT off
 * for the rest. Returns 0, -ENOSYS without libxxhash, -ENOMEM, a read
 * error, or FCP_ESHRANK (job.h) when the file ends before len.
 */
int fcp_hash_fd(const struct fcp_job *job, int fd, uint64_t len, void *buf, size_t cap,
		bool direct, struct fcp_hash *out);

/* The file hash of the n window hashes win[0..n) (see above). */
void fcp_hash_windows(const struct fcp_hash *win, size_t n, struct fcp_hash *out);

/* The file hash of buf[0, len). */
void fcp_hash_buf(const void *buf, size_t len, struct fcp_hash *out);

static inline bool fcp_hash_equal(const struct fcp_hash *a, const struct fcp_hash *b)
{
	return a->lo == b->lo && a->hi == b->hi;
}

#endif
