/*
 * workdir.c - the directories fastcp-bench makes for itself, and what kind
 * of filesystem a path is on (for the report's description of the setup).
 */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/sys.h"

/* A directory of our own inside PATH, so cleanup never touches user files. */
int bench_make_workdir(const char *path, const char *prefix, char **workdir, int *fd)
{
	struct statx stx;
	char name[64];
	char *t;
	int ret = fcp_sys_statx(AT_FDCWD, path, 0, STATX_TYPE, &stx);

	if (ret < 0)
		return bench_syserr(ret, "use", path), ret;
	if (!S_ISDIR(stx.stx_mode))
		return bench_err("'%s' is not a directory", path), -ENOTDIR;
	snprintf(name, sizeof(name), "%s.XXXXXX", prefix);
	t = bench_path_join(path, name);
	if (!mkdtemp(t)) {
		ret = -errno;
		free(t);
		return bench_syserr(ret, "create a directory in", path), ret;
	}
	*workdir = t;
	*fd = fcp_sys_openat(AT_FDCWD, t, O_RDONLY | O_DIRECTORY, 0);
	if (*fd < 0)
		return bench_syserr(*fd, "open", t), *fd;
	return 0;
}

void bench_remove_workdir(char *workdir, int fd)
{
	struct statx stx;
	int ret;

	if (fd >= 0)
		fcp_sys_close(fd);
	if (!workdir)
		return;
	ret = fcp_sys_statx(AT_FDCWD, workdir, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &stx);
	if (ret >= 0)
		ret = bench_rmtree_at(AT_FDCWD, workdir,
				      makedev(stx.stx_dev_major, stx.stx_dev_minor));
	if (ret < 0 && ret != -ENOENT)
		bench_syserr(ret, "remove", workdir);
	free(workdir);
}


const char *bench_fs_name(const char *path)
{
	static const struct { unsigned long magic; const char *name; } names[] = {
		{ 0xEF53, "ext4" }, { 0x58465342, "xfs" }, { 0x9123683E, "btrfs" },
		{ 0x01021994, "tmpfs" }, { 0x794c7630, "overlayfs" }, { 0x6969, "nfs" },
		{ 0x2FC12FC1, "zfs" }, { 0xF2F52010, "f2fs" }, { 0x4d44, "vfat" },
		{ 0x5346544e, "ntfs" }, { 0x65735546, "fuse" }, { 0xFF534D42, "cifs" },
	};
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return "unknown";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((unsigned long)sf.f_type == names[i].magic)
			return names[i].name;
	return "other";
}

int bench_syncfs(int fd)
{
	return syncfs(fd) < 0 ? -errno : 0;
}
