/*
 * grow.c - room in an array that doubles as it fills (grow.h).
 */
#include "base/grow.h"

#include <stdint.h>
#include <stdlib.h>

void *fcp_grow(void *v, size_t *cap, size_t need, size_t each, size_t first)
{
	size_t n = *cap ? *cap : first ? first : 1;

	if (need <= *cap)
		return v;
	while (n < need && n <= SIZE_MAX / 2)
		n *= 2;
	if (n < need || n > SIZE_MAX / each || !(v = realloc(v, n * each)))
		return NULL;
	*cap = n;
	return v;
}
