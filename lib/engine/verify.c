/*
 * verify.c - --verify: hash windows of the source as it is read, read the
 * copy back from storage, compare (verify.h says why it is done this way).
 */
#include "config.h"
#include "core/node.h"
#include "engine/verify.h"
#include "core/limiter.h"
#include "base/grow.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>

#define W FCP_VERIFY_WINDOW

/* What the job's read-backs learned (job->verify, made before the
 * workers start). */
struct fcp_verify_state {
	atomic_bool no_direct; /* the destination refused O_DIRECT: said once */
};

int fcp_verify_init(struct fcp_job *job)
{
	job->verify = calloc(1, sizeof(*job->verify));
	return job->verify ? 0 : -ENOMEM;
}

void fcp_verify_free(struct fcp_job *job)
{
	free(job->verify);
	job->verify = NULL;
}

int fcp_vsum_init(struct fcp_vsum *s, uint64_t size)
{
	s->n = 0;
	s->cap = (size_t)((size + W - 1) / W);
	s->win = s->cap ? calloc(s->cap, sizeof(*s->win)) : NULL;
	return s->cap && !s->win ? -ENOMEM : 0;
}

void fcp_vsum_free(struct fcp_vsum *s)
{
	free(s->win);
	s->win = NULL;
	s->n = s->cap = 0;
}

static bool vsum_equal(const struct fcp_vsum *a, const struct fcp_vsum *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!fcp_hash_equal(&a->win[i], &b->win[i]))
			return false;
	return true;
}

#ifdef HAVE_XXHASH
#include <xxhash.h>

static const char zeros[64 << 10];

void fcp_vstream_begin(struct fcp_vstream *v, struct fcp_vsum *sum, uint64_t off)
{
	v->sum = sum;
	v->pos = off;
	v->st = XXH3_createState();
	v->err = v->st ? 0 : -ENOMEM;
	if (v->st)
		XXH3_128bits_reset(v->st);
}

/* Window idx of the sum, made room for where a stream runs past the size
 * it was made for (a file that reports size 0 and has content). Chunk
 * runners never get here: their sum has every window already. */
static struct fcp_hash *window(struct fcp_vsum *s, size_t idx)
{
	struct fcp_hash *p = fcp_grow(s->win, &s->cap, idx + 1, sizeof(*p), 64);

	if (!p)
		return NULL;
	s->win = p;
	if (idx >= s->n)
		s->n = idx + 1;
	return &s->win[idx];
}

/* The window that ends at v->pos is complete: keep its hash. */
static void take(struct fcp_vstream *v)
{
	struct fcp_hash *slot = window(v->sum, (size_t)((v->pos - 1) / W));
	XXH128_hash_t h = XXH3_128bits_digest(v->st);

	if (!slot)
		v->err = -ENOMEM;
	else
		*slot = (struct fcp_hash){ h.low64, h.high64 };
	XXH3_128bits_reset(v->st);
}

static void put(struct fcp_vstream *v, const char *p, size_t len)
{
	while (len && !v->err) {
		uint64_t room = W - v->pos % W;
		size_t k = len < room ? len : (size_t)room;

		XXH3_128bits_update(v->st, p, k);
		v->pos += k;
		p += k;
		len -= k;
		if (v->pos % W == 0)
			take(v);
	}
}

static void put_zeros(struct fcp_vstream *v, uint64_t to)
{
	while (v->pos < to && !v->err) {
		uint64_t k = to - v->pos < sizeof(zeros) ? to - v->pos : sizeof(zeros);
		put(v, zeros, (size_t)k);
	}
}

void fcp_vstream_feed(struct fcp_vstream *v, const void *buf, size_t len, uint64_t off)
{
	if (v->err || off < v->pos)
		return; /* off < pos cannot happen: the engines read in order */
	put_zeros(v, off);
	put(v, buf, len);
}

int fcp_vstream_end(struct fcp_vstream *v, uint64_t end)
{
	if (!v->err) {
		put_zeros(v, end);
		if (v->pos % W && !v->err)
			take(v);
	}
	if (v->st)
		XXH3_freeState(v->st);
	v->st = NULL;
	return v->err;
}

