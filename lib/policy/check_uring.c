/*
 * check_uring.c - the contents of a directory's small files compared with
 * their copies a batch at a time, for --check and --checksum (check.h).
 *
 * One by one (plan.c's side_hash), each file costs an open, a read that
 * waits for the device and a close on each side, in turn: two waits and
 * two thread switches per file, and each read alone before the device.
 * Here the files of one batch (batch.c: up to FCP_BATCH_MAX of a
 * directory) go through three io_uring rounds, one kernel entry and one
 * wait each: open both sides of every file, read them all, close them all.
 * The device sees the batch's reads at once, and the reads of neighbouring
 * files merge into fewer requests. Both sides are then in memory, so they
 * are compared byte for byte, with no hash.
 *
 * DEST is read with O_DIRECT, from its storage, as one by one. Everything
 * else about an entry (missing, type, size, links, metadata, xattrs) is
 * fcp_check_found's, the same code as one by one. A file this path does
 * not settle (larger than FCP_SMALL_MAX, empty, an error, a short read,
 * the manifest's hashes in play, --direct-read=always) is compared one by
 * one, which reads it again and explains any error.
 */
#include "config.h"
#include "policy/check.h"
#include "engine/engine.h"
#include "core/limiter.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

struct side {
	int fd;         /* or -errno of its open */
	ssize_t got;    /* what its read returned */
	char *buf;
};

struct cf {
	struct fcp_entry *e;
	struct statx dst;
	int r;          /* the destination's statx */
	int same;       /* 1, 0, or -1: one by one */
	struct side in, out;
};

#ifdef HAVE_LIBURING
#include <liburing.h>

/* A direct read asks for whole blocks. */
static size_t whole_blocks(size_t len)
{
	return (len + FCP_DIRECT_ALIGN - 1) & ~(size_t)(FCP_DIRECT_ALIGN - 1);
}

/* Does the content of f go through the batch? */
static bool batched(const struct fcp_job *job, const struct cf *f)
{
	const struct statx *st = &f->e->st;

	return f->r == 0 && S_ISREG(st->stx_mode) && S_ISREG(f->dst.stx_mode) &&
	       st->stx_size == f->dst.stx_size && st->stx_size > 0 &&
	       st->stx_size <= FCP_SMALL_MAX && !job->man &&
	       job->o->direct_read != FCP_DIRECT_ALWAYS;
}

enum round { OPEN, READ, CLOSE };

struct reap {
	struct cf *f;
	enum round k;
};

/* A completion of round k, tagged with its file and side, kept there. */
static void on_cqe(void *ctx, uint64_t data, int res)
{
	struct reap *x = ctx;
	struct cf *c = &x->f[data >> 1];
	struct side *s = data & 1 ? &c->out : &c->in;

	if (x->k == OPEN)
		s->fd = res;
	else if (x->k == READ)
		s->got = res;
}

static void run(struct io_uring *ring, struct cf *f, unsigned n, enum round k)
{
	struct reap x = { f, k };

	fcp_uring_wait(ring, n, on_cqe, &x);
}

static void queue(struct io_uring *ring, unsigned idx, bool out, struct io_uring_sqe **sqe)
{
	*sqe = io_uring_get_sqe(ring);
	io_uring_sqe_set_data64(*sqe, (uint64_t)idx << 1 | out);
}

/* A side opened O_PATH, opened for reading through that inode if it is a
 * regular file (sys.c); anything else (a FIFO or device swapped in since
 * its statx) is never opened, and the file goes one by one. */
static void reopen_side(struct side *s, int flags)
{
	struct statx st;
	int fd = -ENXIO;

	if (s->fd < 0)
		return;
	if (fcp_sys_fstatx(s->fd, &st) == 0 && S_ISREG(st.stx_mode))
		fd = fcp_sys_reopen(s->fd, flags);
	close(s->fd);
	s->fd = fd;
}

/*
 * The three rounds for f[0..m), whose buffers are set. The opens are as
 * side_hash's (no atime moves on either side): O_PATH first, then only a
 * regular file is opened, with O_NONBLOCK and O_NOCTTY as a second guard.
 */
