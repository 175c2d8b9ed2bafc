/*
 * chunk.h - what the ranks of one copy share of a large file (chunk.c):
 * the owner, the rank that opened it, gives a range of the chunks nobody
 * took yet to another rank (dist_chunk.c), which copies them into the
 * file under its temporary name and says how it went; the owner lands the
 * file once its own runners and every range it gave are done.
 */
#ifndef FCP_CHUNK_H
#define FCP_CHUNK_H

#include "core/job.h"

struct fcp_bigfile;

/* A large file is copied in pieces of this size (chunk.c). */
#define FCP_CHUNK_SIZE ((off_t)32 << 20)

/* What another rank needs to find b's source and copy again. */
struct fcp_chunk_share {
	const struct fcp_dir *d;
	const char *name, *tmp_name; /* the source's, and the copy's temporary */
	uint64_t src_ino, tmp_ino, size, allocated;
};

/* May chunks of b be copied elsewhere (it has a name another process can
 * open, and nothing per chunk is kept here: --verify's hashes, --resume's
 * record)? Then *s describes it. */
bool fcp_chunk_shareable(struct fcp_bigfile *b, struct fcp_chunk_share *s);

/* Take the last half of b's chunks nobody took yet, [*first, *end), for
 * another rank: false when fewer than two are left. b then waits for
 * fcp_chunk_returned(), and the job counts busy until then. The caller
 * keeps b alive (dist_chunk.c's table, under its lock). */
bool fcp_chunk_split(struct fcp_job *job, struct fcp_bigfile *b, int *first, int *end);

/* A range given away is done: bytes written there, its error (0 if
 * none), where the source ended (lowered only if it shrank). Any thread. */
void fcp_chunk_returned(struct fcp_job *job, struct fcp_bigfile *b, uint64_t bytes, int err,
			int64_t eof);

/* A range [first, end) of another rank's file (owner, id), its source and
 * copy open here as in and out (taken): queued for this rank's workers;
 * its result goes back through the job's hooks (hooks.h). */
void fcp_chunk_take(struct fcp_job *job, int in, int out, const struct fcp_chunk_share *s,
		    int first, int end, int owner, uint64_t id);

/* The state the job's large files share (job->chunk), before its workers
 * start: 0, or -ENOMEM; and its end. */
int fcp_chunk_init(struct fcp_job *job);
void fcp_chunk_free(struct fcp_job *job);

#endif
