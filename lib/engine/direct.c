/*
 * direct.c - reading a cold file around the page cache.
 *
 * A file above the io_uring batch's FCP_SMALL_MAX that the page cache
 * holds none of is read with O_DIRECT: the device writes straight into the
 * worker's buffer, and no page-cache page is filled for data this job
 * reads once. On the benchmark machine, a VM whose host takes freed memory
 * back, every new page costs a fault on the host, and a source on a loop
 * device was copied twice on its way in (BENCHMARKS.md, folders cold). A
 * large file's chunks are read so too, by every runner: four files of
 * 512 MiB or 1 GiB took 0.59 and 0.56 of the time they took through the
 * cache, with a third of its system CPU (docs/benchmarks/
 * 2026-12-02-large-files-direct-read.md), each with several reads in
 * flight where io_uring is (direct_ahead.c). A file with
 * any page cached is read through the cache as before: there the cache is
 * faster than any device, and a direct read would first have to write
 * back its dirty pages.
 *
 * Direct reads need aligned offsets, lengths and memory: the buffer is
 * page-aligned, reads start at multiples of its size and their length is
 * rounded up to a page (the kernel stops at end of file). A filesystem that
 * refuses (no O_DIRECT, a larger alignment) gets buffered reads for the
 * rest of the file; nothing is lost but the saving.
 */
#include "engine/engine.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <unistd.h>


bool fcp_direct_wanted(const struct fcp_job *job, int fd, uint64_t size, uint64_t allocated)
{
	uint64_t cached;

	if (job->o->direct_read == FCP_DIRECT_NEVER || size <= FCP_SMALL_MAX || allocated < size)
		return false;
	/* auto: only if nothing of it is cached (unknown on kernels before
	 * 6.5: then never). */
	return job->o->direct_read == FCP_DIRECT_ALWAYS ||
	       (fcp_sys_cached_pages(fd, 0, 0, &cached) == 0 && cached == 0);
}

void fcp_direct_start(struct fcp_xfer *x)
{
	size_t len;
	bool on = fcp_direct_wanted(fcp_worker_job(x->w), x->in, (uint64_t)x->size, x->allocated) &&
		  fcp_worker_direct_buf(x->w, &len) && fcp_sys_set_direct(x->in, true) == 0;

	x->direct = on ? 1 : -1;
}

int fcp_direct_decide(const struct fcp_job *job, int fd, uint64_t size, uint64_t allocated)
{
	bool on = fcp_direct_wanted(job, fd, size, allocated) && fcp_sys_set_direct(fd, true) == 0;

	return on ? 1 : -1;
}

/* Back to buffered reads for the rest of the file. */
static void direct_stop(struct fcp_xfer *x)
{
	fcp_sys_set_direct(x->in, false);
	x->direct = -1;
}

ssize_t fcp_direct_pread(struct fcp_xfer *x, char *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		size_t want = (len - done + FCP_DIRECT_ALIGN - 1) & ~(size_t)(FCP_DIRECT_ALIGN - 1);
		ssize_t n = fcp_sys_pread(x->in, buf + done, want, off + (off_t)done);

		if (n == -EINVAL) {
			direct_stop(x);
			n = fcp_sys_pread_full(x->in, buf + done, len - done, off + (off_t)done);
			return n < 0 ? n : (ssize_t)(done + n);
		}
		if (n < 0)
			return n;
		done += (size_t)n;
		/* A count that is not a whole number of blocks ends at the end
		 * of the file; a whole one may be short for other reasons, and
		 * the next read starts aligned. */
		if (n == 0 || n % FCP_DIRECT_ALIGN)
			break;
	}
	return done < len ? (ssize_t)done : (ssize_t)len;
}

const char *fcp_direct_describe(void)
{
	uint64_t cached;
	int fd = fcp_sys_openat(AT_FDCWD, "/proc/self/exe", O_RDONLY, 0);
	int r = fd >= 0 ? fcp_sys_cached_pages(fd, 0, 0, &cached) : fd;

	if (fd >= 0)
		close(fd);
	return r == -ENOSYS ? "through the page cache (no cachestat(2) on this kernel: "
			      "--direct-read=always to read them directly)"
			    : "read directly (O_DIRECT) when none of the file is cached";
}
