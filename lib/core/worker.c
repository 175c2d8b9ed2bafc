/*
 * worker.c - one worker's own state: its buffers, allocated at their first
 * use (most workers never need the larger ones), its io_uring state, and
 * the sequence of its temporary names.
 */
#include "core/job.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* The read/write engine's buffer. 128 KiB, as cp's: with 1 MiB writes,
 * large cached copies were slower (BENCHMARKS.md, large warm). */
#define FCP_BUF_SIZE (128u << 10)
/* Direct reads (direct.c) have no read-ahead: each is one trip to the
 * device, so they are larger. Only workers that make them get one. */
#define FCP_DIRECT_BUF_SIZE (1u << 20)
/* The slots of a medium file's direct reads and writes in flight
 * (direct_pipe.c): 4 of 1 MiB. Only workers that copy one get it, and
 * only so many of them: a pool grown to wait on a slow source (up to 128
 * workers) would otherwise hold half a GiB of them. The others copy
 * their files with one request in flight. */
#define FCP_PIPE_BUF_SIZE (4u << 20)
#define FCP_PIPE_BUFS_MAX 16
/* Their memory is asked for in huge pages: a 1 MiB direct request into
 * 4 KiB pages scattered in memory has 256 segments, which a device taking
 * 128 (the loop driver, many others) splits into two requests of 512 KiB;
 * into one physically contiguous huge page it is one request of 1 MiB
 * (cold large files, direct-I/O loop source: 1023 KiB per read instead
 * of 511, in less time: docs/benchmarks/
 * 2026-12-03-large-files-reads-in-flight.md). Where the kernel gives no
 * huge pages, they are plain pages, as before. */
#define FCP_HUGE_ALIGN (2u << 20)
/* --verify's read-back of a copy from storage (verify.c) is one direct
 * read after another: larger ones spend less of it waiting. Large files,
 * cold, 4 x 256 MiB: 1.74x the time of the copy without --verify with 1 MiB
 * reads, 1.45x with 8 MiB (docs/benchmarks/
 * 2026-12-01-tables-behind-the-summary.md). Only workers that verify get
 * one. */
#define FCP_VERIFY_BUF_SIZE (8u << 20)

/* What the job's workers share (job->workers, made with its pool). */
struct fcp_workers_state {
	atomic_int pipe_bufs; /* workers holding a direct pipe's slots */
};

int fcp_workers_init(struct fcp_job *job)
{
	job->workers = calloc(1, sizeof(*job->workers));
	return job->workers ? 0 : -ENOMEM;
}

void fcp_workers_free(struct fcp_job *job)
{
	free(job->workers);
	job->workers = NULL;
}

void fcp_worker_init(struct fcp_worker *w, struct fcp_job *job, int id)
{
	*w = (struct fcp_worker){ .job = job, .id = id };
}

void fcp_worker_thread_done(struct fcp_worker *w)
{
	if (w->uring)
		w->uring_free(w->uring);
	w->uring = NULL;
}

void fcp_worker_free(struct fcp_worker *w)
{
	free(w->buf);
	free(w->direct_buf);
	free(w->pipe_buf);
	free(w->verify_buf);
	fcp_worker_thread_done(w);
}

struct fcp_job *fcp_worker_job(struct fcp_worker *w) { return w->job; }

/* A page-aligned buffer of size in *slot, allocated at its first use. */
static void *worker_buffer(void **slot, size_t size, size_t *len)
{
	if (!*slot && posix_memalign(slot, 4096, size))
		*slot = NULL;
	*len = *slot ? size : 0;
	return *slot;
}

void *fcp_worker_buf(struct fcp_worker *w, size_t *len)
{
	return worker_buffer(&w->buf, FCP_BUF_SIZE, len);
}

void *fcp_worker_verify_buf(struct fcp_worker *w, size_t *len)
{
	return worker_buffer(&w->verify_buf, FCP_VERIFY_BUF_SIZE, len);
}

void *fcp_worker_direct_buf(struct fcp_worker *w, size_t *len)
{
	return worker_buffer(&w->direct_buf, FCP_DIRECT_BUF_SIZE, len);
}

void *fcp_worker_pipe_buf(struct fcp_worker *w)
{
	if (w->pipe_buf)
		return w->pipe_buf;
	if (atomic_fetch_add(&w->job->workers->pipe_bufs, 1) >= FCP_PIPE_BUFS_MAX ||
	    posix_memalign(&w->pipe_buf, FCP_HUGE_ALIGN, FCP_PIPE_BUF_SIZE)) {
		w->pipe_buf = NULL;
		atomic_fetch_sub(&w->job->workers->pipe_bufs, 1);
		return NULL;
	}
	fcp_sys_huge_pages(w->pipe_buf, FCP_PIPE_BUF_SIZE); /* plain pages else */
	return w->pipe_buf;
}

void *fcp_worker_uring(struct fcp_worker *w)
{
	return w->uring;
}

void fcp_worker_set_uring(struct fcp_worker *w, void *u, void (*release)(void *u))
{
	w->uring = u;
	w->uring_free = release;
}

void fcp_worker_tmpname(struct fcp_worker *w, uint32_t key, char *buf, size_t len)
{
	/* worker + sequence is unique within this job, the random prefix
	 * across jobs (other fastcp processes, other PID namespaces, names in
	 * the source: walk.c refuses source names with this prefix). Every
	 * temporary name is made exclusively (O_EXCL, mkdir, link), so even
	 * a collision only costs an EEXIST and a retry (fcp_dest_make). */
	fcp_tmpname_make(w->job, key, w->job->tmp_rank << 8 | (unsigned)w->id, w->tmp_seq++, buf,
			 len);
}
