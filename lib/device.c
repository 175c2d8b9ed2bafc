/*
 * device.c - what the source device is like.
 *
 * On a rotational disk, reading the files of a directory in inode order
 * follows their physical order closely enough to save most seeks: for a
 * small file the inode number stands in for the first extent that FIEMAP
 * would give, at no cost (asking would take an open and an ioctl per file,
 * where the file's data is a single read). The larger files that a batch
 * hands back are then put in the order of their first extent (batch.c):
 * each is read on its own, and the batch has them open already. On SSDs
 * the order does not matter and the walk streams.
 */
#include "job.h"

#include <stdio.h>
#include <sys/sysmacros.h>

static int read_flag(const char *path)
{
	FILE *f = fopen(path, "re");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c == EOF ? -1 : c == '1';
}

bool fcp_dev_rotational(uint64_t dev)
{
	unsigned maj = (unsigned)(dev >> 32), min = (unsigned)dev;
	char path[96];
	int r;

	if (maj == 0)
		return false; /* tmpfs, procfs, overlay...: no block device */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/rotational", maj, min);
	r = read_flag(path);
	if (r < 0) { /* a partition: the flag lives on its disk */
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/rotational", maj, min);
		r = read_flag(path);
	}
	return r == 1;
}
