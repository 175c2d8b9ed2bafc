/*
 * freshfs.h - a brand-new loopback filesystem for one benchmark run.
 *
 * A copy onto a filesystem that just deleted the previous run's copy pays
 * for that deletion (journal, discard, free-space fragmentation). With
 * --fresh-fs every run gets a new image: mkfs, attach a loop device, mount;
 * afterwards unmount and detach, on errors and interrupts too.
 */
#ifndef FCP_BENCH_FRESHFS_H
#define FCP_BENCH_FRESHFS_H

#include <stdint.h>

struct freshfs {
	const char *type;  /* "xfs", "ext4" or "btrfs" */
	uint64_t size;     /* image size in bytes */
	char *image;       /* workdir/fs.img */
	char *mnt;         /* workdir/mnt */
	char loopdev[32];
	int loopfd;        /* -1 when not attached */
	int mounted;
};

/* Is type one we know how to make? */
int freshfs_supported(const char *type);
void freshfs_init(struct freshfs *fs, const char *type, uint64_t size, const char *workdir);
/* Make, attach and mount. Reports its own errors; 0 or -errno. */
int freshfs_create(struct freshfs *fs);
/* Unmount, detach, remove the image; safe to call in any state. 0 or -errno. */
int freshfs_destroy(struct freshfs *fs);
void freshfs_release(struct freshfs *fs);

#endif
