/*
 * limiter.h - retries of transient failures (--retries, --retry-wait) and
 * the job's rate limits (--bwlimit, --iolimit).
 */
#ifndef FCP_LIMITER_H
#define FCP_LIMITER_H

#include "core/job.h"

#include <stddef.h>
#include <stdint.h>

struct fcp_entry;

/* The state of a file queued for another try (the ctx of its ENTRY item,
 * freed by whoever takes the item). */
struct fcp_retry {
	int attempt;    /* 1 for the first retry */
	int err;        /* why the try before failed */
	long long due;  /* CLOCK_MONOTONIC ns: not before */
};

/* Errors that may go away by themselves: EIO, EAGAIN, EINTR, ETIMEDOUT,
 * ESTALE, EBUSY. A vanished source (ENOENT) is not one. */
bool fcp_retry_transient(int err);

/* Whether a file whose copy failed with err is to be tried again: the job
 * asks for retries, some are left, err is transient and the job was not
 * stopped. If so, says "retrying 'PATH' (k/n) after: ..." and queues it
 * from scratch after --retry-wait (a delayed item holding a count of d),
 * and returns true: the caller removes its copy without reporting. */
bool fcp_retry_later(struct fcp_entry *e, int err);

/* Monotonic time in nanoseconds. */
long long fcp_now_ns(void);

/*
 * The rate limits, shared by all workers (one token bucket each, a
 * compare-and-swap on one word; nothing at all without limits): take
 * bytes of data read from the source and ops I/O operations, sleeping
 * while the job is over its rate. A stopped job does not wait.
 */
void fcp_limit_take(const struct fcp_job *job, uint64_t bytes, uint64_t ops);

/* The length of the next read to compare (hash.c, verify.c): want, cut to
 * a step of the rate (fcp_limit_step; whole blocks of align, when align
 * and the step ends before the file's last byte, left away), and taken from
 * the limits as bytes and one operation. */
size_t fcp_limit_read(const struct fcp_job *job, size_t want, uint64_t left, size_t align);

/* The most data one request (copy_file_range) should ask for under
 * --bwlimit: a hundredth of a second's worth, so that the rate is smooth;
 * want when there is no limit. */
size_t fcp_limit_step(const struct fcp_job *job, size_t want);

/* The job's buckets (job->limit), before its workers start: 0, or
 * -ENOMEM; and their end. */
int fcp_limit_init(struct fcp_job *job);
void fcp_limit_free(struct fcp_job *job);

#endif
