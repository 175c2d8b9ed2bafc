/*
 * sys.h - the syscall boundary.
 *
 * Every wrapper returns a non-negative result or -errno; nothing outside
 * sys.c reads errno. Callers write `if (ret < 0) return ret;`.
 * EINTR is retried here, so no caller has to think about it.
 */
#ifndef FCP_SYS_H
#define FCP_SYS_H

#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

int fcp_sys_openat(int dirfd, const char *name, int flags, mode_t mode);
/* From now on (on) every read-only fcp_sys_openat adds O_NOATIME where
 * the kernel allows it: --check reads and leaves no trace, not even the
 * access times of the files and directories it reads. Process-wide. */
void fcp_sys_reads_noatime(bool on);
/* faccessat with the effective ids (AT_EACCESS): 0 or -errno. */
int fcp_sys_access(const char *path, int mode);
/* openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS; falls back to a
 * component-by-component O_NOFOLLOW walk where openat2 is missing. */
int fcp_sys_open_beneath(int dirfd, const char *relpath, int flags, mode_t mode);
int fcp_sys_close(int fd);
int fcp_sys_dup(int fd); /* close-on-exec */
/* Open fd, an O_PATH descriptor, again with flags (O_NOFOLLOW is dropped):
 * the very inode it names, not whatever its name leads to now. Through
 * /proc/self/fd; -ENOENT where /proc is not mounted. */
int fcp_sys_reopen(int fd, int flags);
/* Open name in dirfd with flags only if it is a regular file; a FIFO,
 * device or socket put in its place is never opened (an open can act: a
 * tape rewinds, a modem hangs up, a FIFO's writer is let go). The name is
 * opened O_PATH (with flags' O_NOFOLLOW), *st (mask) is read from what
 * was opened, and a regular file is reopened through it. Returns the
 * descriptor, -ENXIO when it is not a regular file (*st says what it is),
 * or -errno. Without /proc, the name is opened a second time, checked to
 * be the same inode. */
int fcp_sys_open_regular(int dirfd, const char *name, int flags, unsigned mask,
			 struct statx *st);
/* The same for relpath beneath dirfd, as fcp_sys_open_beneath opens it
 * (no symlink followed on the way, nor out of dirfd): a symlink at the
 * end is looked at, never followed (-ENXIO, *st says symlink). */
int fcp_sys_open_regular_beneath(int dirfd, const char *relpath, int flags, unsigned mask,
				 struct statx *st);
/* The opens above wait out a shortage of descriptors (EMFILE, ENFILE) for
 * a few seconds, unless *stop is true: a job sets its stop flag here while
 * it runs (one job at a time per process), NULL after. */
void fcp_sys_watch_stop(const atomic_bool *stop);
int fcp_sys_statx(int dirfd, const char *name, int flags, unsigned mask, struct statx *stx);
int fcp_sys_fstatx(int fd, struct statx *stx);
/* The id of the mount that holds name in dirfd (flags: statx's), into
 * *id: stx_mnt_id (Linux 5.8), else the mnt_id of /proc/self/fdinfo. A
 * bind mount of a directory of the same filesystem has the st_dev of its
 * parent but a mount id of its own. -EOPNOTSUPP where neither is there. */
int fcp_sys_mount_id(int dirfd, const char *name, int flags, uint64_t *id);
/* fd's inode opened again (flags: open(2)'s) through the mount of the
 * directory mount_fd, by its file handle (name_to_handle_at,
 * open_by_handle_at): the inode as its filesystem places it, whatever
 * mount showed it, so that ".." and /proc/self/fd then follow the
 * filesystem, not a bind mount. A descriptor, or -errno: -EOPNOTSUPP
 * where the filesystem has no handles, -EPERM without
 * CAP_DAC_READ_SEARCH. */
int fcp_sys_reopen_through(int mount_fd, int fd, int flags);

/* Read up to len bytes, retrying short reads until EOF; returns bytes read. */
ssize_t fcp_sys_read_full(int fd, void *buf, size_t len);
ssize_t fcp_sys_pread_full(int fd, void *buf, size_t len, off_t off);
/* The first max bytes (at most) of the regular file name in dirfd, not
 * followed if a symlink, into *buf (malloc'd, NUL-terminated): how many. */
ssize_t fcp_sys_read_file(int dirfd, const char *name, size_t max, char **buf);
/* Read fd to its end (at most max bytes) into a new NUL-terminated *buf,
 * whatever it is (a pipe too: no seek, no size asked): the length or
 * -errno. */
ssize_t fcp_sys_read_stream(int fd, size_t max, char **buf);
/* One pread (EINTR retried): a short count is the caller's to judge. */
ssize_t fcp_sys_pread(int fd, void *buf, size_t len, off_t off);
/* Write all len bytes; a 0-byte write is reported as -ENOSPC. */
ssize_t fcp_sys_write_full(int fd, const void *buf, size_t len);
/* Write a line whole (fd opened with O_APPEND, or a pipe): where a write
 * fails after a part of it, a regular file is cut back to where the line
 * began, so that it never ends mid-line. The caller writes one line at a
 * time to fd. Returns 0 or -errno. */
