/*
 * tmpname.c - temporary names, tagged with the directory they are made in
 * (see tmpname.h for why).
 */
#include "core/tmpname.h"
#include "core/job.h"
#include "base/sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A fixed mix (murmur3's finaliser): no secret, only a shape no one
 * writes by chance. */
static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

/* The directory's identity, as no copy of it has: its inode number and,
 * where the filesystem gives one, its birth time (an inode number freed
 * and given to a new directory does not make it the same one). A
 * directory that cannot be asked gets 0: names made there and looked at
 * there still agree, and nothing else is claimed. */
uint32_t fcp_tmpname_key(int dirfd)
{
	struct statx st;
	uint64_t k;

	if (fcp_sys_fstatx(dirfd, &st) < 0)
		return 0;
	k = st.stx_ino;
	if (st.stx_mask & STATX_BTIME)
		k ^= ((uint64_t)st.stx_btime.tv_sec << 30) ^ st.stx_btime.tv_nsec;
	return mix((uint32_t)k ^ mix((uint32_t)(k >> 32)));
}

uint32_t fcp_tmpname_dir_key(struct fcp_dir *d)
{
	uint64_t k = atomic_load(&d->tmp_key);

	/* Workers of one directory may both ask at first: the same answer. */
	if (!k) {
		k = 1ull << 32 | fcp_tmpname_key(d->dst_fd);
		atomic_store(&d->tmp_key, k);
	}
	return (uint32_t)k;
}

static uint32_t tag(uint32_t random, uint32_t key)
{
	return mix(random ^ 0x66637074u /* "fcpt" */ ^ mix(key));
}

void fcp_tmpname_prefix(uint32_t random, char buf[FCP_TMPNAME_PREFIX])
{
	snprintf(buf, FCP_TMPNAME_PREFIX, ".fcp-%08x", random);
}

void fcp_tmpname_make(const struct fcp_job *job, uint32_t key, unsigned who, unsigned long seq,
		      char *buf, size_t len)
{
	snprintf(buf, len, "%s%08x-%x-%lx", job->tmp_prefix, tag(job->tmp_random, key), who, seq);
}

bool fcp_tmpname_of_job(const struct fcp_job *job, const char *name)
{
	return !strncmp(name, job->tmp_prefix, FCP_TMPNAME_PREFIX - 1);
}

bool fcp_tmpname_shaped(const char *n)
{
	if (strncmp(n, ".fcp-", 5))
		return false;
	n += 5;
	for (int part = 0; part < 3; part++) {
		size_t k = strspn(n, "0123456789abcdef");
		if (!k)
			return false;
		n += k;
		if (part < 2 && *n++ != '-')
			return false;
	}
	return !*n;
}

bool fcp_tmpname_made_here(int dirfd, const char *name)
{
	char half[9];

	if (!fcp_tmpname_shaped(name) || strspn(name + 5, "0123456789abcdef") != 16)
		return false;
	memcpy(half, name + 5, 8);
	half[8] = 0;
	return tag((uint32_t)strtoul(half, NULL, 16), fcp_tmpname_key(dirfd)) ==
	       (uint32_t)strtoul(name + 13, NULL, 16);
}
