/*
 * faultfs - a passthrough FUSE filesystem of a backing directory that
 * injects faults, so that fastcp's handling of failing sources and
 * destinations can be tested on any machine with /dev/fuse.
 *
 *   faultfs [OPTIONS] BACKING MOUNTPOINT
 *
 *   --match=GLOB          faults apply only to files whose basename matches
 *                         GLOB (default: all files)
 *   --eio-at=OFFSET       a read of a matching file that reaches OFFSET or
 *                         beyond fails with EIO (bytes before it are served)
 *   --eio-len=N           only the N bytes from --eio-at's OFFSET are bad: a
 *                         read of the range fails, the bytes after it are
 *                         served (a bad sector in the middle of a file)
 *   --eio-first=N         the first N reads of matching files (all of them
 *                         together) fail with EIO, later ones succeed: a
 *                         source that fails for a while, then recovers
 *   --short=N             every read of a matching file returns at most N bytes
 *   --eof-at=OFFSET       reads of a matching file end (return 0) at OFFSET,
 *                         while its size stays: a file that shrank after its stat
 *   --delay-ms=N          every read, open and lookup of a matching file
 *                         sleeps N ms first
 *   --enospc-after=BYTES  writes to matching files fail with ENOSPC once
 *                         BYTES have been written to them in total
 *   --edquot-after=BYTES  the same with EDQUOT
 *   --no-rename-flags     rename with any flag fails with EINVAL, as on NFS,
 *                         9p and sshfs
 *   --no-user-xattr       setting a user.* xattr fails with EOPNOTSUPP, as
 *                         where user xattrs are not supported
 *   --xattr-eio           listing or reading the xattrs of a matching file or
 *                         directory fails with EIO: metadata that cannot be
 *                         read
 *   --readdir-eio         reading a matching directory fails with EIO (it
 *                         can still be opened and stat'ed): a directory whose
 *                         entries cannot be listed
 *   --corrupt-write=GLOB  a write to a file whose basename matches GLOB
 *                         stores its first byte inverted: a disk that lies.
 *                         The kernel's page cache keeps the bytes as written
 *                         (and keeps them across opens of such files), so
 *                         only a read that bypasses the cache sees the damage
 *   --corrupt-count=N     only the first N such writes are corrupted
 *   --einval-write-at=OFFSET  the first write to a matching file that
 *                         starts at OFFSET fails with EINVAL, once: a
 *                         filesystem that took O_DIRECT on the descriptor
 *                         and then refuses a direct request (and says so
 *                         on stderr)
 *   --ctime-mtime         every file's ctime is said to be its mtime, as
 *                         FAT and exFAT keep it (one field on disk): a
 *                         rewrite that puts the mtime back leaves the ctime
 *                         as it was too, so a change no time shows (bit rot)
 *                         can be made from a test
 *   --whole-seconds       every time is said without its nanoseconds, as a
 *                         filesystem of coarse timestamps keeps them
 *   --armed=PATH          the faults above (but --corrupt-write) and the
 *                         blocks below apply only while PATH exists: a test
 *                         removes it to run the same command again through
 *                         the same mount (the same source identity) without
 *                         them
 *   --hold=PATH           the blocking faults below wait while PATH exists
 *                         (a test removes it to let them go on; removing
 *                         the test's directory at its end does too)
 *   --block-at=OFFSET     a read of a matching file that reaches OFFSET
 *                         waits as --hold says, then goes on as usual (the
 *                         bytes before OFFSET are served at once)
 *   --block-open          an open of a matching file waits so
 *
 * Each injected EIO, ENOSPC/EDQUOT and refused rename is said on stderr
 * ("faultfs: EIO for the read of PATH at OFFSET"), so that a test knows the
 * fault was met. Each wait is said on stderr when it begins ("faultfs: holding read of
 * PATH at OFFSET", "faultfs: holding open of PATH"): a test waits for that
 * line, and then knows where the program under test is, whatever the
 * machine's speed. A held request has been taken by faultfs, so the kernel
 * lets the caller die only once it is answered; with -s (one thread), every
 * later request waits unanswered behind it, and a fatal signal ends those.
 *
 * Other arguments starting with '-' go to libfuse (e.g. -d). It stays in
 * the foreground until unmounted.
 *
 * A matching file with a read fault is opened direct_io: otherwise the
 * kernel's page cache and readahead would read around the fault (a short
 * read would be filled up by the next page request, an EIO past the first
 * pages would be seen by readahead, not by the reader). Attributes and
 * entries are not cached so that changes made in BACKING are seen at once.
 */
