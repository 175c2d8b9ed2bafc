/*
 * hash.h - content hashes: XXH3-128 over libxxhash's streaming API.
 *
 * One place that hashes, so that --checksum today and the verify pass and
 * the hash manifest later agree on what a file's hash is. Built without
 * libxxhash (HAVE_XXHASH unset in build/config.h), every call says so.
 */
#ifndef FCP_HASH_H
#define FCP_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fcp_hash {
	uint64_t lo, hi;
};

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

static inline bool fcp_hash_equal(const struct fcp_hash *a, const struct fcp_hash *b)
{
	return a->lo == b->lo && a->hi == b->hi;
}

#endif
