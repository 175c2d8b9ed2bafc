/*
 * sys.c - the syscall boundary: thin wrappers that return -errno.
 *
 * Keeping errno inside this file means no caller can read a stale errno
 * after an intervening call, and EINTR handling lives in one place.
 */
#include "base/sys.h"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <errno.h>
#include <stdatomic.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define RET(expr) do { long r_; do r_ = (long)(expr); while (r_ < 0 && errno == EINTR); \
	return r_ < 0 ? -errno : r_; } while (0)

/*
 * EMFILE, ENFILE: descriptors are short for a moment (other workers hold
 * them; other processes, for ENFILE). That is back-pressure, not a failed
 * file: wait for some to be closed and try again, in growing steps, up to
 * FD_WAIT_MS in all; only then is it an error (something holds them for
 * good). A job that is stopping waits for nothing: its signal or its full
 * destination must not wait 5 s per open. Returns true to try again; errno
 * is kept otherwise.
 */
#define FD_WAIT_MS 5000

static _Atomic(const atomic_bool *) stop_flag;

void fcp_sys_watch_stop(const atomic_bool *stop)
{
	atomic_store(&stop_flag, stop);
}

static bool stopping(void)
{
	const atomic_bool *stop = atomic_load(&stop_flag);

	return stop && atomic_load(stop);
}

static bool fd_wait(long r, int *waited_ms)
{
	struct timespec t;
	int ms = 1 + *waited_ms / 4;

	if (r >= 0 || (errno != EMFILE && errno != ENFILE) || *waited_ms >= FD_WAIT_MS ||
	    stopping())
		return false;
	ms = ms < 50 ? ms : 50;
	t.tv_sec = 0;
	t.tv_nsec = ms * 1000000L;
	nanosleep(&t, NULL);
	*waited_ms += ms;
	return true;
}

/* RET for a call that makes a descriptor: a shortage is waited out too. */
#define RET_FD(expr) do { int w_ = 0; long r_; \
	do r_ = (long)(expr); while ((r_ < 0 && errno == EINTR) || fd_wait(r_, &w_)); \
	return r_ < 0 ? -errno : (int)r_; } while (0)

int fcp_sys_access(const char *path, int mode)
{
	RET(faccessat(AT_FDCWD, path, mode, AT_EACCESS));
}

static atomic_bool reads_noatime;

void fcp_sys_reads_noatime(bool on)
{
	atomic_store(&reads_noatime, on);
}

static int openat_plain(int dirfd, const char *name, int flags, mode_t mode)
{
	RET_FD(openat(dirfd, name, flags | O_CLOEXEC, mode));
}

/* Is an open with flags a read that must not move the access time? */
static bool noatime_read(int flags)
{
	return atomic_load_explicit(&reads_noatime, memory_order_relaxed) &&
	       !(flags & (O_WRONLY | O_RDWR | O_CREAT | O_PATH)) && (flags & O_TMPFILE) != O_TMPFILE;
}

int fcp_sys_openat(int dirfd, const char *name, int flags, mode_t mode)
{
	int r;

	/* O_NOATIME is refused (EPERM) on another user's file unless we may
	 * override that (root): then the open goes on without it. */
	if (noatime_read(flags) && (r = openat_plain(dirfd, name, flags | O_NOATIME, mode)) != -EPERM)
		return r;
	return openat_plain(dirfd, name, flags, mode);
}

/* /proc/self/fd, opened once: a reopen is one lookup there. -1: not
 * looked for yet; -2: no /proc. A child of fork() has another fd table
 * and must not read its parent's: it looks again. */
static atomic_int proc_fds = -1;

static void proc_fds_forget(void)
{
	atomic_store(&proc_fds, -1); /* (the child's copy of it leaks: rare) */
}

static void proc_fds_atfork(void)
{
	pthread_atfork(NULL, NULL, proc_fds_forget);
}

