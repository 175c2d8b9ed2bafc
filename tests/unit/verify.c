/* Unit tests for --verify's hash windows (lib/engine/verify.h): a file hashes the
 * same whether one stream reads it in any piece sizes or chunk runners hash
 * their windows in any order; holes hash as zeros; one changed byte changes
 * its window and no other. */
#include "check.h"
#include "engine/verify.h"

#include <stdlib.h>
#include <string.h>

#define WIN FCP_VERIFY_WINDOW

static bool same(const struct fcp_vsum *a, const struct fcp_vsum *b)
{
	return a->n == b->n && !memcmp(a->win, b->win, a->n * sizeof(*a->win));
}

/* One stream, fed in pieces of the given (cycling) sizes. */
static void by_stream(const char *buf, size_t len, const size_t *steps, int nsteps,
		      struct fcp_vsum *s)
{
	struct fcp_vstream v;
	size_t off = 0;

	CHECK(fcp_vsum_init(s, len) == 0);
	fcp_vstream_begin(&v, s, 0);
	for (int i = 0; off < len; i++) {
		size_t k = steps[i % nsteps];
		if (k > len - off)
			k = len - off;
		fcp_vstream_feed(&v, buf + off, k, off);
		off += k;
	}
	CHECK(fcp_vstream_end(&v, len) == 0);
}

/* Chunk runners, last chunk first (chunk.c presets every window). */
static void by_chunks(const char *buf, size_t len, struct fcp_vsum *s)
{
	size_t chunks = (len + WIN - 1) / WIN;

	CHECK(fcp_vsum_init(s, len) == 0);
	s->n = chunks;
	for (size_t i = chunks; i-- > 0;) {
		struct fcp_vstream v;
		size_t off = i * WIN, end = off + WIN < len ? off + WIN : len;
		fcp_vstream_begin(&v, s, off);
		fcp_vstream_feed(&v, buf + off, end - off, off);
		CHECK(fcp_vstream_end(&v, end) == 0);
	}
}

int main(void)
{
	size_t len = 2 * WIN + 12345;
	char *buf = malloc(len);
	struct fcp_vsum a, b, c;
	static const size_t odd[] = { 131072, 4095, 1, 1 << 20, 77777 };
	static const size_t one[] = { 2 * WIN + 12345 };

	if (!fcp_hash_available()) {
		printf("SKIP: built without libxxhash\n");
		return 77;
	}
	srand(19);
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)rand();

	by_stream(buf, len, one, 1, &a);
	CHECK(a.n == 3);
	by_stream(buf, len, odd, 5, &b);
	CHECK(same(&a, &b));
	fcp_vsum_free(&b);
	by_chunks(buf, len, &b);
	CHECK(same(&a, &b));
	fcp_vsum_free(&b);
	CHECK(fcp_vsum_of_buf(buf, len, &b) == 0);
	CHECK(same(&a, &b));
	fcp_vsum_free(&b);

	/* One byte changed in the second window: that window only. */
	buf[WIN + 5] ^= 1;
	CHECK(fcp_vsum_of_buf(buf, len, &b) == 0);
	CHECK(b.n == 3 && fcp_hash_equal(&a.win[0], &b.win[0]) &&
	      !fcp_hash_equal(&a.win[1], &b.win[1]) && fcp_hash_equal(&a.win[2], &b.win[2]));
	fcp_vsum_free(&b);
	buf[WIN + 5] ^= 1;

	/* Holes: data fed around them (and a trailing one left to the end)
	 * hash as the zeros read back from the copy. */
	memset(buf, 0, 1000);
	memset(buf + WIN - 10, 0, WIN + 20);
	memset(buf + len - 345, 0, 345);
	{
		struct fcp_vstream v;
		CHECK(fcp_vsum_init(&c, len) == 0);
		fcp_vstream_begin(&v, &c, 0);
		fcp_vstream_feed(&v, buf + 1000, WIN - 10 - 1000, 1000);
		fcp_vstream_feed(&v, buf + 2 * WIN + 10, len - 345 - (2 * WIN + 10), 2 * WIN + 10);
		CHECK(fcp_vstream_end(&v, len) == 0);
	}
	CHECK(fcp_vsum_of_buf(buf, len, &b) == 0);
	CHECK(same(&b, &c));
	CHECK(!same(&a, &b));
	fcp_vsum_free(&b);
	fcp_vsum_free(&c);

	/* A file that reports size 0 and has content: the windows grow. */
	{
		struct fcp_vstream v;
		CHECK(fcp_vsum_init(&c, 0) == 0);
		fcp_vstream_begin(&v, &c, 0);
		for (size_t off = 0; off < len; off += 65536)
			fcp_vstream_feed(&v, buf + off, len - off < 65536 ? len - off : 65536, off);
		CHECK(fcp_vstream_end(&v, v.pos) == 0);
		CHECK(fcp_vsum_of_buf(buf, len, &b) == 0);
		CHECK(same(&b, &c));
		fcp_vsum_free(&b);
		fcp_vsum_free(&c);
	}

	/* Empty: no windows, equal to another empty file. */
	CHECK(fcp_vsum_of_buf(buf, 0, &b) == 0);
	CHECK(b.n == 0);
	fcp_vsum_free(&b);
	fcp_vsum_free(&a);
	free(buf);
	CHECK_DONE();
}
