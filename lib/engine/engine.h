/*
 * engine.h - the table of data engines.
 *
 * A file's data is moved by the first engine in the table that the job's
 * policy allows and the filesystems accept. An engine that answers with one
 * of the "not here" errors (EXDEV, EINVAL, EOPNOTSUPP, ENOSYS, ETXTBSY,
 * ENOTTY) hands the rest of the file to the next engine; any other error
 * fails the file. Holes are kept by the caller (sparse.c), which hands the
 * range engines data extents only.
 */
#ifndef FCP_ENGINE_H
#define FCP_ENGINE_H

#include "core/job.h"
#include "engine/verify.h"
#include "core/worker.h"

#include <errno.h>
#include <sys/types.h>

/*
 * The sizes of files, as the paths treat them: a small file (up to
 * FCP_SMALL_MAX) goes through the io_uring batch (engine_uring.c); a large
 * one (from FCP_LARGE_MIN) is cut into chunks (chunk.c); a medium one in
 * between is copied whole by one worker, read around the page cache when
 * cold (direct.c) and written back at once (file.c).
 */
#define FCP_SMALL_MAX (256 << 10)
#define FCP_LARGE_MIN (64 << 20)

/* One file's data transfer in flight. */
struct fcp_xfer {
	struct fcp_worker *w;
	int in, out;
	off_t size;        /* source size from statx; 0 may mean "unknown" */
	uint64_t allocated; /* bytes the source has on disk (st_blocks * 512) */
	uint64_t src_dev, dst_dev;
	/* A file written by several runners (chunk.c): one writes at a time.
	 * Their reads stay parallel; concurrent writers of one inode spin on
	 * its lock in the kernel instead (BENCHMARKS.md). NULL: one writer. */
	pthread_mutex_t *wlock;
	/* Reads around the page cache (direct.c): 0 not decided yet, 1 on,
	 * -1 off (a large file's chunks: decided once for all its runners). */
	int direct;
	bool piped; /* written directly too, several requests in flight (direct_pipe.c) */
	bool ahead; /* read with several requests in flight (direct_ahead.c) */
	const struct fcp_engine *used; /* the engine that moved data last (--debug, events) */
	/* Of c.bytes, what this transfer added: taken back where its copy
	 * fails (a copy that is not made has no bytes). One writer per
	 * fcp_xfer: a large file's runners each have their own. */
	uint64_t counted;
	/* --verify: the hash of the bytes read, fed in offset order by the
	 * engines that read (verify.h); NULL otherwise. */
	struct fcp_vstream *vs;
};

/* One read, write, copy or clone call issued (the summary's I/O count). */
#define FCP_XFER_IO(x, n) atomic_fetch_add(&fcp_worker_job((x)->w)->c.io_ops, (n))
/* Bytes of data written (or cloned), counted as they land: the status
 * line moves during a long file, not only at its end. */
#define FCP_XFER_BYTES(x, n)                                                                    \
	((x)->counted += (uint64_t)(n),                                                          \
	 atomic_fetch_add(&fcp_worker_job((x)->w)->c.bytes, (unsigned long long)(n)))

/* Around each write to x->out: the write lock of a shared file, if any. */
static inline void fcp_xfer_write_begin(struct fcp_xfer *x)
{
	if (x->wlock)
		pthread_mutex_lock(x->wlock);
}

static inline void fcp_xfer_write_end(struct fcp_xfer *x)
{
	if (x->wlock)
		pthread_mutex_unlock(x->wlock);
}

/* Checked between the reads of one file: a stopped job (signal, full
 * destination) does not wait for a whole chunk or medium file; 0 to go
 * on, else why it stopped (-errno). */
static inline int fcp_xfer_stopped(const struct fcp_xfer *x)
{
	struct fcp_job *job = fcp_worker_job(x->w);
	int why;

	if (!atomic_load(&job->stop))
		return 0;
	why = atomic_load(&job->stop_errno);
	return why ? why : -ECANCELED;
}