static int proc_fds_get(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int fd = atomic_load(&proc_fds), was = -1;

	if (fd != -1)
		return fd;
	pthread_once(&once, proc_fds_atfork);
	fd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fd = -2;
	if (!atomic_compare_exchange_strong(&proc_fds, &was, fd) && fd >= 0) {
		close(fd);
		fd = was;
	}
	return fd;
}

int fcp_sys_reopen(int fd, int flags)
{
	int dir = proc_fds_get();
	char num[16];

	if (dir < 0)
		return -ENOENT;
	snprintf(num, sizeof(num), "%d", fd);
	/* The magic link is the last component: O_NOFOLLOW would refuse it. */
	return fcp_sys_openat(dir, num, flags & ~O_NOFOLLOW, 0);
}

/* name opened in dirfd (flags): beneath it (fcp_sys_open_beneath), or as openat does. */
static int open_at(int dirfd, const char *name, int flags, bool beneath)
{
	return beneath ? fcp_sys_open_beneath(dirfd, name, flags, 0)
		       : fcp_sys_openat(dirfd, name, flags, 0);
}

/* Without /proc: by name again, and only the inode that was checked. */
static int reopen_by_name(int dirfd, const char *name, int flags, bool beneath,
			  const struct statx *st)
{
	struct statx now;
	int fd = open_at(dirfd, name, flags, beneath), r;

	if (fd < 0)
		return fd;
	r = fcp_sys_fstatx(fd, &now);
	if (r == 0 && !(now.stx_ino == st->stx_ino && now.stx_dev_major == st->stx_dev_major &&
			now.stx_dev_minor == st->stx_dev_minor))
		r = -ENXIO;
	if (r < 0)
		close(fd);
	return r < 0 ? r : fd;
}

static int open_regular(int dirfd, const char *name, int flags, unsigned mask,
			struct statx *st, bool beneath)
{
	int path = open_at(dirfd, name, O_PATH | (flags & O_NOFOLLOW), beneath), fd;

	if (path < 0)
		return path;
	fd = fcp_sys_statx(path, "", AT_EMPTY_PATH, mask | STATX_TYPE | STATX_INO, st);
	if (fd == 0 && !S_ISREG(st->stx_mode))
		fd = -ENXIO;
	else if (fd == 0 && (fd = fcp_sys_reopen(path, flags)) == -ENOENT &&
		 atomic_load(&proc_fds) == -2)
		fd = reopen_by_name(dirfd, name, flags, beneath, st);
	close(path);
	return fd;
}

int fcp_sys_open_regular(int dirfd, const char *name, int flags, unsigned mask,
			 struct statx *st)
{
	return open_regular(dirfd, name, flags, mask, st, false);
}

int fcp_sys_open_regular_beneath(int dirfd, const char *relpath, int flags, unsigned mask,
				 struct statx *st)
{
	int r = -EAGAIN;

	/* openat2 answers a rename met during the walk with EAGAIN (and,
	 * seen on a directory whose entry is swapped meanwhile, EXDEV): it
	 * asks to be tried again. A real escape says so every time. */
	for (int i = 0; i < 4 && (r == -EAGAIN || r == -EXDEV); i++)
		r = open_regular(dirfd, relpath, flags, mask, st, true);
	return r;
}

/* The fallback walk for kernels without openat2: every directory component
 * is opened with O_PATH|O_NOFOLLOW|O_DIRECTORY, so no symlink is ever
 * traversed and search permission is all it needs; ".." is refused. */
static int open_beneath_walk(int dirfd, const char *relpath, int flags, mode_t mode)
{
	char *copy = strdup(relpath), *save = NULL, *part, *next;
	int fd = dirfd, ret = -ENOENT;

	if (!copy)
		return -ENOMEM;
	for (part = strtok_r(copy, "/", &save); part; part = next) {
		next = strtok_r(NULL, "/", &save);
		ret = !strcmp(part, "..") ? -EXDEV
		      : fcp_sys_openat(fd, part, next ? O_PATH | O_DIRECTORY | O_NOFOLLOW
						      : flags | O_NOFOLLOW, mode);
		if (fd != dirfd)
			close(fd);
		if (ret < 0)
			break;
		fd = ret;
	}
	free(copy);
	return ret;
}