#define FUSE_USE_VERSION 35
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <fuse.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static struct {
	const char *backing;     /* absolute path of the backing directory */
	const char *match;       /* NULL: every file */
	long long eio_at;        /* -1: off */
	long long eio_len;       /* 0: to the end of the file */
	long long eio_first;     /* 0: off */
	long long short_max;     /* 0: off */
	long long eof_at;        /* -1: off */
	long delay_ms;           /* 0: off */
	long long full_after;    /* -1: off */
	int full_errno;          /* ENOSPC or EDQUOT */
	int no_rename_flags;
	int no_user_xattr;
	int xattr_eio;
	int readdir_eio;
	const char *corrupt;     /* NULL: off */
	long long corrupt_count; /* -1: every write */
	long long einval_at;     /* -1: off */
	const char *armed;       /* NULL: the faults always apply */
	const char *hold;        /* the blocking faults wait while it exists */
	long long block_at;      /* -1: off */
	int block_open;
	int ctime_mtime;
	int whole_seconds;
} opt = { .eio_at = -1, .eof_at = -1, .full_after = -1, .corrupt_count = -1, .einval_at = -1,
	  .block_at = -1 };

static long long eio_reads; /* reads of matching files failed by --eio-first */
static long long written; /* bytes written to matching files, all threads */
static long long corrupted; /* writes counted against --corrupt-count */
static int einval_done;     /* --einval-write-at has failed its write */

/* Full backing path of PATH (which starts with '/'). */
static int bpath(char *out, const char *path)
{
	int n = snprintf(out, PATH_MAX, "%s%s", opt.backing, path);
	return n >= PATH_MAX ? -ENAMETOOLONG : 0;
}
#define BPATH(var, path)                       \
	char var[PATH_MAX];                    \
	do {                                   \
		int e_ = bpath(var, path);     \
		if (e_) return e_;             \
	} while (0)

static int matches(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (opt.armed && access(opt.armed, F_OK) != 0)
		return 0;
	return !opt.match || fnmatch(opt.match, base, 0) == 0;
}

static int corrupts(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return opt.corrupt && fnmatch(opt.corrupt, base, 0) == 0;
}

static int read_fault(void)
{
	return opt.eio_at >= 0 || opt.eio_first > 0 || opt.eof_at >= 0 || opt.short_max > 0 ||
	       opt.delay_ms > 0 || opt.block_at >= 0;
}

/* Wait while the --hold file exists, after saying what waits (what). */
static void hold(const char *what, const char *path, long long off)
{
	struct timespec ts = { 0, 10000000L };

	if (access(opt.hold, F_OK) != 0)
		return;
	if (off >= 0)
		fprintf(stderr, "faultfs: holding %s of %s at %lld\n", what, path, off);
	else
		fprintf(stderr, "faultfs: holding %s of %s\n", what, path);
	while (access(opt.hold, F_OK) == 0)
		nanosleep(&ts, NULL);
}

