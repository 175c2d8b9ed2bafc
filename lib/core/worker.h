/*
 * worker.h - one worker of the pool: the job it serves, its buffers, its
 * io_uring state and its temporary names.
 *
 * The pool (sched.c) embeds a worker in its own per-thread state and gives
 * it to every item it runs; the modules see only the accessors below. The
 * fields are here so that the pool can embed it: only worker.c and the
 * pool read them.
 */
#ifndef FCP_WORKER_H
#define FCP_WORKER_H

#include <stddef.h>
#include <stdint.h>

struct fcp_job;

struct fcp_worker {
	struct fcp_job *job;
	int id;
	void *buf, *direct_buf, *pipe_buf, *verify_buf;
	void *uring;
	void (*uring_free)(void *uring);
	unsigned long tmp_seq;
};

/* What the workers of job's pool share (job->workers), made and freed
 * with the pool (sched.c): 0, or -ENOMEM. */
int fcp_workers_init(struct fcp_job *job);
void fcp_workers_free(struct fcp_job *job);
/* Worker id of job, with no buffer yet. */
void fcp_worker_init(struct fcp_worker *w, struct fcp_job *job, int id);
/* Its thread ends its run: what belongs to the thread goes. */
void fcp_worker_thread_done(struct fcp_worker *w);
/* Free all it holds. */
void fcp_worker_free(struct fcp_worker *w);

struct fcp_job *fcp_worker_job(struct fcp_worker *w);
/* The worker's scratch buffer for read/write copies. */
void *fcp_worker_buf(struct fcp_worker *w, size_t *len);
/* The worker's larger, page-aligned buffer for direct reads (direct.c). */
void *fcp_worker_direct_buf(struct fcp_worker *w, size_t *len);
/* The slots of direct_pipe.c (4 MiB, page-aligned), or NULL. */
void *fcp_worker_pipe_buf(struct fcp_worker *w);
/* The buffer of --verify's direct read-back (larger). */
void *fcp_worker_verify_buf(struct fcp_worker *w, size_t *len);
/* The worker's io_uring state, owned by engine_uring.c, or NULL. */
void *fcp_worker_uring(struct fcp_worker *w);
/* Give the worker its io_uring state u, and the function that releases
 * it: a ring belongs to the thread that made it, so it goes when that
 * thread ends its run (fcp_worker_thread_done), as well as with the
 * worker. */
void fcp_worker_set_uring(struct fcp_worker *w, void *u, void (*release)(void *u));
/* A fresh temporary name for this worker in the directory of key
 * (".fcp-...", tmpname.h), in buf: the job's random prefix, the tag of
 * that directory, the worker and a sequence number. */
void fcp_worker_tmpname(struct fcp_worker *w, uint32_t key, char *buf, size_t len);

#endif
