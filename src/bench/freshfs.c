/*
 * freshfs.c - see freshfs.h. Like run.c, this file turns errno into -errno
 * at each of its own system calls (mount, umount2, loop ioctls).
 */
#include "freshfs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "bench.h"
#include "run.h"
#include "base/sys.h"

int freshfs_supported(const char *type)
{
	return !strcmp(type, "xfs") || !strcmp(type, "ext4") || !strcmp(type, "btrfs");
}

void freshfs_init(struct freshfs *fs, const char *type, uint64_t size, const char *workdir)
{
	memset(fs, 0, sizeof(*fs));
	fs->type = type;
	fs->size = size;
	fs->image = bench_path_join(workdir, "fs.img");
	fs->mnt = bench_path_join(workdir, "mnt");
	fs->loopfd = -1;
}

void freshfs_release(struct freshfs *fs)
{
	free(fs->image);
	free(fs->mnt);
}

static int make_image(struct freshfs *fs)
{
	char prog[32];
	char *argv[] = { prog, "-q", "-f", fs->image, NULL };
	struct bench_proc p;
	int fd = fcp_sys_openat(AT_FDCWD, fs->image, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ret;

	if (fd < 0)
		return bench_syserr(fd, "create", fs->image), fd;
	ret = fcp_sys_ftruncate(fd, fs->size);
	fcp_sys_close(fd);
	if (ret < 0)
		return bench_syserr(ret, "size", fs->image), ret;
	snprintf(prog, sizeof(prog), "mkfs.%s", fs->type);
	if (!strcmp(fs->type, "ext4"))
		argv[2] = "-F"; /* mke2fs spells force differently */
	ret = bench_run_argv(argv, &p);
	if (ret < 0)
		return bench_syserr(ret, "run", prog), ret;
	if (!bench_proc_ok(&p)) {
		bench_err("%s '%s' failed: %s", prog, fs->image, p.err);
		return -EIO;
	}
	return 0;
}

/* Find a free loop device and bind the image to it; retry if one is taken. */
static int attach_loop(struct freshfs *fs)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	int img = -1, ret = -EBUSY;

	if (ctl < 0)
		return -errno;
	img = open(fs->image, O_RDWR | O_CLOEXEC);
	if (img < 0) {
		ret = -errno;
		close(ctl);
		return ret;
	}
	for (int tries = 0; tries < 20 && ret == -EBUSY; tries++) {
		struct loop_config cfg;
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (n < 0) {
			ret = -errno;
			break;
		}
		snprintf(fs->loopdev, sizeof(fs->loopdev), "/dev/loop%d", n);
		fs->loopfd = open(fs->loopdev, O_RDWR | O_CLOEXEC);
		if (fs->loopfd < 0) {
			ret = -errno;
			continue;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = img;
		/* Autoclear: the device detaches itself when the last user leaves,
		 * even if we die before detaching it. */
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
		ret = ioctl(fs->loopfd, LOOP_CONFIGURE, &cfg) < 0 ? -errno : 0;
		if (ret == -EINVAL) { /* no direct I/O on the image's filesystem */
			cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
			ret = ioctl(fs->loopfd, LOOP_CONFIGURE, &cfg) < 0 ? -errno : 0;
		}
		if (ret < 0) {
			close(fs->loopfd);
			fs->loopfd = -1;
		}
	}
	close(img);
	close(ctl);
	return ret;
}

int freshfs_create(struct freshfs *fs)
{
	int ret = make_image(fs);

	if (ret < 0)
		return ret;
	ret = attach_loop(fs);
	if (ret < 0) {
		bench_syserr(ret, "attach a loop device to", fs->image);
		freshfs_destroy(fs);
		return ret;
	}
	ret = fcp_sys_mkdirat(AT_FDCWD, fs->mnt, 0755);
	if (ret < 0 && ret != -EEXIST) {
		bench_syserr(ret, "create directory", fs->mnt);
		freshfs_destroy(fs);
		return ret;
	}
	if (mount(fs->loopdev, fs->mnt, fs->type, 0, NULL) < 0) {
		ret = -errno;
		bench_err("cannot mount %s (%s) on '%s': %s", fs->loopdev, fs->type, fs->mnt,
			  strerror(-ret));
		freshfs_destroy(fs);
		return ret;
	}
	fs->mounted = 1;
	return 0;
}

static int unmount(struct freshfs *fs)
{
	/* A process that has just exited may still pin the mount briefly. */
	for (int tries = 0; tries < 50; tries++) {
		if (umount2(fs->mnt, 0) == 0)
			return 0;
		if (errno != EBUSY)
			return -errno;
		usleep(100 * 1000);
	}
	/* Last resort: detach lazily, the device goes when the last user does. */
	return umount2(fs->mnt, MNT_DETACH) < 0 ? -errno : 0;
}

/* LOOP_CLR_FD only asks for the detach; the backing file is let go when
 * the device is free. Until then its blocks are not freed, and freeing
 * them (with online discard on the host filesystem) would happen during
 * the next timed run: wait, at most a few seconds. */
static void wait_detached(const char *loopdev)
{
	for (int tries = 0; loopdev[0] && tries < 100; tries++) {
		struct loop_info64 info;
		int fd = fcp_sys_openat(AT_FDCWD, loopdev, O_RDONLY, 0);
		int busy = fd >= 0 && ioctl(fd, LOOP_GET_STATUS64, &info) == 0;

		if (fd >= 0)
			fcp_sys_close(fd);
		if (!busy)
			return;
		usleep(50 * 1000);
	}
}

/* Commit the host filesystem's frees (and discards) of the deleted image
 * now, outside the timing, so the next run does not pay for them. */
static void settle(const char *image)
{
	char *dir = strdup(image), *slash = dir ? strrchr(dir, '/') : NULL;
	int fd;

	if (slash)
		*slash = 0;
	fd = dir ? fcp_sys_openat(AT_FDCWD, slash ? dir : ".", O_RDONLY | O_DIRECTORY, 0) : -1;
	if (fd >= 0) {
		bench_syncfs(fd);
		fcp_sys_close(fd);
	}
	free(dir);
}

int freshfs_destroy(struct freshfs *fs)
{
	int ret = 0, r;

	if (fs->mounted) {
		r = unmount(fs);
		if (r < 0) {
			bench_syserr(r, "unmount", fs->mnt);
			ret = r;
		} else {
			fs->mounted = 0;
		}
	}
	if (fs->loopfd >= 0) {
		if (ioctl(fs->loopfd, LOOP_CLR_FD) < 0 && errno != ENXIO && !ret) {
			ret = -errno;
			bench_syserr(ret, "detach", fs->loopdev);
		}
		close(fs->loopfd);
		fs->loopfd = -1;
	}
	if (!fs->mounted) {
		r = fcp_sys_unlinkat(AT_FDCWD, fs->mnt, AT_REMOVEDIR);
		if (r < 0 && r != -ENOENT && !ret)
			ret = r;
	}
	wait_detached(fs->loopdev);
	r = fcp_sys_unlinkat(AT_FDCWD, fs->image, 0);
	if (r < 0 && r != -ENOENT && !ret)
		ret = r;
	settle(fs->image);
	return ret;
}