static void delay(const char *path)
{
	struct timespec ts = { opt.delay_ms / 1000, (opt.delay_ms % 1000) * 1000000L };
	if (opt.delay_ms > 0 && matches(path))
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

/* As root, give a new entry to the caller, as a real filesystem would. */
static void own(const char *bp)
{
	struct fuse_context *c = fuse_get_context();
	if (geteuid() == 0 && c)
		(void)lchown(bp, c->uid, c->gid);
}

static int neg(int r) { return r < 0 ? -errno : r; }

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->use_ino = 1;          /* fastcp finds hard links by inode number */
	cfg->readdir_ino = 1;
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->nullpath_ok = 0;
	/* An unlinked file that is still open is gone at once, as on a
	 * disk's filesystem (the open descriptor keeps its bytes). Without
	 * it libfuse renames it to a .fuse_hidden name until its last
	 * release, and a directory where a killed program had files open
	 * (their releases come late) cannot be removed: an ENOTEMPTY that
	 * no real filesystem gives. */
	cfg->hard_remove = 1;
	/* --corrupt-write: the cache must keep what was written, also when a
	 * stat sees the new mtime (libfuse would drop the pages then). */
	if (opt.corrupt)
		conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	return NULL;
}

/* --ctime-mtime, --whole-seconds: the times said as such a filesystem
 * keeps them. */
static int times_said(int r, struct stat *st)
{
	if (r < 0)
		return r;
	if (opt.ctime_mtime)
		st->st_ctim = st->st_mtim;
	if (opt.whole_seconds)
		st->st_atim.tv_nsec = st->st_mtim.tv_nsec = st->st_ctim.tv_nsec = 0;
	return r;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	delay(path);
	if (fi)
		return times_said(neg(fstat(fi->fh, st)), st);
	BPATH(bp, path);
	return times_said(neg(lstat(bp, st)), st);
}

static int fs_readlink(const char *path, char *buf, size_t size)
{
	BPATH(bp, path);
	ssize_t n = readlink(bp, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	BPATH(bp, path);
	if (opt.readdir_eio && matches(path))
		return -EIO;
	DIR *d = opendir(bp);
	struct dirent *e;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct stat st = { .st_ino = e->d_ino, .st_mode = (mode_t)DTTOIF(e->d_type) };
		if (fill(buf, e->d_name, &st, 0, 0))
			break;
	}
	closedir(d);
	return 0;
}

static int fs_mknod(const char *path, mode_t mode, dev_t rdev)
{
	BPATH(bp, path);
	int r = S_ISFIFO(mode) ? mkfifo(bp, mode) : mknod(bp, mode, rdev);
	if (r < 0)
		return -errno;
	own(bp);
	return 0;
}

static int fs_mkdir(const char *path, mode_t mode)
{
	BPATH(bp, path);
	if (mkdir(bp, mode) < 0)
		return -errno;
	own(bp);
	return 0;
}

static int fs_unlink(const char *path) { BPATH(bp, path); return neg(unlink(bp)); }
static int fs_rmdir(const char *path) { BPATH(bp, path); return neg(rmdir(bp)); }

static int fs_symlink(const char *target, const char *path)
{
	BPATH(bp, path);
	if (symlink(target, bp) < 0)
		return -errno;
	own(bp);
	return 0;
}

static int fs_rename(const char *from, const char *to, unsigned int flags)
{
	BPATH(bf, from);
	BPATH(bt, to);
	if (flags && opt.no_rename_flags && (!opt.armed || access(opt.armed, F_OK) == 0)) {
		fprintf(stderr, "faultfs: EINVAL for the rename of %s with flags %u\n", from, flags);
		return -EINVAL;
	}
	return neg(renameat2(AT_FDCWD, bf, AT_FDCWD, bt, flags));
}

static int fs_link(const char *from, const char *to)
{
	BPATH(bf, from);
	BPATH(bt, to);
	return neg(link(bf, bt));
}

static int fs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	if (fi)
		return neg(fchmod(fi->fh, mode));
	BPATH(bp, path);
	return neg(chmod(bp, mode));
}