/* --sparse=always: blocks of zeros are not written (they stay holes of
 * the copy, which has its size from the start). */
static inline bool fcp_xfer_zero_holes(const struct fcp_xfer *x)
{
	return fcp_worker_job(x->w)->o->sparse == FCP_SPARSE_ALWAYS;
}

struct fcp_engine {
	const char *name;
	int slot;          /* index in the job's memo of refused device pairs */
	/* Whole-file engines (clone) copy everything, holes included, in one
	 * call and ignore off/len. */
	bool whole_file;
	/* Copy [off, off+len) to the same offsets; returns bytes copied or
	 * -errno. A count may be short (the caller asks again for the rest);
	 * 0 only at end of file, never for a read error (that is -errno). */
	ssize_t (*copy)(struct fcp_xfer *x, off_t off, size_t len);
};

/*
 * A cold medium file, whole, with several direct reads and writes in flight
 * (direct_pipe.c): the bytes copied from off, or -errno, or 0 when it is
 * not the pipe's to copy (nothing done: the caller copies it).
 */
ssize_t fcp_direct_pipe(struct fcp_xfer *x, off_t off, size_t len);
/* The state the job's pipes share (job->direct_pipe), before its workers
 * start: 0, or -ENOMEM; and its end. */
int fcp_direct_pipe_init(struct fcp_job *job);
void fcp_direct_pipe_free(struct fcp_job *job);

/*
 * A large file's data extent [off, off+len), read with O_DIRECT by a chunk
 * runner, with several reads in flight (direct_ahead.c): the bytes copied
 * (short where a read was, or where io_uring refused the rest), -errno, or
 * 0 when it is not for it (nothing done: the synchronous loop reads it).
 */
ssize_t fcp_direct_ahead(struct fcp_xfer *x, off_t off, size_t len);

/* engine_rw.c: write n bytes of buf at pos of x->out, as the read/write
 * engine does (under the file's write lock; --sparse=always skips blocks
 * of zeros); n or -errno. */
ssize_t fcp_rw_write(struct fcp_xfer *x, const char *buf, size_t n, off_t pos);

extern const struct fcp_engine fcp_engine_clone;
extern const struct fcp_engine fcp_engine_range;
extern const struct fcp_engine fcp_engine_rw;

/* True for the errors that mean "this engine cannot do it here". */
bool fcp_engine_fallback_err(int err);

/*
 * The engines a file may use, in order, under the job's policy. Fills
 * list (room for 3) and returns how many. reflink=always allows the clone
 * only; reflink=never skips copy_file_range too, because the kernel clones
 * with it where it can. Engines that refused this pair of filesystems
 * before are left out (never the last one).
 */
int fcp_engine_plan(struct fcp_job *job, uint64_t src_dev, uint64_t dst_dev,
		    const struct fcp_engine **list);

/*
 * The first step of a file's data: the clone, if the job's policy and the
 * filesystems allow it. Returns the bytes cloned with *cloned set, 0 with
 * *cloned clear when the other engines are to copy the data (no clone
 * planned, an empty file, or refused here), or -errno (reflink=always
 * refused, or a real error).
 */
ssize_t fcp_data_clone(struct fcp_xfer *x, bool *cloned);

/* Copy the data of x with the planned copying engines (not the clone),
 * keeping holes. Returns bytes of data copied or -errno; FCP_ESHRANK if
 * the source ends before its size (a size of 0 means "read to the end"). */
ssize_t fcp_data_copy(struct fcp_xfer *x);

/*
 * Copy the data extents of [off, end) only, with the range engines (a
 * chunk of a large file; the caller sets the size). If the source ends
 * early, *eof is lowered to where it ended (the caller fails the file
 * with FCP_ESHRANK). Returns bytes or -errno.
 */
ssize_t fcp_data_copy_chunk(struct fcp_xfer *x, off_t off, off_t end, off_t *eof);

/*
 * direct.c: decide, at the read/write engine's first read of a file,
 * whether to read it with O_DIRECT (a file above the io_uring batch's size
 * none of which is cached, or --direct-read=always), and if so turn it on.
 * Sets x->direct.
 */
