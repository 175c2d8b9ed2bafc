/*
 * sparse.c - move a file's data extent by extent, so holes stay holes.
 *
 * Data extents come from SEEK_DATA/SEEK_HOLE. A file whose allocation
 * covers its size has no holes worth finding, so it is copied as one extent
 * without the two extra lseek calls per file. Files that report size 0 may
 * still have content (procfs, sysfs): they are read until end of file.
 * Any other file that ends before its size fails with FCP_ESHRANK: its
 * copy would be silently shorter than the file it was taken for. Only on
 * the kernel's own filesystems, whose sizes are nominal (sysfs says 4096
 * for a 20-byte attribute), does the copy end where the file did, as cp's.
 */
#include "engine/engine.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <linux/magic.h>

#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC 0x62656570 /* not in every linux/magic.h */
#endif

bool fcp_engine_fallback_err(int err)
{
	return err == -EXDEV || err == -EINVAL || err == -EOPNOTSUPP || err == -ENOSYS ||
	       err == -ETXTBSY || err == -ENOTTY;
}

/* A key for a pair of devices; 0 means "none remembered". A collision
 * would only cost speed (an engine skipped), never correctness. */
static uint64_t pair_key(uint64_t src, uint64_t dst)
{
	return ((src * 0x9e3779b97f4a7c15ULL) ^ (dst + 0x632be59bd9b4e019ULL)) | 1;
}

static bool refused(struct fcp_job *job, const struct fcp_engine *e, uint64_t src, uint64_t dst)
{
	return atomic_load(&job->refused[e->slot]) == pair_key(src, dst);
}

/* Only errors that speak for the whole filesystem pair are remembered;
 * EINVAL or ETXTBSY may be about this one file. */
static void remember_refusal(struct fcp_xfer *x, const struct fcp_engine *e, int err)
{
	struct fcp_job *job = fcp_worker_job(x->w);

	if (err != -EXDEV && err != -EOPNOTSUPP && err != -ENOTTY && err != -ENOSYS)
		return;
	atomic_store(&job->refused[e->slot], pair_key(x->src_dev, x->dst_dev));
}

int fcp_engine_plan(struct fcp_job *job, uint64_t src_dev, uint64_t dst_dev,
		    const struct fcp_engine **list)
{
	int n = 0;
	enum fcp_reflink rl = job->o->reflink;

	/* --sparse=always|never: the holes are ours to make or fill, by
	 * reading and writing (a clone or copy_file_range keeps the source's). */
	if (job->o->sparse != FCP_SPARSE_AUTO) {
		list[n++] = &fcp_engine_rw;
		return n;
	}
	if (rl == FCP_REFLINK_ALWAYS) {
		list[n++] = &fcp_engine_clone;
		return n;
	}
	/* copy_file_range clones wherever the kernel can (one filesystem,
	 * btrfs subvolumes with different st_dev too): never means neither. */
	if (rl == FCP_REFLINK_AUTO && !refused(job, &fcp_engine_clone, src_dev, dst_dev))
		list[n++] = &fcp_engine_clone;
	/* --verify and --manifest hash the bytes as they are read:
	 * copy_file_range moves them inside the kernel, where nobody can. */
	if (rl == FCP_REFLINK_AUTO && !fcp_copy_hashed(job) &&
	    !refused(job, &fcp_engine_range, src_dev, dst_dev))
		list[n++] = &fcp_engine_range;
	list[n++] = &fcp_engine_rw;
	return n;
}

/* Copy one extent, moving down the engine list on "not here" errors.
 * *i is the current engine and stays advanced for the following extents.
 * An engine's count may be short (a short read is not the end); only 0
 * is. Returns bytes copied (short = the source ended early) or -errno. */
static ssize_t copy_extent(struct fcp_xfer *x, const struct fcp_engine **list, int n, int *i,
			   off_t off, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = list[*i]->copy(x, off + done, len - done);
		if (r < 0 && fcp_engine_fallback_err((int)r) && *i + 1 < n) {
			remember_refusal(x, list[*i], (int)r);
			(*i)++;
			continue;
		}
		if (r < 0)
			return r;
		if (r == 0)
			break;
		x->used = list[*i];
		done += r;
	}
	return done;
}

/* Size unknown (0): plain reads until end of file. */
static ssize_t copy_stream(struct fcp_xfer *x)
{
	size_t bufsz, total = 0;
	char *buf = fcp_worker_buf(x->w, &bufsz);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = fcp_xfer_stopped(x);
		if (n == 0)
			n = fcp_sys_read_full(x->in, buf, bufsz);
		if (n <= 0)
			return n < 0 ? n : (ssize_t)total;
		if (x->vs)
			fcp_vstream_feed(x->vs, buf, (size_t)n, total);
		ssize_t m = fcp_sys_write_full(x->out, buf, n);
		FCP_XFER_IO(x, 2);
		if (m < 0)
			return m;
		x->used = &fcp_engine_rw;
		FCP_XFER_BYTES(x, n);
		total += n;
	}
}

/* No data after some offset below end: a hole up to end, unless the file
 * shrank below end since its stat; then *eof is lowered to its size. One
 * fstat, for sparse files only. */