static int openat2_beneath(int dirfd, const char *relpath, const struct open_how *how)
{
	RET_FD(syscall(SYS_openat2, dirfd, relpath, how, sizeof(*how)));
}

/* A path longer than the kernel takes in one call is opened a piece at a
 * time, each piece cut at a '/' and opened beneath the last. */
static int open_beneath_long(int dirfd, const char *relpath, int flags, mode_t mode)
{
	size_t cut = PATH_MAX - 1;
	char *head;
	int at, r;

	while (cut > 0 && relpath[cut] != '/')
		cut--;
	if (cut == 0)
		return -ENAMETOOLONG; /* one name longer than PATH_MAX */
	if (!(head = strndup(relpath, cut)))
		return -ENOMEM;
	at = fcp_sys_open_beneath(dirfd, head, O_PATH | O_DIRECTORY, 0);
	free(head);
	if (at < 0)
		return at;
	r = fcp_sys_open_beneath(at, relpath + cut + 1, flags, mode);
	close(at);
	return r;
}

static int open_beneath(int dirfd, const char *relpath, int flags, mode_t mode);

int fcp_sys_open_beneath(int dirfd, const char *relpath, int flags, mode_t mode)
{
	int r;

	/* As fcp_sys_openat: without O_NOATIME where it is refused. */
	if (noatime_read(flags) && (r = open_beneath(dirfd, relpath, flags | O_NOATIME, mode)) != -EPERM)
		return r;
	return open_beneath(dirfd, relpath, flags, mode);
}

static int open_beneath(int dirfd, const char *relpath, int flags, mode_t mode)
{
	if (strlen(relpath) >= PATH_MAX)
		return open_beneath_long(dirfd, relpath, flags, mode);
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int r = openat2_beneath(dirfd, relpath, &how);

	return r == -ENOSYS ? open_beneath_walk(dirfd, relpath, flags, mode) : r;
}

int fcp_sys_close(int fd)
{
	/* close() must not be retried on EINTR: the fd is gone either way. */
	return close(fd) < 0 && errno != EINTR ? -errno : 0;
}

int fcp_sys_dup(int fd)
{
	RET_FD(fcntl(fd, F_DUPFD_CLOEXEC, 0));
}

int fcp_sys_statx(int dirfd, const char *name, int flags, unsigned mask, struct statx *stx)
{
	RET(statx(dirfd, name, flags, mask, stx));
}

int fcp_sys_fstatx(int fd, struct statx *stx)
{
	return fcp_sys_statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, stx);
}

/* The "mnt_id:" line of /proc/self/fdinfo/FD (Linux 3.15). */
static int fdinfo_mount_id(int fd, uint64_t *id)
{
	char path[64], line[128];
	unsigned long long v;
	FILE *f;
	int r = -EOPNOTSUPP;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (!(f = fopen(path, "re")))
		return -EOPNOTSUPP;
	while (r < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "mnt_id: %llu", &v) == 1) {
			*id = v;
			r = 0;
		}
	fclose(f);
	return r;
}

int fcp_sys_mount_id(int dirfd, const char *name, int flags, uint64_t *id)
{
	struct statx st;
	int r = fcp_sys_statx(dirfd, name, flags, STATX_MNT_ID, &st), fd;

	if (r < 0)
		return r;
	if (st.stx_mask & STATX_MNT_ID) {
		*id = st.stx_mnt_id;
		return 0;
	}
	if (!*name) /* AT_EMPTY_PATH: dirfd itself */
		return fdinfo_mount_id(dirfd, id);
	fd = fcp_sys_openat(dirfd, name, O_PATH | O_CLOEXEC |
			    (flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0), 0);
	if (fd < 0)
		return fd;
	r = fdinfo_mount_id(fd, id);
	close(fd);
	return r;
}

