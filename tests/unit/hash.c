/* Unit tests for the file hash (lib/core/hash.h): the same for a file read
 * from disk (fcp_hash_fd), a buffer (fcp_hash_buf) and the windows a copy
 * hashed as it wrote them, in any order (fcp_vsum_hash); XXH3-128 of the
 * bytes for a file of one window or less, as before windows; one changed
 * byte anywhere changes it. */
#include "check.h"
#include "config.h"
#include "engine/verify.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_XXHASH
#include <xxhash.h>
#endif

#define WIN FCP_HASH_WINDOW

/* The windows of buf as chunk runners fill them, last chunk first. */
static void by_chunks(const char *buf, size_t len, struct fcp_hash *out)
{
	struct fcp_vsum s;
	size_t chunks = (len + WIN - 1) / WIN;

	CHECK(fcp_vsum_init(&s, len) == 0);
	s.n = chunks;
	for (size_t i = chunks; i-- > 0;) {
		struct fcp_vstream v;
		size_t off = i * WIN, end = off + WIN < len ? off + WIN : len;
		fcp_vstream_begin(&v, &s, off);
		fcp_vstream_feed(&v, buf + off, end - off, off);
		CHECK(fcp_vstream_end(&v, end) == 0);
	}
	fcp_vsum_hash(&s, out);
	fcp_vsum_free(&s);
}

/* The hash of buf[0, len) read back from a file, in reads of cap bytes. */
static void by_file(const char *buf, size_t len, size_t cap, struct fcp_hash *out)
{
	char path[] = "/tmp/fcp-unit-hash.XXXXXX";
	int fd = mkstemp(path);
	void *rbuf = malloc(cap);

	CHECK(fd >= 0 && rbuf);
	unlink(path);
	CHECK(write(fd, buf, len) == (ssize_t)len);
	CHECK(fcp_hash_fd(NULL, fd, len, rbuf, cap, false, out) == 0);
	close(fd);
	free(rbuf);
}

int main(void)
{
	static const size_t sizes[] = { 0, 1, 4096, WIN - 1, WIN, WIN + 1, 2 * WIN + 12345 };
	size_t max = 2 * WIN + 12345;
	char *buf = malloc(max);
	struct fcp_hash a, b, c, d;

	if (!fcp_hash_available()) {
		printf("SKIP: built without libxxhash\n");
		return 77;
	}
	srand(33);
	for (size_t i = 0; i < max; i++)
		buf[i] = (char)rand();
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t len = sizes[k];

		fcp_hash_buf(buf, len, &a);
		by_chunks(buf, len, &b);
		by_file(buf, len, 1 << 20, &c);
		by_file(buf, len, 3 * 4096 + 7, &d); /* reads across window ends */
		CHECK(fcp_hash_equal(&a, &b));
		CHECK(fcp_hash_equal(&a, &c));
		CHECK(fcp_hash_equal(&a, &d));
#ifdef HAVE_XXHASH
		if (len <= WIN) {
			XXH128_hash_t x = XXH3_128bits(buf, len);
			CHECK(a.lo == x.low64 && a.hi == x.high64);
		} else {
			XXH128_hash_t x = XXH3_128bits(buf, len);
			CHECK(a.lo != x.low64 || a.hi != x.high64);
		}
#endif
		/* One byte changed, in the last window: another hash. */
		if (len) {
			buf[len - 1] ^= 1;
			fcp_hash_buf(buf, len, &b);
			buf[len - 1] ^= 1;
			CHECK(!fcp_hash_equal(&a, &b));
		}
	}
	/* A byte changed in the first window of a long file changes it too. */
	fcp_hash_buf(buf, max, &a);
	buf[5] ^= 1;
	fcp_hash_buf(buf, max, &b);
	CHECK(!fcp_hash_equal(&a, &b));
	free(buf);
	CHECK_DONE();
}