static int fs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	if (fi)
		return neg(fchown(fi->fh, uid, gid));
	BPATH(bp, path);
	return neg(lchown(bp, uid, gid));
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	if (fi)
		return neg(ftruncate(fi->fh, size));
	BPATH(bp, path);
	return neg(truncate(bp, size));
}

static int fs_utimens(const char *path, const struct timespec ts[2], struct fuse_file_info *fi)
{
	if (fi)
		return neg(futimens(fi->fh, ts));
	BPATH(bp, path);
	return neg(utimensat(AT_FDCWD, bp, ts, AT_SYMLINK_NOFOLLOW));
}

/* The backing file is opened without O_DIRECT: our buffers are not aligned,
 * and the reader's O_DIRECT is served by the FUSE request anyway. */
static void opened(const char *path, struct fuse_file_info *fi, int fd)
{
	fi->fh = fd;
	if (read_fault() && matches(path)) {
		fi->direct_io = 1;
		fi->keep_cache = 0;
	}
	if (corrupts(path))
		fi->keep_cache = 1;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	BPATH(bp, path);
	delay(path);
	if (opt.block_open && matches(path))
		hold("open", path, -1);
	int fd = open(bp, fi->flags & ~(O_DIRECT | O_NOFOLLOW));
	if (fd < 0)
		return -errno;
	opened(path, fi, fd);
	return 0;
}

static int fs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	BPATH(bp, path);
	int fd = open(bp, (fi->flags & ~O_DIRECT) | O_CREAT, mode);
	if (fd < 0)
		return -errno;
	own(bp);
	opened(path, fi, fd);
	return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	if (matches(path)) {
		delay(path);
		if (opt.eio_first > 0 &&
		    __atomic_fetch_add(&eio_reads, 1, __ATOMIC_SEQ_CST) < opt.eio_first)
			return -EIO;
		if (opt.eio_at >= 0 && (opt.eio_len == 0 || off < opt.eio_at + opt.eio_len)) {
			if (off >= opt.eio_at) {
				fprintf(stderr, "faultfs: EIO for the read of %s at %lld\n", path,
					(long long)off);
				return -EIO;
			}
			if ((long long)size > opt.eio_at - off)
				size = opt.eio_at - off;
		}
		if (opt.eof_at >= 0) {
			if (off >= opt.eof_at)
				return 0;
			if ((long long)size > opt.eof_at - off)
				size = opt.eof_at - off;
		}
		if (opt.short_max > 0 && (long long)size > opt.short_max)
			size = opt.short_max;
		if (opt.block_at >= 0) {
			if (off >= opt.block_at)
				hold("read", path, off);
			else if ((long long)size > opt.block_at - off)
				size = opt.block_at - off;
		}
	}
	ssize_t n = pread(fi->fh, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

/* Reserve up to SIZE bytes of the write budget; 0 when it is spent. */
static size_t budget(size_t size)
{
	long long before = __atomic_fetch_add(&written, (long long)size, __ATOMIC_SEQ_CST);
	if (before >= opt.full_after)
		return 0;
	return before + (long long)size > opt.full_after ? (size_t)(opt.full_after - before) : size;
}

static int fs_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	if (opt.einval_at == (long long)off && matches(path) &&
	    !__atomic_exchange_n(&einval_done, 1, __ATOMIC_SEQ_CST)) {
		fprintf(stderr, "faultfs: EINVAL for the write of %zu bytes at %lld to %s\n", size,
			(long long)off, path);
		return -EINVAL;
	}
	if (opt.full_after >= 0 && matches(path)) {
		size = budget(size);
		if (size == 0) {
			fprintf(stderr, "faultfs: %s for the write at %lld to %s\n",
				opt.full_errno == ENOSPC ? "ENOSPC" : "EDQUOT", (long long)off, path);
			return -opt.full_errno;
		}
	}
	if (size && corrupts(path) &&
	    (opt.corrupt_count < 0 || __atomic_fetch_add(&corrupted, 1, __ATOMIC_SEQ_CST) < opt.corrupt_count)) {
		char *bad = malloc(size);
		if (!bad)
			return -ENOMEM;
		memcpy(bad, buf, size);
		bad[0] ^= 0xff;
		ssize_t n = pwrite(fi->fh, bad, size, off);
		free(bad);
		return n < 0 ? -errno : (int)n;
	}
	ssize_t n = pwrite(fi->fh, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static int fs_statfs(const char *path, struct statvfs *st)
{
	BPATH(bp, path);
	return neg(statvfs(bp, st));
}

static int fs_flush(const char *path, struct fuse_file_info *fi)
{
	/* close(dup()) reports the errors a close of the backing file would. */
	return neg(close(dup(fi->fh)));
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
	close(fi->fh);
	return 0;
}

static int fs_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	return neg(datasync ? fdatasync(fi->fh) : fsync(fi->fh));
}

static int fs_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
	if (opt.full_after >= 0 && matches(path) &&
	    __atomic_load_n(&written, __ATOMIC_SEQ_CST) >= opt.full_after)
		return -opt.full_errno;
	return neg(fallocate(fi->fh, mode, off, len));
}