int fcp_sys_reopen_through(int mount_fd, int fd, int flags)
{
	union {
		struct file_handle h;
		char room[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	int mnt, m, r;

	u.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &u.h, &mnt, AT_EMPTY_PATH) < 0)
		return -errno;
	/* open_by_handle_at takes no O_PATH descriptor for the mount. */
	if ((m = fcp_sys_openat(mount_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)) < 0)
		return m;
	do
		r = open_by_handle_at(m, &u.h, flags | O_CLOEXEC);
	while (r < 0 && errno == EINTR);
	r = r < 0 ? -errno : r;
	close(m);
	return r;
}

/* The one full-transfer loop: off < 0 means the file position (read/write),
 * else pread/pwrite from off. EINTR and short transfers are retried; a read
 * stops at end of file, a 0-byte write is a full device (-ENOSPC). */
static ssize_t io_full(int fd, void *buf, size_t len, off_t off, bool wr)
{
	size_t done = 0;

	while (done < len) {
		char *p = (char *)buf + done;
		size_t left = len - done;
		ssize_t n = wr ? (off < 0 ? write(fd, p, left) : pwrite(fd, p, left, off + done))
			       : (off < 0 ? read(fd, p, left) : pread(fd, p, left, off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0 && wr)
			return -ENOSPC;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

ssize_t fcp_sys_read_full(int fd, void *buf, size_t len)
{
	return io_full(fd, buf, len, -1, false);
}

ssize_t fcp_sys_pread_full(int fd, void *buf, size_t len, off_t off)
{
	return io_full(fd, buf, len, off, false);
}

ssize_t fcp_sys_pread(int fd, void *buf, size_t len, off_t off)
{
	RET(pread(fd, buf, len, off));
}

ssize_t fcp_sys_write_full(int fd, const void *buf, size_t len)
{
	return io_full(fd, (void *)buf, len, -1, true);
}

int fcp_sys_write_line(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	struct stat st;
	off_t end;
	int err = 0;

	while (done < len && !err) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			err = n < 0 ? -errno : -ENOSPC;
		else
			done += (size_t)n;
	}
	if (!err)
		return 0;
	/* The part written is at the end of the file (O_APPEND). */
	if (done && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (end = lseek(fd, 0, SEEK_END)) >= (off_t)done)
		(void)!ftruncate(fd, end - (off_t)done);
	return err;
}

ssize_t fcp_sys_pwrite_full(int fd, const void *buf, size_t len, off_t off)
{
	return io_full(fd, (void *)buf, len, off, true);
}

ssize_t fcp_sys_copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t len)
{
	RET(copy_file_range(in, in_off, out, out_off, len, 0));
}

int fcp_sys_ficlone(int dst, int src)
{
	RET(ioctl(dst, FICLONE, src));
}

off_t fcp_sys_lseek(int fd, off_t off, int whence)
{
	off_t r = lseek(fd, off, whence);
	return r < 0 ? -errno : r;
}

int fcp_sys_ftruncate(int fd, off_t len) { RET(ftruncate(fd, len)); }
int fcp_sys_fsync(int fd) { RET(fsync(fd)); }

int fcp_sys_fs_type(int fd, long *type)
{
	struct statfs sf;
	int r;

	while ((r = fstatfs(fd, &sf)) < 0 && errno == EINTR)
		;
	if (r < 0)
		return -errno;
	*type = (long)sf.f_type;
	return 0;
}
int fcp_sys_fs_id(const char *path, uint64_t *id)
{
	struct statfs sf;
	int r;
	unsigned v[2];

	while ((r = statfs(path, &sf)) < 0 && errno == EINTR)
		;
	if (r < 0)
		return -errno;
	memcpy(v, &sf.f_fsid, sizeof(v));
	*id = (uint64_t)v[0] << 32 | v[1];
	return 0;
}
int fcp_sys_writeback_start(int fd, off_t off, off_t len)
{
	RET(sync_file_range(fd, off, len, SYNC_FILE_RANGE_WRITE));
}
int fcp_sys_writeback_wait(int fd)
{
	RET(sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				      SYNC_FILE_RANGE_WAIT_AFTER));
}
int fcp_sys_fdatasync(int fd) { RET(fdatasync(fd)); }
int fcp_sys_readdir(DIR *dir, struct dirent **de)
{
	errno = 0;
	*de = readdir(dir);
	if (*de)
		return 1;
	return errno ? -errno : 0;
}

