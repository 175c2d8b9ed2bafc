/* Unit tests for direct reads (direct.c): which files are read around the
 * page cache under each --direct-read policy, and that a direct copy gives
 * the same bytes, its unaligned tail included. Needs a filesystem with
 * O_DIRECT under /tmp and cachestat(2) (Linux 6.5); skips otherwise. */
#include "check.h"
#include "engine/engine.h"
#include "base/sys.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE ((1 << 20) + (300 << 10) + 7) /* more than one buffer, unaligned */

static struct fcp_options o;
static struct fcp_job job;

static bool wanted(enum fcp_direct_read when, int fd, uint64_t size, uint64_t allocated)
{
	o.direct_read = when;
	return fcp_direct_wanted(&job, fd, size, allocated);
}

/* Write the source, make it durable and drop it from the page cache. */
static int make_source(char *path, char *data)
{
	int fd = mkstemp(path);

	for (int i = 0; i < SIZE; i++)
		data[i] = (char)(i * 7 + i / 4096);
	if (fd < 0 || write(fd, data, SIZE) != SIZE || fsync(fd) < 0 ||
	    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		return -1;
	return fd;
}

int main(void)
{
	char src[] = "/tmp/fcp-direct-src-XXXXXX", dst[] = "/tmp/fcp-direct-dst-XXXXXX";
	char *data = malloc(SIZE), *back = calloc(1, SIZE);
	uint64_t cached;
	int in, out;

	fcp_options_init(&o);
	job.o = &o;
	/* The policy alone: sizes, holes, never. */
	CHECK(!wanted(FCP_DIRECT_ALWAYS, -1, 256 << 10, 256 << 10)); /* the batch's */
	CHECK(wanted(FCP_DIRECT_ALWAYS, -1, (256 << 10) + 1, 1 << 20));
	CHECK(wanted(FCP_DIRECT_ALWAYS, -1, 64 << 20, 64 << 20));
	CHECK(wanted(FCP_DIRECT_ALWAYS, -1, (64 << 20) + 1, 65 << 20)); /* a large file's */
	CHECK(!wanted(FCP_DIRECT_ALWAYS, -1, 1 << 20, 4096));            /* sparse */
	CHECK(!wanted(FCP_DIRECT_NEVER, -1, 1 << 20, 1 << 20));

	in = make_source(src, data);
	out = mkstemp(dst);
	CHECK(in >= 0 && out >= 0);
	if (in < 0 || out < 0 || fcp_sys_cached_pages(in, 0, 0, &cached) < 0 ||
	    fcp_sys_set_direct(in, true) < 0 || fcp_sys_set_direct(in, false) < 0) {
		printf("SKIP: no O_DIRECT or no cachestat(2) for files in /tmp\n");
		unlink(src);
		unlink(dst);
		return check_failures ? 1 : 77; /* the policy checks above still count */
	}
	/* auto: read around the cache only when none of the file is cached. */
	CHECK(cached == 0);
	CHECK(wanted(FCP_DIRECT_AUTO, in, SIZE, SIZE));
	CHECK(pread(in, back, 4096, 8192) == 4096); /* one page in the cache */
	CHECK(!wanted(FCP_DIRECT_AUTO, in, SIZE, SIZE));
	CHECK(wanted(FCP_DIRECT_ALWAYS, in, SIZE, SIZE));

	/* A copy with direct reads: the same bytes, and it did read directly
	 * (the worker's direct buffer holds 1 MiB: two reads, the second
	 * one's length rounded up past the end of the file). */
	o.direct_read = FCP_DIRECT_ALWAYS;
	o.reflink = FCP_REFLINK_NEVER;
	CHECK(fcp_sched_create(&job, 1, 1) == 0);
	struct fcp_xfer x = { .w = fcp_sched_worker(&job, 0), .in = in, .out = out,
			      .size = SIZE, .allocated = SIZE, .src_dev = 1, .dst_dev = 1 };
	CHECK(fcp_data_copy(&x) == SIZE);
	CHECK(x.direct == 1);
	CHECK((fcntl(in, F_GETFL) & O_DIRECT) != 0);
	CHECK(pread(out, back, SIZE, 0) == SIZE && memcmp(back, data, SIZE) == 0);

	/* never: the same copy through the cache, O_DIRECT left off. */
	o.direct_read = FCP_DIRECT_NEVER;
	CHECK(fcp_sys_set_direct(in, false) == 0 && ftruncate(out, 0) == 0);
	x.direct = 0;
	CHECK(fcp_data_copy(&x) == SIZE);
	CHECK(x.direct == -1 && (fcntl(in, F_GETFL) & O_DIRECT) == 0);
	memset(back, 0, SIZE);
	CHECK(pread(out, back, SIZE, 0) == SIZE && memcmp(back, data, SIZE) == 0);

	fcp_sched_destroy(&job);
	unlink(src);
	unlink(dst);
	close(in);
	close(out);
	free(data);
	free(back);
	CHECK_DONE();
}