const char *fcp_verify_describe(void)
{
	return "XXH3-128 of the bytes read from the source, per 32 MiB, against the copy "
	       "read back with O_DIRECT (else after fdatasync and dropping its cached pages)";
}
#else
void fcp_vstream_begin(struct fcp_vstream *v, struct fcp_vsum *sum, uint64_t off)
{
	v->sum = sum;
	v->pos = off;
	v->st = NULL;
	v->err = -ENOSYS;
}

void fcp_vstream_feed(struct fcp_vstream *v, const void *buf, size_t len, uint64_t off)
{
}

int fcp_vstream_end(struct fcp_vstream *v, uint64_t end)
{
	return v->err;
}

const char *fcp_verify_describe(void)
{
	return "not available (built without libxxhash)";
}
#endif

int fcp_vsum_of_buf(const void *buf, size_t len, struct fcp_vsum *sum)
{
	struct fcp_vstream v;
	int r = fcp_vsum_init(sum, len);

	if (r < 0)
		return r;
	fcp_vstream_begin(&v, sum, 0);
	fcp_vstream_feed(&v, buf, len, 0);
	return fcp_vstream_end(&v, len);
}

/*
 * The windows of fd's first size bytes, read with buf (cap bytes, aligned).
 * direct: fd reads with O_DIRECT, so each read asks for whole blocks; a
 * count short of a whole block is the end of the file. A file that ends
 * before size is FCP_ESHRANK. Each read is within job's --bwlimit and
 * --iolimit: a read-back is a read like any other.
 */
static int read_windows(const struct fcp_job *job, int fd, char *buf, size_t cap, bool direct,
			uint64_t size, struct fcp_vsum *sum)
{
	struct fcp_vstream v;
	uint64_t off = 0;
	int r = fcp_vsum_init(sum, size);

	if (r < 0)
		return r;
	fcp_vstream_begin(&v, sum, 0);
	while (off < size && !v.err) {
		size_t want = fcp_limit_read(job, size - off < cap ? (size_t)(size - off) : cap,
					     size - off, direct ? FCP_DIRECT_ALIGN : 0);
		size_t len = direct ? (want + FCP_DIRECT_ALIGN - 1) & ~(size_t)(FCP_DIRECT_ALIGN - 1) : want;
		ssize_t n = direct ? fcp_sys_pread(fd, buf, len, (off_t)off)
				   : fcp_sys_pread_full(fd, buf, len, (off_t)off);

		if (n <= 0) {
			fcp_vstream_end(&v, off);
			return n < 0 ? (int)n : FCP_ESHRANK;
		}
		if ((size_t)n > want)
			n = (ssize_t)want; /* it grew meanwhile: only size counts */
		fcp_vstream_feed(&v, buf, (size_t)n, off);
		off += (uint64_t)n;
	}
	return fcp_vstream_end(&v, size);
}

int fcp_vsum_of_fd(struct fcp_worker *w, int fd, uint64_t len, struct fcp_vsum *sum)
{
	size_t cap;
	char *buf = fcp_worker_buf(w, &cap);

	return buf ? read_windows(fcp_worker_job(w), fd, buf, cap, false, len, sum) : -ENOMEM;
}

/* tmpfs and ramfs keep a file in the page cache and nowhere else: its
 * read-back reads the memory the copy wrote, which checks the copy's path
 * but no device. The summary says so rather than "from storage". */
static bool in_memory(int fd)
{
	long type;

	return fcp_sys_fs_type(fd, &type) == 0 && (type == TMPFS_MAGIC || type == RAMFS_MAGIC);
}

/* Once per job: the destination serves reads from its cache only after
 * the pages were dropped, or (tmpfs, ramfs) from nothing else. */