int fcp_sys_mkdirat(int dirfd, const char *name, mode_t mode) { RET(mkdirat(dirfd, name, mode)); }

int fcp_sys_mknodat(int dirfd, const char *name, mode_t mode, dev_t dev)
{
	RET(mknodat(dirfd, name, mode, dev));
}

int fcp_sys_symlinkat(const char *target, int dirfd, const char *name)
{
	RET(symlinkat(target, dirfd, name));
}

int fcp_sys_readlinkat(int dirfd, const char *name, char **target)
{
	size_t cap = 256;

	for (;;) {
		char *buf = malloc(cap);
		ssize_t n;

		if (!buf)
			return -ENOMEM;
		n = readlinkat(dirfd, name, buf, cap);
		if (n < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if ((size_t)n < cap) {
			buf[n] = 0;
			*target = buf;
			return (int)n;
		}
		free(buf);
		cap *= 4;
	}
}

int fcp_sys_linkat(int olddir, const char *old, int newdir, const char *new, int flags)
{
	RET(linkat(olddir, old, newdir, new, flags));
}

int fcp_sys_renameat(int olddir, const char *old, int newdir, const char *new, unsigned flags)
{
	RET(renameat2(olddir, old, newdir, new, flags));
}

int fcp_sys_flock(int fd, int op) { RET(flock(fd, op)); }
ssize_t fcp_sys_getrandom(void *buf, size_t len) { RET(getrandom(buf, len, 0)); }
int fcp_sys_getgroups(int size, gid_t *list) { RET(getgroups(size, list)); }
int fcp_sys_unlinkat(int dirfd, const char *name, int flags) { RET(unlinkat(dirfd, name, flags)); }
int fcp_sys_fchown(int fd, uid_t uid, gid_t gid) { RET(fchown(fd, uid, gid)); }

int fcp_sys_fchownat(int dirfd, const char *name, uid_t uid, gid_t gid, int flags)
{
	RET(fchownat(dirfd, name, uid, gid, flags));
}

int fcp_sys_fchmod(int fd, mode_t mode) { RET(fchmod(fd, mode)); }
int fcp_sys_futimens(int fd, const struct timespec ts[2]) { RET(futimens(fd, ts)); }

int fcp_sys_utimensat(int dirfd, const char *name, const struct timespec ts[2], int flags)
{
	RET(utimensat(dirfd, name, ts, flags));
}

/*
 * The xattr calls act on fd when it is >= 0, else on name in dirfd itself,
 * never following a final symlink. Kernels from 6.13 name it directly
 * (the *xattrat calls); older ones through /proc/self/fd/DIRFD/NAME, which
 * costs a /proc lookup and a check of our own pid on every call: measured,
 * a quarter of the CPU of a cold unchanged --sync re-run, which compares
 * every file's xattrs on both sides. ENOSYS once, the /proc path ever after.
 */
#ifndef SYS_setxattrat /* the numbers are the same on every architecture */
#define SYS_setxattrat 463
#define SYS_getxattrat 464
#define SYS_listxattrat 465
#define SYS_removexattrat 466
#endif
struct xattr_at_args { /* the kernel's struct xattr_args */
	uint64_t value;
	uint32_t size, flags;
};
static atomic_bool no_xattrat;

static bool xattrat_enosys(long r)
{
	if (r >= 0 || errno != ENOSYS)
		return false;
	atomic_store_explicit(&no_xattrat, true, memory_order_relaxed);
	return true;
}

static const char *proc_path(int dirfd, const char *name, char *buf, size_t len)
{
	if (dirfd == AT_FDCWD)
		return name;
	snprintf(buf, len, "/proc/self/fd/%d/%s", dirfd, name);
	return buf;
}

#define XAT_PATH_MAX (PATH_MAX + 32)
#define XAT(at_call, path_call) do { \
	if (!atomic_load_explicit(&no_xattrat, memory_order_relaxed)) { \
		long r_ = (at_call); \
		if (!xattrat_enosys(r_)) \
			return r_; \
	} \
	char buf_[XAT_PATH_MAX]; \
	const char *path = proc_path(dirfd, name, buf_, sizeof(buf_)); \
	return (path_call); } while (0)