static void rounds(struct fcp_job *job, struct io_uring *ring, struct cf *f, int m, bool direct)
{
	int base = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
		   (job->is_root ? O_NOATIME : 0);
	struct io_uring_sqe *sqe;
	unsigned q = 0;

	for (int i = 0; i < m; i++) {
		struct fcp_entry *e = f[i].e;

		f[i].in.fd = f[i].out.fd = -1;
		queue(ring, i, false, &sqe);
		io_uring_prep_openat(sqe, e->d->src_fd, e->name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
		queue(ring, i, true, &sqe);
		io_uring_prep_openat(sqe, e->d->dst_fd, e->dst_name, O_PATH | O_NOFOLLOW | O_CLOEXEC,
				     0);
	}
	run(ring, f, 2 * m, OPEN);
	for (int i = 0; i < m; i++) {
		reopen_side(&f[i].in, base);
		reopen_side(&f[i].out, base | (direct ? O_DIRECT : 0));
	}
	for (int i = 0; i < m; i++) {
		size_t len = f[i].e->st.stx_size;

		/* Read one by one (and said there), and this filesystem's
		 * files buffered from now on (contents). */
		if (f[i].out.fd == -EINVAL && direct)
			fcp_check_no_direct(job, f[i].e->d, f[i].e->d->dst_fd);
		f[i].in.got = f[i].out.got = -1;
		if (f[i].in.fd < 0 || f[i].out.fd < 0)
			continue;
		/* Reads to compare hold to --bwlimit and --iolimit (limiter.h). */
		fcp_limit_take(job, 2 * len, 2);
		queue(ring, i, false, &sqe);
		io_uring_prep_read(sqe, f[i].in.fd, f[i].in.buf, len, 0);
		queue(ring, i, true, &sqe);
		io_uring_prep_read(sqe, f[i].out.fd, f[i].out.buf,
				   direct ? whole_blocks(len) : len, 0);
		q += 2;
	}
	run(ring, f, q, READ);
	q = 0;
	for (int i = 0; i < m; i++) {
		struct side *s[2] = { &f[i].in, &f[i].out };

		for (int k = 0; k < 2; k++) {
			if (s[k]->fd < 0)
				continue;
			queue(ring, i, k, &sqe);
			io_uring_prep_close(sqe, s[k]->fd);
			q++;
		}
	}
	run(ring, f, q, CLOSE);
	for (int i = 0; i < m; i++) {
		size_t len = f[i].e->st.stx_size;

		/* A longer copy shows in its size (its statx); here only the
		 * bytes both statx calls promised are compared, as one by one. */
		if (f[i].in.got == (ssize_t)len && f[i].out.got >= (ssize_t)len)
			f[i].same = !memcmp(f[i].in.buf, f[i].out.buf, len);
	}
}

/* Compare the contents of every batched file of f[0..n) that it can. */
static void contents(struct fcp_worker *w, struct cf *f, int n)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct io_uring *ring;
	size_t cap, half;
	char *buf;
	/* DEST from its storage for --check, as side_hash reads it (one
	 * directory's files: one filesystem, unless one refused it). */
	bool direct = job->o->check && job->o->direct_read != FCP_DIRECT_NEVER && n > 0 &&
		      !fcp_check_direct_refused(job, f[0].e->d->dst_dev);
	int i = 0;

	if (job->o->no_io_uring || !atomic_load(&job->uring_ok) || !(ring = fcp_uring_ring(w)) ||
	    !(buf = fcp_worker_verify_buf(w, &cap)))
		return;
	/* Sources in the first half, copies (aligned) in the second. */
	half = cap / 2 & ~(size_t)(FCP_DIRECT_ALIGN - 1);
	while (i < n && !atomic_load(&job->stop)) {
		struct cf g[FCP_BATCH_MAX];
		int idx[FCP_BATCH_MAX], m = 0;
		size_t used_in = 0, used_out = 0;

		for (; i < n; i++) {
			size_t len = f[i].e->st.stx_size;
			size_t need = whole_blocks(len);

			if (!batched(job, &f[i]))
				continue;
			if (used_out + need > half)
				break;
			g[m] = f[i];
			g[m].in.buf = buf + used_in;
			g[m].out.buf = buf + half + used_out;
			used_in += len;
			used_out += need;
			idx[m++] = i;
		}
		if (m)
			rounds(job, ring, g, m, direct);
		for (int k = 0; k < m; k++)
			f[idx[k]].same = g[k].same;
	}
}
#else
static void contents(struct fcp_worker *w, struct cf *f, int n)
{
}
#endif

void fcp_compare_batch(struct fcp_worker *w, struct fcp_entry *e, int n, struct statx *dst,
		       int *r, int *same)
{
	struct cf f[FCP_BATCH_MAX];

	for (int i = 0; i < n; i++) {
		f[i].e = &e[i];
		f[i].r = fcp_check_stat(&e[i], &f[i].dst);
		f[i].same = -1;
	}
	contents(w, f, n);
	for (int i = 0; i < n; i++) {
		dst[i] = f[i].dst;
		r[i] = f[i].r;
		same[i] = f[i].same;
	}
}