static off_t fs_lseek(const char *path, off_t off, int whence, struct fuse_file_info *fi)
{
	off_t r = lseek(fi->fh, off, whence);
	return r < 0 ? -errno : r;
}

static int fs_setxattr(const char *path, const char *name, const char *val, size_t size, int flags)
{
	BPATH(bp, path);
	if (opt.no_user_xattr && !strncmp(name, "user.", 5))
		return -EOPNOTSUPP;
	return neg(lsetxattr(bp, name, val, size, flags));
}

static int fs_getxattr(const char *path, const char *name, char *val, size_t size)
{
	BPATH(bp, path);
	if (opt.xattr_eio && matches(path))
		return -EIO;
	ssize_t n = lgetxattr(bp, name, val, size);
	return n < 0 ? -errno : (int)n;
}

static int fs_listxattr(const char *path, char *list, size_t size)
{
	BPATH(bp, path);
	if (opt.xattr_eio && matches(path))
		return -EIO;
	ssize_t n = llistxattr(bp, list, size);
	return n < 0 ? -errno : (int)n;
}

static int fs_removexattr(const char *path, const char *name)
{
	BPATH(bp, path);
	return neg(lremovexattr(bp, name));
}

static const struct fuse_operations ops = {
	.init = fs_init,
	.getattr = fs_getattr,
	.readlink = fs_readlink,
	.readdir = fs_readdir,
	.mknod = fs_mknod,
	.mkdir = fs_mkdir,
	.unlink = fs_unlink,
	.rmdir = fs_rmdir,
	.symlink = fs_symlink,
	.rename = fs_rename,
	.link = fs_link,
	.chmod = fs_chmod,
	.chown = fs_chown,
	.truncate = fs_truncate,
	.utimens = fs_utimens,
	.open = fs_open,
	.create = fs_create,
	.read = fs_read,
	.write = fs_write,
	.statfs = fs_statfs,
	.flush = fs_flush,
	.release = fs_release,
	.fsync = fs_fsync,
	.fallocate = fs_fallocate,
	.lseek = fs_lseek,
	.setxattr = fs_setxattr,
	.getxattr = fs_getxattr,
	.listxattr = fs_listxattr,
	.removexattr = fs_removexattr,
};

static void usage(void)
{
	fprintf(stderr, "usage: faultfs [--match=GLOB] [--eio-at=OFFSET [--eio-len=N]] [--eio-first=N] [--short=N] "
			"[--eof-at=OFFSET] [--delay-ms=N] [--enospc-after=BYTES] [--edquot-after=BYTES] "
			"[--no-rename-flags] [--no-user-xattr] [--xattr-eio] [--readdir-eio] [--corrupt-write=GLOB] [--corrupt-count=N] "
			"[--einval-write-at=OFFSET] [--ctime-mtime] [--whole-seconds] [--armed=PATH] [--hold=PATH [--block-at=OFFSET] [--block-open]] "
			"[FUSE-OPTION...] BACKING MOUNTPOINT\n");
	exit(2);
}