static ssize_t x_list(int fd, int dirfd, const char *name, char *buf, size_t n)
{
	if (fd >= 0)
		return flistxattr(fd, buf, n);
	XAT(syscall(SYS_listxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, buf, n),
	    llistxattr(path, buf, n));
}

static ssize_t x_get(int fd, int dirfd, const char *name, const char *key, void *buf, size_t n)
{
	struct xattr_at_args a = { .value = (uintptr_t)buf, .size = (uint32_t)n };

	if (fd >= 0)
		return fgetxattr(fd, key, buf, n);
	XAT(syscall(SYS_getxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, key, &a, sizeof(a)),
	    lgetxattr(path, key, buf, n));
}

static int x_set(int fd, int dirfd, const char *name, const char *key, const void *val,
		 size_t len)
{
	struct xattr_at_args a = { .value = (uintptr_t)val, .size = (uint32_t)len };

	if (fd >= 0)
		return fsetxattr(fd, key, val, len, 0);
	XAT(syscall(SYS_setxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, key, &a, sizeof(a)),
	    lsetxattr(path, key, val, len, 0));
}

static int x_remove(int fd, int dirfd, const char *name, const char *key)
{
	if (fd >= 0)
		return fremovexattr(fd, key);
	XAT(syscall(SYS_removexattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, key),
	    lremovexattr(path, key));
}

/* Size-query then fetch, retried when the list grows in between (ERANGE). */
ssize_t fcp_sys_listxattr(int fd, int dirfd, const char *name, char **list)
{
	*list = NULL;
	for (;;) {
		ssize_t n = x_list(fd, dirfd, name, NULL, 0), m;
		char *buf;

		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		buf = malloc(n);
		if (!buf)
			return -ENOMEM;
		m = x_list(fd, dirfd, name, buf, n);
		if (m >= 0) {
			*list = buf;
			return m;
		}
		m = -errno;
		free(buf);
		if (m != -ERANGE)
			return m;
	}
}

ssize_t fcp_sys_getxattr(int fd, int dirfd, const char *name, const char *key, void **val)
{
	for (;;) {
		ssize_t n = x_get(fd, dirfd, name, key, NULL, 0), m;
		void *buf;

		if (n < 0)
			return -errno;
		/* Never a size of 0 here: that is a query again, whose answer
		 * would claim bytes the buffer does not hold. */
		size_t cap = n ? (size_t)n : 1;
		buf = malloc(cap);
		if (!buf)
			return -ENOMEM;
		m = x_get(fd, dirfd, name, key, buf, cap);
		if (m >= 0) {
			*val = buf;
			return m;
		}
		m = -errno;
		free(buf);
		if (m != -ERANGE)
			return m;
	}
}

int fcp_sys_setxattr(int fd, int dirfd, const char *name, const char *key, const void *val,
		     size_t len)
{
	RET(x_set(fd, dirfd, name, key, val, len));
}

