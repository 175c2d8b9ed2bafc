/*
 * grow.h - room in an array that doubles as it fills.
 */
#ifndef FCP_GROW_H
#define FCP_GROW_H

#include <stddef.h>

/* v (an array of *cap elements of each bytes) made to hold at least need
 * (1 or more):
 * returned as it is where it does, else reallocated to twice *cap (first,
 * where *cap is 0), doubled again until need fits, and *cap set. NULL
 * when memory is out: v and *cap are left as they were, for the caller
 * to go on with or free. */
void *fcp_grow(void *v, size_t *cap, size_t need, size_t each, size_t first);

#endif
