/* Unit tests for fcp_grow: the array kept where it has room, its first
 * size, doubling (more than once for a large need), the elements kept,
 * and a size that cannot be had leaves the array and its count alone. */
#include "check.h"
#include "base/grow.h"

#include <stdint.h>
#include <stdlib.h>

int main(void)
{
	size_t cap = 0;
	int *v = NULL, *p;

	p = fcp_grow(v, &cap, 1, sizeof(*v), 8);
	CHECK(p && cap == 8);
	v = p;
	for (int i = 0; i < 8; i++)
		v[i] = i * 3;
	CHECK(fcp_grow(v, &cap, 8, sizeof(*v), 8) == v && cap == 8); /* room: as it is */
	p = fcp_grow(v, &cap, 9, sizeof(*v), 8);
	CHECK(p && cap == 16);
	v = p;
	CHECK(v[0] == 0 && v[7] == 21);
	p = fcp_grow(v, &cap, 100, sizeof(*v), 8); /* 16 -> 32 -> 64 -> 128 */
	CHECK(p && cap == 128);
	v = p;
	CHECK(v[5] == 15);
	/* Too large for memory, or for size_t: NULL, nothing changed. */
	CHECK(fcp_grow(v, &cap, SIZE_MAX / 2, sizeof(*v), 8) == NULL && cap == 128);
	CHECK(fcp_grow(v, &cap, SIZE_MAX, 1, 8) == NULL && cap == 128);
	CHECK(v[7] == 21);
	free(v);
	/* A first size of 0 still grows. */
	cap = 0;
	p = fcp_grow(NULL, &cap, 3, 1, 0);
	CHECK(p && cap == 4);
	free(p);
	CHECK_DONE();
}