/* A non-negative decimal number, or exit with usage. */
static long long num(const char *s)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0) {
		fprintf(stderr, "faultfs: bad number '%s'\n", s);
		usage();
	}
	return v;
}

int main(int argc, char **argv)
{
	char *fargv[argc + 5], *pos[2];
	int fargc = 0, npos = 0;
	fargv[fargc++] = argv[0];
	fargv[fargc++] = "-f";
	fargv[fargc++] = "-o";
	fargv[fargc++] = geteuid() == 0 ? "default_permissions,allow_other,fsname=faultfs"
					: "default_permissions,fsname=faultfs";
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (!strncmp(a, "--match=", 8)) opt.match = a + 8;
		else if (!strncmp(a, "--eio-at=", 9)) opt.eio_at = num(a + 9);
		else if (!strncmp(a, "--eio-len=", 10)) opt.eio_len = num(a + 10);
		else if (!strncmp(a, "--eio-first=", 12)) opt.eio_first = num(a + 12);
		else if (!strncmp(a, "--short=", 8)) opt.short_max = num(a + 8);
		else if (!strncmp(a, "--eof-at=", 9)) opt.eof_at = num(a + 9);
		else if (!strncmp(a, "--delay-ms=", 11)) opt.delay_ms = num(a + 11);
		else if (!strncmp(a, "--enospc-after=", 15)) opt.full_after = num(a + 15), opt.full_errno = ENOSPC;
		else if (!strncmp(a, "--edquot-after=", 15)) opt.full_after = num(a + 15), opt.full_errno = EDQUOT;
		else if (!strcmp(a, "--no-rename-flags")) opt.no_rename_flags = 1;
		else if (!strcmp(a, "--no-user-xattr")) opt.no_user_xattr = 1;
		else if (!strcmp(a, "--xattr-eio")) opt.xattr_eio = 1;
		else if (!strcmp(a, "--readdir-eio")) opt.readdir_eio = 1;
		else if (!strncmp(a, "--corrupt-write=", 16)) opt.corrupt = a + 16;
		else if (!strncmp(a, "--corrupt-count=", 16)) opt.corrupt_count = num(a + 16);
		else if (!strncmp(a, "--einval-write-at=", 18)) opt.einval_at = num(a + 18);
		else if (!strncmp(a, "--armed=", 8)) opt.armed = a + 8;
		else if (!strncmp(a, "--hold=", 7)) opt.hold = a + 7;
		else if (!strncmp(a, "--block-at=", 11)) opt.block_at = num(a + 11);
		else if (!strcmp(a, "--block-open")) opt.block_open = 1;
		else if (!strcmp(a, "--ctime-mtime")) opt.ctime_mtime = 1;
		else if (!strcmp(a, "--whole-seconds")) opt.whole_seconds = 1;
		else if (!strncmp(a, "--", 2) && a[2]) { fprintf(stderr, "faultfs: unknown option '%s'\n", a); usage(); }
		else if (a[0] == '-') fargv[fargc++] = a;
		else if (npos < 2) pos[npos++] = a;
		else usage();
	}
	if (npos != 2 || (!opt.hold && (opt.block_at >= 0 || opt.block_open)))
		usage();
	opt.backing = realpath(pos[0], NULL);
	if (!opt.backing) {
		fprintf(stderr, "faultfs: backing directory '%s': %s\n", pos[0], strerror(errno));
		return 1;
	}
	fargv[fargc++] = pos[1];
	fargv[fargc] = NULL;
	return fuse_main(fargc, fargv, &ops, NULL);
}