static int hole_to_end(struct fcp_xfer *x, off_t end, off_t *eof)
{
	struct statx st;
	int r = fcp_sys_fstatx(x->in, &st);

	if (r < 0)
		return r;
	if ((off_t)st.stx_size < end && (off_t)st.stx_size < *eof)
		*eof = (off_t)st.stx_size;
	return 0;
}

/* Copy the data extents of [off, end) with engines list[*i..n). If the
 * source ends early, *eof is set to where it ended. */
static ssize_t copy_span(struct fcp_xfer *x, const struct fcp_engine **list, int n, int *i,
			 off_t off, off_t end, off_t *eof)
{
	ssize_t total = 0;
	bool sparse = x->allocated < (uint64_t)x->size;

	while (off < end) {
		off_t data = sparse ? fcp_sys_lseek(x->in, off, SEEK_DATA) : off;
		off_t hole = end;
		ssize_t r;

		if (data == -ENXIO) {
			int t = hole_to_end(x, end, eof);
			return t < 0 ? t : total;
		}
		if (data < 0)
			return data;
		if (data >= end)
			break; /* the next data lies beyond this span */
		if (sparse) {
			hole = fcp_sys_lseek(x->in, data, SEEK_HOLE);
			if (hole < 0)
				return hole;
			if (hole > end)
				hole = end;
		}
		r = copy_extent(x, list, n, i, data, hole - data);
		if (r < 0)
			return r;
		total += r;
		if (r < hole - data) {
			/* The source shrank under us: the copy ends where it did. */
			*eof = data + r;
			break;
		}
		off = hole;
	}
	return total;
}

/* Is the size of fd's file only nominal (a kernel filesystem)? Asked
 * only of a file that ended early, so it costs nothing in the common case. */
static bool nominal_size(int fd)
{
	long type;

	if (fcp_sys_fs_type(fd, &type) < 0)
		return false;
	return type == SYSFS_MAGIC || type == CONFIGFS_MAGIC || type == PROC_SUPER_MAGIC ||
	       type == DEBUGFS_MAGIC || type == TRACEFS_MAGIC || type == SECURITYFS_MAGIC ||
	       type == CGROUP_SUPER_MAGIC || type == CGROUP2_SUPER_MAGIC;
}

static ssize_t copy_extents(struct fcp_xfer *x, const struct fcp_engine **list, int n, int i)
{
	off_t eof = x->size;
	ssize_t total;
	int t;

	/* A sparse file gets its size (a trailing hole) before its data:
	 * growing a file whose data is not written back yet makes XFS write
	 * it all back and wait (xfs_setattr_size), while the empty new file
	 * grows for free. */
	if ((x->allocated < (uint64_t)x->size || fcp_xfer_zero_holes(x)) &&
	    (t = fcp_sys_ftruncate(x->out, x->size)) < 0)
		return t;
	total = copy_span(x, list, n, &i, 0, x->size, &eof);
	if (total < 0 || eof == x->size)
		return total;
	/* The source ended early: it shrank under us, or its size means
	 * nothing (then the copy ends where it did). */
	if (!nominal_size(x->in))
		return FCP_ESHRANK;
	x->size = eof; /* what the copy holds, and what --verify hashes */
	return (t = fcp_sys_ftruncate(x->out, eof)) < 0 ? t : total;
}

/* The plan of x in list (n engines); returns the index of its first
 * copying engine, past the clone (the last engine if all are clones). */
static int plan_copying(struct fcp_xfer *x, const struct fcp_engine **list, int *n)
{
	int i = 0;

	*n = fcp_engine_plan(fcp_worker_job(x->w), x->src_dev, x->dst_dev, list);
	while (i < *n - 1 && list[i]->whole_file)
		i++;
	return i;
}

ssize_t fcp_data_copy_chunk(struct fcp_xfer *x, off_t off, off_t end, off_t *eof)
{
	const struct fcp_engine *list[3];
	int n, i = plan_copying(x, list, &n);

	return copy_span(x, list, n, &i, off, end, eof);
}

ssize_t fcp_data_clone(struct fcp_xfer *x, bool *cloned)
{
	const struct fcp_engine *list[3];
	int n = fcp_engine_plan(fcp_worker_job(x->w), x->src_dev, x->dst_dev, list);
	ssize_t r;

	*cloned = false;
	if (!list[0]->whole_file || x->size == 0)
		return 0;
	r = list[0]->copy(x, 0, x->size);
	FCP_XFER_IO(x, 1);
	if (r >= 0) {
		FCP_XFER_BYTES(x, r);
		*cloned = true;
		x->used = list[0];
		return r;
	}
	if (!fcp_engine_fallback_err((int)r) || n == 1)
		return r;
	remember_refusal(x, list[0], (int)r);
	return 0;
}

ssize_t fcp_data_copy(struct fcp_xfer *x)
{
	const struct fcp_engine *list[3];
	int n, i = plan_copying(x, list, &n);

	/* Clone only (reflink=always): an empty file has nothing to clone. */
	if (list[i]->whole_file)
		return 0;
	if (x->size == 0)
		return copy_stream(x);
	return copy_extents(x, list, n, i);
}
