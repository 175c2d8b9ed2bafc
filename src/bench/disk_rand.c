/*
 * disk_rand.c - the two timed-loop parts of the disk benchmark.
 *
 * Buffer re-read: the same block read again and again for --duration
 * seconds. With O_DIRECT every read goes to the device, so this shows the
 * speed of the device's own buffer and the bus; without it, the page cache.
 *
 * Random read latency: 1 KiB reads at random offsets within the first
 * 1 MiB, 2 MiB, ... of a file. While the span fits the device's buffer (or
 * readahead) reads are fast; past it each read pays a seek or a flash page
 * read, which is how DiskGraf reveals buffer sizes.
 */
#include "disk.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "prng.h"
#include "run.h"
#include "base/sys.h"

#define LAT_READ 1024

struct rctx {
	int fd;
	void *buf;
	uint64_t block;
	uint64_t span;
	struct bench_rng rng;
};

static int64_t reread_once(void *p)
{
	struct rctx *c = p;
	ssize_t r = fcp_sys_pread_full(c->fd, c->buf, c->block, 0);

	return r < 0 ? r : (r == (ssize_t)c->block ? r : -EIO);
}

int disk_reread(struct disk *d, struct disk_row *row, const char *name)
{
	bool direct = row->direct;
	struct rctx c = { .buf = d->buf, .block = row->block };
	int ret;

	c.fd = disk_open(d, name, O_RDONLY, &direct);
	if (c.fd < 0)
		return c.fd;
	ret = bench_repeat(reread_once, &c, d->duration, &row->reread);
	fcp_sys_close(c.fd);
	return ret;
}

static int64_t random_read(void *p)
{
	struct rctx *c = p;
	uint64_t off = bench_rng_below(&c->rng, c->span / LAT_READ) * LAT_READ;
	ssize_t r = fcp_sys_pread_full(c->fd, c->buf, LAT_READ, off);

	return r < 0 ? r : LAT_READ;
}

/* The file the spans are read from: max_span bytes, durable, not cached. */
static int make_span_file(struct disk *d)
{
	uint64_t chunk = d->max_block < BENCH_MiB ? d->max_block : BENCH_MiB;
	int fd = fcp_sys_openat(d->wfd, "span.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ret = fd;

	if (fd < 0)
		return fd;
	for (uint64_t off = 0; off < d->max_span && ret >= 0; off += chunk)
		ret = (int)fcp_sys_write_full(fd, d->buf, chunk);
	if (ret >= 0)
		ret = fcp_sys_fdatasync(fd);
	fcp_sys_close(fd);
	return ret < 0 ? ret : 0;
}

/* Does a 1 KiB O_DIRECT read work (512-byte logical sectors)? */
static bool direct_read_works(struct rctx *c)
{
	return fcp_sys_pread_full(c->fd, c->buf, LAT_READ, LAT_READ) == LAT_READ;
}

static int one_span(struct disk *d, struct disk_span *sp)
{
	struct rctx c = { .buf = d->buf, .span = sp->span };
	bool direct = !d->cached;
	int ret;

	bench_rng_seed(&c.rng, sp->span);
	c.fd = disk_open(d, "span.dat", O_RDONLY, &direct);
	if (c.fd >= 0 && direct && !direct_read_works(&c)) {
		fcp_sys_close(c.fd);
		direct = false;
		c.fd = disk_open(d, "span.dat", O_RDONLY, &direct);
	}
	if (c.fd < 0)
		return c.fd;
	if (!direct && !d->cached) {
		/* No readahead, and nothing of the file cached to start with. */
		fcp_sys_posix_fadvise(c.fd, 0, 0, POSIX_FADV_RANDOM);
		fcp_sys_posix_fadvise(c.fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	sp->direct = direct;
	ret = bench_repeat(random_read, &c, d->duration, &sp->s);
	sp->measured = ret >= 0;
	fcp_sys_close(c.fd);
	return ret;
}

int disk_latency(struct disk *d)
{
	int ret = make_span_file(d);

	if (ret < 0)
		return bench_syserr(ret, "write", "span.dat"), ret;
	fprintf(stderr, "random reads...\n");
	for (uint64_t s = BENCH_MiB; s <= BENCH_GiB && ret >= 0; s *= 2) {
		struct disk_span *sp = &d->spans[d->nspans++];

		sp->span = s;
		if (s <= d->max_span && !bench_interrupted)
			ret = one_span(d, sp);
	}
	fcp_sys_unlinkat(d->wfd, "span.dat", 0);
	if (ret < 0)
		bench_syserr(ret, "read", "span.dat");
	return ret;
}
