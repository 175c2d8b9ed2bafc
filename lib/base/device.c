/*
 * device.c - what the source device is like.
 *
 * On a rotational disk the order of the reads is the order of the seeks.
 * The walk lists a directory's files in inode order (walk.c), which is
 * the order of the inodes the opens read; the data is then read in the
 * order of each file's first extent, which FIEMAP answers from the inode
 * the open brought in: a batch's reads (engine_uring.c) and the larger
 * files it hands back (batch.c). The inode number alone guesses the data's
 * place well where inodes are not reused, badly on an aged filesystem. On
 * SSDs the order does not matter and the walk streams.
 *
 * A filesystem served over a link (FUSE, NFS, SMB, 9p, Ceph, AFS) answers
 * each lookup, open and read in a round trip: only there does the worker
 * pool grow while its workers wait (sched.c). On a local disk they wait on
 * the device, which more waiters do not make faster: a cold copy of the
 * small workload to a fresh XFS took 2.91 s with the pool grown, 2.45 s
 * with the 6 workers it started with.
 */
#include "base/device.h"

#include <stdio.h>
#include <sys/statfs.h>
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

bool fcp_fs_remote(const char *path)
{
	static const unsigned long remote[] = {
		0x65735546, /* FUSE */
		0x6969,     /* NFS */
		0xfe534d42, /* SMB2 */
		0xff534d42, /* CIFS */
		0x517b,     /* SMB */
		0x01021997, /* 9p */
		0x00c36400, /* Ceph */
		0x5346414f, /* AFS */
		0x6b414653, /* kAFS */
	};
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return false;
	for (size_t i = 0; i < sizeof(remote) / sizeof(remote[0]); i++)
		if ((unsigned long)sf.f_type == remote[i])
			return true;
	return false;
}