int fcp_sys_write_line(int fd, const void *buf, size_t len);
ssize_t fcp_sys_pwrite_full(int fd, const void *buf, size_t len, off_t off);

ssize_t fcp_sys_copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t len);
int fcp_sys_ficlone(int dst, int src);
off_t fcp_sys_lseek(int fd, off_t off, int whence);
int fcp_sys_ftruncate(int fd, off_t len);
int fcp_sys_fsync(int fd);
/* The filesystem type of fd (statfs f_type, a *_MAGIC of linux/magic.h). */
int fcp_sys_fs_type(int fd, long *type);
/* The filesystem identity of path (statfs f_fsid, following symlinks):
 * 0 where the filesystem gives none. */
int fcp_sys_fs_id(const char *path, uint64_t *id);
/* Start writing back [off, off+len) of fd (0 = to the end); does not wait. */
int fcp_sys_writeback_start(int fd, off_t off, off_t len);
/* Write back all of fd's dirty pages and wait for them (no flush of the
 * device's cache, no metadata: not fdatasync). */
int fcp_sys_writeback_wait(int fd);
int fcp_sys_fdatasync(int fd);

struct dirent;
typedef struct __dirstream DIR;
/* The next entry of dir in *de: 1, 0 at the end, or -errno (a read error
 * must not look like the end of the directory). */
int fcp_sys_readdir(DIR *dir, struct dirent **de);
int fcp_sys_mkdirat(int dirfd, const char *name, mode_t mode);
int fcp_sys_mknodat(int dirfd, const char *name, mode_t mode, dev_t dev);
int fcp_sys_symlinkat(const char *target, int dirfd, const char *name);
/* Read a symlink's target into a malloc'd NUL-terminated string. */
int fcp_sys_readlinkat(int dirfd, const char *name, char **target);
int fcp_sys_linkat(int olddir, const char *old, int newdir, const char *new, int flags);
int fcp_sys_flock(int fd, int op);
/* Random bytes from the kernel (at most 256 come at once). */
ssize_t fcp_sys_getrandom(void *buf, size_t len);
int fcp_sys_getgroups(int size, gid_t *list);
int fcp_sys_renameat(int olddir, const char *old, int newdir, const char *new, unsigned flags);
int fcp_sys_unlinkat(int dirfd, const char *name, int flags);

int fcp_sys_fchown(int fd, uid_t uid, gid_t gid);
int fcp_sys_fchownat(int dirfd, const char *name, uid_t uid, gid_t gid, int flags);
int fcp_sys_fchmod(int fd, mode_t mode);
int fcp_sys_futimens(int fd, const struct timespec ts[2]);
int fcp_sys_utimensat(int dirfd, const char *name, const struct timespec ts[2], int flags);

/* xattrs of fd, or (fd < 0) of name in dirfd itself (dirfd may be
 * AT_FDCWD), not following a final symlink. list/get return a malloc'd
 * buffer in *list / *val and its size. */
ssize_t fcp_sys_listxattr(int fd, int dirfd, const char *name, char **list);
ssize_t fcp_sys_getxattr(int fd, int dirfd, const char *name, const char *key, void **val);
int fcp_sys_setxattr(int fd, int dirfd, const char *name, const char *key, const void *val,
		     size_t len);
int fcp_sys_fsetxattr(int fd, const char *key, const void *val, size_t len);
int fcp_sys_removexattr(int fd, int dirfd, const char *name, const char *key);
/* chmod of name in dirfd that refuses to follow a symlink. */
int fcp_sys_fchmodat_nofollow(int dirfd, const char *name, mode_t mode);

int fcp_sys_posix_fadvise(int fd, off_t off, off_t len, int advice);
/* How many pages of fd's [off, off+len) (len 0: to the end) the page cache
 * holds (cachestat(2), Linux 6.5; -ENOSYS before). */
int fcp_sys_cached_pages(int fd, off_t off, off_t len, uint64_t *pages);
/* Where on its device fd's data begins: the byte offset of its first
 * extent (FIEMAP). -ENODATA when that says nothing about the order of the
 * reads: no extent, or one not yet placed (delayed allocation) or not a
 * place on the device (inline, encoded, unknown). */
int fcp_sys_first_extent(int fd, uint64_t *phys);

/* O_DIRECT asks for whole blocks, at aligned offsets, into aligned
 * buffers: 4096 bytes covers the logical block sizes met (512, 4096). */
#define FCP_DIRECT_ALIGN 4096u
/* Turn O_DIRECT on or off for an open file (-EINVAL: not on this
 * filesystem). */
int fcp_sys_set_direct(int fd, bool on);
/* Is O_DIRECT on for fd: 1, 0, or -errno. */
int fcp_sys_direct_on(int fd);
/* Ask for [p, p+len) to be backed by huge pages (transparent huge pages,
 * where the kernel has them for madvise()d memory): -EINVAL where not. */
int fcp_sys_huge_pages(void *p, size_t len);

#endif
