/*
 * verify.h - --verify: each copy read back from storage and compared with
 * what was read from the source.
 *
 * The source is read once: its bytes are hashed as the copy reads them
 * (engine_rw.c through struct fcp_xfer, the io_uring batch from its
 * buffer), which is why --verify leaves copy_file_range out of the engine
 * table: the kernel would move those bytes where nobody can hash them.
 * A clone moves no bytes at all; there the source is read to hash it.
 *
 * A file's hash is a list of windows: XXH3-128 of each FCP_VERIFY_WINDOW
 * bytes (holes read as zeros), the last one shorter. A large file is copied
 * in chunks of the same size by several workers at once, in no order
 * (chunk.c): each runner hashes its own chunk in offset order into its own
 * window, nobody waits for anybody, and the result does not depend on who
 * copied what when. A file copied by one worker fills the same windows in
 * turn, so both paths, and the retry, agree on the same list. The read-back
 * computes the list of the copy and compares window by window (and their
 * number, which is the size).
 *
 * The read-back comes from storage, not from the page cache that the copy
 * just filled: through the descriptor the copy wrote (no re-open, which on
 * some filesystems would refresh the cache by itself and hide the
 * difference), switched to O_DIRECT (the kernel writes the dirty pages back
 * and reads the device). Where the destination refuses O_DIRECT, the copy
 * is made durable (fdatasync) and its cached pages dropped
 * (POSIX_FADV_DONTNEED) before a buffered read; said once per job.
 */
#ifndef FCP_VERIFY_H
#define FCP_VERIFY_H

#include "core/hash.h"
#include "core/job.h"

#include <stddef.h>
#include <stdint.h>

#define FCP_VERIFY_WINDOW FCP_HASH_WINDOW

/* The windows of one file. */
struct fcp_vsum {
	struct fcp_hash *win;
	size_t n, cap;
};

/* One in-order hasher over a part of a file, from its start offset on. */
struct fcp_vstream {
	struct fcp_vsum *sum;
	void *st;        /* XXH3 state; NULL after an allocation failure */
	uint64_t pos;    /* the next offset to hash */
	int err;         /* -ENOMEM, or 0 */
};

/* Are the bytes a copy writes hashed as they pass (--verify, and
 * --manifest, which records the hash of the bytes written)? */
static inline bool fcp_copy_hashed(const struct fcp_job *job)
{
	return job->o->verify || job->man;
}

/* The file hash (hash.h) of the windows in s. */
static inline void fcp_vsum_hash(const struct fcp_vsum *s, struct fcp_hash *out)
{
	fcp_hash_windows(s->win, s->n, out);
}

/* Room for the windows of size bytes (more are added as a stream needs
 * them). Returns 0 or -ENOMEM. */
int fcp_vsum_init(struct fcp_vsum *s, uint64_t size);
void fcp_vsum_free(struct fcp_vsum *s);

/* Hash from off (a window boundary, or 0) into sum. */
void fcp_vstream_begin(struct fcp_vstream *v, struct fcp_vsum *sum, uint64_t off);
/* The bytes at [off, off+len), off >= v->pos: what lies between is a hole
 * (zeros). Called by the read/write engine after each read. */
void fcp_vstream_feed(struct fcp_vstream *v, const void *buf, size_t len, uint64_t off);
/* The part ends at end (zeros up to it): its last window is taken.
 * Returns 0, or -ENOMEM when the hash could not be kept. */
int fcp_vstream_end(struct fcp_vstream *v, uint64_t end);

/* The windows of the first len bytes of fd, read from it now (a cloned
 * file's source). Returns 0 or -errno (FCP_ESHRANK if it ends early). */
int fcp_vsum_of_fd(struct fcp_worker *w, int fd, uint64_t len, struct fcp_vsum *sum);

/* The windows of buf[0, len) (the io_uring batch holds a small file). */
int fcp_vsum_of_buf(const void *buf, size_t len, struct fcp_vsum *sum);

/*
 * Read the copy open as out (in directory d, for the once-per-job note)
 * back from storage and compare it with sum. Returns 0 when it is equal
 * (counted as verified, of size bytes; cloned: a clone), FCP_EVERIFY
 * when it differs, or -errno when it could not be read.
 */
int fcp_verify_readback(struct fcp_worker *w, const struct fcp_dir *d, int out,
			const struct fcp_vsum *sum, bool cloned);

/* A small file whose source bytes are buf[0, len), written to out: read
 * back; on a difference written once more and read back again. Returns 0,
 * FCP_EVERIFY or -errno. */
int fcp_verify_buf(struct fcp_worker *w, const struct fcp_dir *d, int out, const void *buf,
		   size_t len);

/* Make the copy open as out ready to be read back from storage: written
 * back (waited for), its cached pages dropped, and O_DIRECT turned on
 * where the destination takes it. Returns 1 with O_DIRECT on (the caller
 * turns it off again), 0 without, or -errno (a write error). */
int fcp_verify_prepare(struct fcp_worker *w, int out);

/* Count one file of size bytes, open as out, as verified (cloned: a
 * clone). */
void fcp_verify_count(struct fcp_job *job, int out, uint64_t size, bool cloned);

/* How --verify reads back on this build (a phrase, for --version -v). */
const char *fcp_verify_describe(void);
/* The state the job's read-backs share (job->verify), before its workers
 * start: 0, or -ENOMEM; and its end. */
int fcp_verify_init(struct fcp_job *job);
void fcp_verify_free(struct fcp_job *job);

#endif