int fcp_sys_fsetxattr(int fd, const char *key, const void *val, size_t len)
{
	return fcp_sys_setxattr(fd, -1, NULL, key, val, len);
}

int fcp_sys_removexattr(int fd, int dirfd, const char *name, const char *key)
{
	RET(x_remove(fd, dirfd, name, key));
}

/* glibc emulates AT_SYMLINK_NOFOLLOW (O_PATH open, refuse a symlink, chmod
 * through /proc) where the kernel lacks fchmodat2: either way no symlink
 * is followed. */
int fcp_sys_fchmodat_nofollow(int dirfd, const char *name, mode_t mode)
{
	RET(fchmodat(dirfd, name, mode, AT_SYMLINK_NOFOLLOW));
}

int fcp_sys_posix_fadvise(int fd, off_t off, off_t len, int advice)
{
	int r = posix_fadvise(fd, off, len, advice);
	return -r;
}

/* cachestat(2) is newer than this libc's headers; new system calls have
 * one number on every architecture but alpha. */
#if !defined(__NR_cachestat) && !defined(__alpha__)
#define __NR_cachestat 451
#endif

int fcp_sys_cached_pages(int fd, off_t off, off_t len, uint64_t *pages)
{
#ifdef __NR_cachestat
	struct { uint64_t off, len; } range = { (uint64_t)off, (uint64_t)len };
	struct {
		uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
	} cs;
	long r = syscall(__NR_cachestat, fd, &range, &cs, 0);

	if (r < 0)
		return -errno;
	*pages = cs.nr_cache;
	return 0;
#else
	return -ENOSYS;
#endif
}

int fcp_sys_first_extent(int fd, uint64_t *phys)
{
	struct {
		struct fiemap map;
		struct fiemap_extent ext;
	} f = { .map = { .fm_length = FIEMAP_MAX_OFFSET, .fm_extent_count = 1 } };
	const unsigned no_place = FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
				  FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_INLINE |
				  FIEMAP_EXTENT_NOT_ALIGNED;

	if (ioctl(fd, FS_IOC_FIEMAP, &f.map) < 0)
		return -errno;
	if (f.map.fm_mapped_extents == 0 || (f.ext.fe_flags & no_place))
		return -ENODATA;
	*phys = f.ext.fe_physical;
	return 0;
}

int fcp_sys_set_direct(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? fl | O_DIRECT : fl & ~O_DIRECT;
	RET(fcntl(fd, F_SETFL, fl));
}

int fcp_sys_direct_on(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -errno : (fl & O_DIRECT) != 0;
}

int fcp_sys_huge_pages(void *p, size_t len)
{
	RET(madvise(p, len, MADV_HUGEPAGE));
}

ssize_t fcp_sys_read_stream(int fd, size_t max, char **buf)
{
	ssize_t n;

	if (!(*buf = malloc(max + 1)))
		return -ENOMEM;
	if ((n = fcp_sys_read_full(fd, *buf, max)) >= 0) {
		(*buf)[n] = 0;
		return n;
	}
	free(*buf);
	*buf = NULL;
	return n;
}

ssize_t fcp_sys_read_file(int dirfd, const char *name, size_t max, char **buf)
{
	int fd = fcp_sys_openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
	struct statx st;
	ssize_t n;

	*buf = NULL;
	if (fd < 0)
		return fd;
	/* A FIFO or device named like a rules file must not block us. */
	if ((n = fcp_sys_fstatx(fd, &st)) == 0 && !S_ISREG(st.stx_mode))
		n = -EINVAL;
	if (n == 0 && !(*buf = malloc(max + 1)))
		n = -ENOMEM;
	if (n == 0 && (n = fcp_sys_read_full(fd, *buf, max)) >= 0)
		(*buf)[n] = 0;
	if (n < 0) {
		free(*buf);
		*buf = NULL;
	}
	close(fd);
	return n;
}
