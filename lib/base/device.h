/*
 * device.h - what the source device is like (device.c): asked of a device
 * number or a path, so it knows no job.
 */
#ifndef FCP_DEVICE_H
#define FCP_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

/* Is the block device dev (major << 32 | minor) rotational? */
bool fcp_dev_rotational(uint64_t dev);
/* Is path on a filesystem served over a link (FUSE, NFS, SMB, ...)? */
bool fcp_fs_remote(const char *path);

#endif