static void say_no_direct(struct fcp_job *job, const struct fcp_dir *d, int out)
{
	char *path;

	if (atomic_exchange(&job->verify->no_direct, true))
		return;
	/* The copy as the user named it (DEST or DEST/SOURCE's name). */
	path = d->root && d->root->dst_abs ? strdup(d->root->dst_abs) : fcp_dir_dst_path(d, NULL);
	if (in_memory(out))
		fcp_report_errorf(job, "verify: '%s' is held in memory (tmpfs or ramfs): the "
				       "copies are read back from there", path ? path : "?");
	else
		fcp_report_errorf(job, "verify: '%s' cannot do O_DIRECT, reading back after "
				       "dropping the cached pages", path ? path : "?");
	free(path);
}

int fcp_verify_prepare(struct fcp_worker *w, int out)
{
	int r = fcp_sys_writeback_wait(out);

	/* Written back and dropped from the cache first, also where O_DIRECT
	 * is taken: some filesystems serve a direct read from the cache
	 * without a word (ext4 with data=journal, encrypted or verity
	 * files). The direct read would wait for the same writeback. */
	if (r < 0)
		return r; /* a write error: the copy's */
	(void)fcp_sys_posix_fadvise(out, 0, 0, POSIX_FADV_DONTNEED);
	return !atomic_load(&fcp_worker_job(w)->verify->no_direct) && fcp_sys_set_direct(out, true) == 0;
}

void fcp_verify_count(struct fcp_job *job, int out, uint64_t size, bool cloned)
{
	if (in_memory(out))
		atomic_fetch_add(&job->c.verified_memory, 1);
	atomic_fetch_add(&job->c.verified, 1);
	atomic_fetch_add(&job->c.verified_bytes, size);
	if (cloned)
		atomic_fetch_add(&job->c.verified_cloned, 1);
}

/* The windows of the copy open as out, as its storage holds it. */
static int read_back(struct fcp_worker *w, const struct fcp_dir *d, int out, struct fcp_vsum *got,
		     uint64_t *size)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct statx st;
	size_t cap;
	char *buf = fcp_worker_verify_buf(w, &cap);
	int r = fcp_sys_fstatx(out, &st);

	if (r < 0)
		return r;
	if (!buf)
		return -ENOMEM;
	*size = st.stx_size;
	if ((r = fcp_verify_prepare(w, out)) < 0)
		return r;
	if (r == 1) {
		r = read_windows(job, out, buf, cap, true, st.stx_size, got);
		fcp_sys_set_direct(out, false);
		if (r != -EINVAL)
			return r;
		fcp_vsum_free(got);
	}
	/* O_DIRECT refused (by fcntl, or by the read: an alignment larger
	 * than a page). Written back and dropped from the cache, the next
	 * read has to come from the device. */
	say_no_direct(job, d, out);
	if ((r = fcp_sys_fdatasync(out)) < 0)
		return r;
	(void)fcp_sys_posix_fadvise(out, 0, 0, POSIX_FADV_DONTNEED);
	return read_windows(job, out, buf, cap, false, st.stx_size, got);
}

int fcp_verify_readback(struct fcp_worker *w, const struct fcp_dir *d, int out,
			const struct fcp_vsum *sum, bool cloned)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct fcp_vsum got = { 0 };
	uint64_t size = 0;
	int r = read_back(w, d, out, &got, &size);

	if (r == FCP_ESHRANK || (r == 0 && !vsum_equal(sum, &got)))
		r = FCP_EVERIFY;
	fcp_vsum_free(&got);
	if (r < 0)
		return r;
	fcp_verify_count(job, out, size, cloned);
	return 0;
}

int fcp_verify_buf(struct fcp_worker *w, const struct fcp_dir *d, int out, const void *buf,
		   size_t len)
{
	struct fcp_vsum sum;
	int r = fcp_vsum_of_buf(buf, len, &sum);

	if (r == 0)
		r = fcp_verify_readback(w, d, out, &sum, false);
	if (r == FCP_EVERIFY) {
		/* Once more from the bytes read (and hashed) from the source. */
		ssize_t m = fcp_sys_pwrite_full(out, buf, len, 0);
		r = m < 0 ? (int)m : fcp_verify_readback(w, d, out, &sum, false);
	}
	fcp_vsum_free(&sum);
	return r;
}