void fcp_direct_start(struct fcp_xfer *x);
/* The same for a large file's chunks, once for all its runners (they share
 * fd and its O_DIRECT flag): the value for their x->direct, 1 or -1. */
int fcp_direct_decide(const struct fcp_job *job, int fd, uint64_t size, uint64_t allocated);
/* The same decision for an open file of that size and allocation, without
 * turning anything on (the io_uring batch skips its read-ahead for it). */
bool fcp_direct_wanted(const struct fcp_job *job, int fd, uint64_t size, uint64_t allocated);
/* Read [off, off+len) of x with O_DIRECT into buf, which is page-aligned
 * and holds len rounded up to a page; buffered from where the filesystem
 * refuses. Returns bytes (short only at end of file) or -errno. */
ssize_t fcp_direct_pread(struct fcp_xfer *x, char *buf, size_t len, off_t off);
/* What --direct-read=auto does on this kernel (a phrase, for --version -v). */
const char *fcp_direct_describe(void);

/*
 * batch_uring.c (tree): copy the small regular files names[0..n) of d through
 * io_uring; was[i]: what the plan found in DEST (fcp_settle_batch). back[i] is set for every file it left to the synchronous path
 * (not small, sparse, hard-linked, not regular, or an error that path
 * explains). On a rotational source, where[i] is then set to the device
 * offset of a handed-back regular file's first extent, read on the
 * descriptor the batch opened anyway; where it is unknown, and on other
 * sources, where[i] keeps the caller's 0. Returns how many files it took
 * on (copied or reported), or -ENOSYS when io_uring cannot be used here
 * (no liburing at build time, disabled, filtered, or an old kernel).
 */
int fcp_uring_batch(struct fcp_worker *w, struct fcp_dir *d, const char **names, int n,
		    const unsigned short *was, bool *back, uint64_t *where);
/*
 * batch.c: the order in which a rotational source's files are read. Of the
 * files i in [0, n) with pick[i], into order[], returned how many: those
 * whose first extent is unknown (where[i] 0) first, in their given order
 * (the walk's, by inode), then the others by device offset. There a read
 * waits for the disk and the inode number only guesses where the data
 * lies; the offset costs one ioctl on a descriptor open anyway. (A stable
 * insertion sort: at most FCP_BATCH_MAX files.)
 */
int fcp_order_by_place(const bool *pick, const uint64_t *where, int n, int *order);
/* NULL when io_uring batches can run here, else why not (a sentence). */
const char *fcp_uring_available(void);
/* batch_uring.c: the state the job's batches share (job->uring), before its workers
 * start: 0, or -ENOMEM; and its end. */
int fcp_uring_init(struct fcp_job *job);
void fcp_uring_free(struct fcp_job *job);
struct io_uring;
/* The worker's ring, made on first use (check_uring.c shares it), or NULL:
 * no io_uring here. Only ever one batch at a time uses it. */
struct io_uring *fcp_uring_ring(struct fcp_worker *w);
/* The read buffers of the worker's rounds: FCP_URING_ARENA bytes, made
 * with its ring (NULL: no ring). */
#define FCP_URING_ARENA (2u << 20)
char *fcp_uring_arena(struct fcp_worker *w);
/* --verify's read-back buffers of one round, aligned for O_DIRECT: each
 * file's asks for whole blocks, one byte past its size included (a copy
 * longer than its source shows). Made on first use; NULL if refused. */
#define FCP_URING_VARENA (FCP_URING_ARENA + FCP_BATCH_MAX * FCP_DIRECT_ALIGN)
char *fcp_uring_varena(struct fcp_worker *w);
/* Submit what is queued on ring and wait for all expect completions, each
 * given to cb with its user data and result (a broken ring stops the
 * process: requests in flight could not be accounted for). */
void fcp_uring_wait(struct io_uring *ring, unsigned expect,
		    void (*cb)(void *ctx, uint64_t data, int res), void *ctx);

#endif
