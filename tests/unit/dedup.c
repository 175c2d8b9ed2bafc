/* Unit tests for --dedup's byte comparison (dedup.c): the last word
 * before two files of the same size and the same XXH3-128 are merged. A
 * real hash collision cannot be made, so the comparison is proven alone:
 * a one-byte difference anywhere (first, last, across a window), a
 * shorter file, and equal files longer than one window. */
#include "check.h"
#include "tree/dedup.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int file_of(const char *data, size_t n)
{
	int fd = memfd_create("dedup", 0);

	if (fd < 0 || write(fd, data, n) != (ssize_t)n) {
		perror("memfd");
		exit(1);
	}
	return fd;
}

/* Compare a and b (len bytes) through a buffer of cap bytes. */
static int same(const char *a, size_t na, const char *b, size_t nb, uint64_t len, size_t cap)
{
	int fa = file_of(a, na), fb = file_of(b, nb);
	char *buf = malloc(cap);
	int r = fcp_dedup_same_bytes(fa, fb, len, buf, cap);

	free(buf);
	close(fa);
	close(fb);
	return r;
}

int main(void)
{
	enum { N = 10000 };
	char *a = malloc(N), *b = malloc(N);

	for (int i = 0; i < N; i++)
		a[i] = (char)(i * 7 + i / 251);
	memcpy(b, a, N);
	CHECK(same(a, N, b, N, N, 4096) == 1);   /* several windows of 2048 */
	CHECK(same(a, N, b, N, N, 1 << 20) == 1); /* one window */
	CHECK(same(a, 0, b, 0, 0, 4096) == 1);
	for (size_t cap = 64; cap <= (1 << 20); cap *= 128) {
		size_t at[] = { 0, 1, 31, 32, 33, 2047, 2048, N / 2, N - 2, N - 1 };

		for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
			b[at[k]] ^= 0x20;
			CHECK(same(a, N, b, N, N, cap) == 0);
			b[at[k]] ^= 0x20;
		}
	}
	/* One of them ends early: never equal, whatever the bytes so far. */
	CHECK(same(a, N, b, N - 1, N, 4096) == 0);
	CHECK(same(a, N - 1, b, N, N, 4096) == 0);
	/* A read error is said as such. */
	CHECK(fcp_dedup_same_bytes(-1, -1, N, a, 4096) < 0);
	free(a);
	free(b);
	CHECK_DONE();
}
