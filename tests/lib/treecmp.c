/*
 * treecmp - compare two trees the way the fastcp tests need.
 *
 *   treecmp [--atime] [--no-atime] [--no-owner] [--no-xattr] [--no-times]
 *           [--no-mode] [--no-links] [--no-holes] [--content-only] SRC DST
 *   treecmp --holes FILE     print the data extents of FILE
 *   treecmp --shared FILE    exit 0 if FIEMAP shows a shared extent, 1 if not
 *
 * Every difference is one line on stdout: the path relative to the roots
 * ("." for the roots themselves), with bytes outside printable ASCII escaped
 * as \xHH, then what differs. Exit 0 identical, 1 different, 2 usage error or
 * trouble reading a tree (like diff and cmp).
 *
 * The walk never follows symlinks and works by directory file descriptor, so
 * trees deeper than PATH_MAX compare fine; paths are kept only for messages.
 * Only libc and kernel headers are used, so the tool cannot share a bug with
 * the library it checks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

enum {
	C_OWNER = 1, C_XATTR = 2, C_TIMES = 4, C_MODE = 8, C_LINKS = 16,
	C_HOLES = 32, C_ATIME = 64,
};
static unsigned checks = C_OWNER | C_XATTR | C_TIMES | C_MODE | C_LINKS | C_HOLES;
static int ndiff;   /* differences reported */
static int trouble; /* errors that kept us from comparing something */

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		perror("treecmp");
		exit(2);
	}
	return p;
}

/* The relative path of a child, for messages only: never passed to a
 * syscall, so its length does not matter. The roots are "". */
static char *path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *s = xrealloc(NULL, a + b + 2);
	memcpy(s, dir, a);
	s[a] = '/';
	memcpy(s + (a ? a + 1 : 0), name, b + 1);
	return s;
}

/* Names are arbitrary bytes; escape so each report stays one parseable line. */
static void put_bytes(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c == '\\')
			fputs("\\\\", stdout);
		else if (c >= 0x20 && c < 0x7f)
			putchar(c);
		else
			printf("\\x%02x", c);
	}
}

static void put_path(const char *p)
{
	if (*p)
		put_bytes(p, strlen(p));
	else
		putchar('.');
	fputs(": ", stdout);
}

static void diff(const char *p, const char *fmt, ...)
{
	va_list ap;
	put_path(p);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	ndiff++;
}

/* Reading errors are not differences, but they make the result unreliable. */
static void problem(const char *p, const char *what, int err)
{
	put_path(p);
	printf("cannot %s: %s\n", what, strerror(err));
	trouble++;
}

/* O_NOATIME keeps --atime meaningful; it is refused for files we do not own
 * unless we are root, so fall back to a plain open. */
static int open_at(int dirfd, const char *name, int flags)
{
	int fd = openat(dirfd, name, flags | O_NOATIME | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

/* ---- directory listings ---- */

struct names {
	char **v;
	size_t n;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int read_names(int dirfd, struct names *out)
{
	int fd = open_at(dirfd, ".", O_RDONLY | O_DIRECTORY);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	size_t cap = 0;

	out->v = NULL;
	out->n = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	errno = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (out->n == cap) {
			cap = cap ? cap * 2 : 16;
			out->v = xrealloc(out->v, cap * sizeof(char *));
		}
		out->v[out->n++] = strdup(e->d_name);
	}
	int err = errno;
	closedir(d);
	if (out->n) /* qsort(NULL, 0) is undefined */
		qsort(out->v, out->n, sizeof(char *), cmp_str);
	return -err;
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

/* ---- hard links: recorded during the walk, grouped at the end ---- */

struct link {
	uint64_t id[2][2]; /* [side][dev, ino]; side 0 = SRC, 1 = DST */
	char *path;
};
static struct link *links;
static size_t nlinks, caplinks;
static int link_side; /* which side qsort groups by */

static void link_record(const char *p, const struct stat *a,
			const struct stat *b)
{
	if (nlinks == caplinks) {
		caplinks = caplinks ? caplinks * 2 : 64;
		links = xrealloc(links, caplinks * sizeof(*links));
	}
	links[nlinks++] = (struct link){ { { a->st_dev, a->st_ino },
					   { b->st_dev, b->st_ino } },
					 strdup(p) };
}

static int link_order(const void *x, const void *y)
{
	const struct link *a = x, *b = y;
	int c = memcmp(a->id[link_side], b->id[link_side], sizeof(a->id[0]));
	return c ? c : strcmp(a->path, b->path);
}

/* Within each group of names sharing an inode on one side, every name must
 * share one inode on the other side too. Checking both directions catches
 * both a broken link group and two files wrongly merged into one. */
static void links_check_side(int side)
{
	static const char *const what[2] = {
		"' in SRC is not a hard link in DST",
		"' in DST, separate files in SRC",
	};
	if (nlinks < 2)
		return;
	link_side = side;
	qsort(links, nlinks, sizeof(*links), link_order);
	for (size_t i = 1; i < nlinks; i++) {
		struct link *a = &links[i - 1], *b = &links[i];
		size_t n = sizeof(a->id[0]);
		if (memcmp(a->id[side], b->id[side], n) ||
		    !memcmp(a->id[!side], b->id[!side], n))
			continue;
		put_path(b->path);
		fputs(side ? "extra hard link to '" : "hard link to '", stdout);
		put_bytes(a->path, strlen(a->path));
		puts(what[side]);
		ndiff++;
	}
}

/* ---- extended attributes (incl. POSIX ACLs, which are xattrs) ---- */

/* l*xattr on "/proc/self/fd/DIRFD/NAME" reaches the entry through its parent
 * descriptor without following a symlink in the last component, whatever the
 * depth of the tree. */
static void proc_name(char *buf, size_t n, int dirfd, const char *name)
{
	snprintf(buf, n, "/proc/self/fd/%d/%s", dirfd, name);
}

/* The name list when NAME is NULL, else the value of NAME, in a new buffer.
 * A filesystem without xattrs has an empty list. */
static ssize_t xattr_read(const char *pn, const char *name, char **out)
{
	ssize_t n = name ? lgetxattr(pn, name, NULL, 0) : llistxattr(pn, NULL, 0);
	*out = NULL;
	if (n < 0)
		return (!name && errno == EOPNOTSUPP) ? 0 : -errno;
	*out = xrealloc(NULL, n + 1);
	n = name ? lgetxattr(pn, name, *out, n) : llistxattr(pn, *out, n);
	return n < 0 ? -errno : n;
}

static void split_names(char *list, ssize_t n, struct names *ns)
{
	ns->n = 0;
	ns->v = xrealloc(NULL, (n + 1) * sizeof(char *));
	for (ssize_t i = 0; i < n; i += strlen(list + i) + 1)
		ns->v[ns->n++] = list + i;
	qsort(ns->v, ns->n, sizeof(char *), cmp_str);
}

static void xattr_cmp_value(const char *p, const char *sp,
			    const char *dp, const char *name)
{
	char *a, *b;
	ssize_t na = xattr_read(sp, name, &a), nb = xattr_read(dp, name, &b);
	if (na < 0 || nb < 0)
		problem(p, "read xattr", (int)-(na < 0 ? na : nb));
	else if (na != nb || memcmp(a, b, na))
		diff(p, "xattr %s value differs (%zd bytes vs %zd)", name, na, nb);
	free(a);
	free(b);
}

static void xattr_cmp(const char *p, int sdir, const char *sname,
		      int ddir, const char *dname)
{
	char sp[64 + NAME_MAX], dp[64 + NAME_MAX], *sl, *dl;
	struct names sn, dn;

	proc_name(sp, sizeof(sp), sdir, sname);
	proc_name(dp, sizeof(dp), ddir, dname);
	ssize_t ns = xattr_read(sp, NULL, &sl), nd = xattr_read(dp, NULL, &dl);
	if (ns < 0 || nd < 0) {
		problem(p, "list xattrs", (int)-(ns < 0 ? ns : nd));
		goto out;
	}
	split_names(sl, ns, &sn);
	split_names(dl, nd, &dn);
	size_t i = 0, j = 0;
	while (i < sn.n || j < dn.n) {
		int c = i == sn.n ? 1 : j == dn.n ? -1 : strcmp(sn.v[i], dn.v[j]);
		if (c < 0)
			diff(p, "xattr %s missing in DST", sn.v[i++]);
		else if (c > 0 && !strcmp(dn.v[j], "user.fastcp.move"))
			j++; /* fastcp's mark on a copy the same command is to
				finish (failed items): the tests of it look by name */
		else if (c > 0)
			diff(p, "xattr %s only in DST", dn.v[j++]);
		else {
			xattr_cmp_value(p, sp, dp, sn.v[i]);
			i++;
			j++;
		}
	}
	free(sn.v);
	free(dn.v);
out:
	free(sl);
	free(dl);
}

/* ---- regular files: content and holes ---- */

/* Count data extents with SEEK_DATA/SEEK_HOLE; a filesystem without hole
 * support reports the whole file as one extent, which is the right answer. */
static long count_extents(int fd, off_t size, int print)
{
	long n = 0;
	off_t pos = 0;
	while (pos < size) {
		off_t d = lseek(fd, pos, SEEK_DATA);
		if (d < 0)
			return errno == ENXIO ? n : -1;
		off_t h = lseek(fd, d, SEEK_HOLE);
		if (h < 0)
			return -1;
		if (print)
			printf("data %lld %lld\n", (long long)d, (long long)(h - d));
		n++;
		pos = h;
	}
	return n;
}

/* A copy may round each extent up to a block but must not fill holes. */
static void holes_cmp(const char *p, int sfd, const struct stat *a,
		      const struct stat *b)
{
	long ext = count_extents(sfd, a->st_size, 0);
	if (ext < 0) {
		problem(p, "seek data/hole", errno);
		return;
	}
	unsigned long long have = (unsigned long long)b->st_blocks * 512;
	unsigned long long allow = (unsigned long long)a->st_blocks * 512 +
				   (unsigned long long)b->st_blksize * ext;
	if (have > allow)
		diff(p, "DST allocates %llu bytes, more than %llu (SRC %llu bytes in %ld extents): holes filled",
		     have, allow, (unsigned long long)a->st_blocks * 512, ext);
}

/* Both files have SIZE bytes; a short read means one changed under us. */
static void content_cmp(const char *p, int sfd, int dfd, off_t size)
{
	enum { BUF = 1 << 20 };
	static char a[BUF], b[BUF];
	for (off_t off = 0; off < size; off += BUF) {
		ssize_t n = size - off < BUF ? size - off : BUF;
		if (pread(sfd, a, n, off) != n || pread(dfd, b, n, off) != n) {
			problem(p, "read all of the file", errno ? errno : EIO);
			return;
		}
		if (memcmp(a, b, n)) {
			ssize_t i = 0;
			while (a[i] == b[i])
				i++;
			diff(p, "content differs at byte %lld", (long long)(off + i));
			return;
		}
	}
}

static void close_both(int a, int b)
{
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

static void file_cmp(const char *p, int sdir, const char *sname, int ddir,
		     const char *dname, const struct stat *a, const struct stat *b)
{
	if (a->st_size != b->st_size)
		diff(p, "size %lld != %lld", (long long)a->st_size, (long long)b->st_size);
	int sfd = open_at(sdir, sname, O_RDONLY);
	int dfd = open_at(ddir, dname, O_RDONLY);
	if (sfd < 0 || dfd < 0)
		problem(p, "open", errno);
	else if (a->st_size == b->st_size) {
		content_cmp(p, sfd, dfd, a->st_size);
		if (checks & C_HOLES)
			holes_cmp(p, sfd, a, b);
	}
	close_both(sfd, dfd);
}

/* ---- one entry, one directory ---- */

static const char *type_name(mode_t m)
{
	static const char *const names[16] = {
		[S_IFREG >> 12] = "file", [S_IFDIR >> 12] = "directory",
		[S_IFLNK >> 12] = "symlink", [S_IFIFO >> 12] = "fifo",
		[S_IFSOCK >> 12] = "socket", [S_IFCHR >> 12] = "char device",
		[S_IFBLK >> 12] = "block device",
	};
	const char *n = names[(m & S_IFMT) >> 12];
	return n ? n : "unknown";
}

static void ts_cmp(const char *p, const char *what,
		   const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec || a->tv_nsec != b->tv_nsec)
		diff(p, "%s %lld.%09ld != %lld.%09ld", what, (long long)a->tv_sec,
		     a->tv_nsec, (long long)b->tv_sec, b->tv_nsec);
}

/* Symlink modes are always 0777 on Linux, so mode is not compared for them. */
static void meta_cmp(const char *p, const struct stat *a, const struct stat *b)
{
	if ((checks & C_MODE) && !S_ISLNK(a->st_mode) && a->st_mode != b->st_mode)
		diff(p, "mode %04o != %04o", a->st_mode & 07777, b->st_mode & 07777);
	if ((checks & C_OWNER) && (a->st_uid != b->st_uid || a->st_gid != b->st_gid))
		diff(p, "owner %u:%u != %u:%u", a->st_uid, a->st_gid, b->st_uid, b->st_gid);
	if (checks & C_TIMES)
		ts_cmp(p, "mtime", &a->st_mtim, &b->st_mtim);
	if (checks & C_ATIME)
		ts_cmp(p, "atime", &a->st_atim, &b->st_atim);
}

/* readlink moves a symlink's atime (no O_NOATIME for it): under --atime, put
 * back the atime stat saw, so the next comparison still sees the original. */
static void atime_restore(int dir, const char *name, const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, { .tv_nsec = UTIME_OMIT } };
	if (checks & C_ATIME)
		utimensat(dir, name, ts, AT_SYMLINK_NOFOLLOW);
}

static void symlink_cmp(const char *p, int sdir, const char *sname, int ddir,
			const char *dname, const struct stat *sa, const struct stat *sb)
{
	static char a[PATH_MAX + 1], b[PATH_MAX + 1];
	ssize_t na = readlinkat(sdir, sname, a, sizeof(a));
	ssize_t nb = readlinkat(ddir, dname, b, sizeof(b));
	atime_restore(sdir, sname, sa);
	atime_restore(ddir, dname, sb);
	if (na < 0 || nb < 0) {
		problem(p, "readlink", errno);
		return;
	}
	if (na == nb && !memcmp(a, b, na))
		return;
	put_path(p);
	fputs("symlink target '", stdout);
	put_bytes(a, na);
	fputs("' != '", stdout);
	put_bytes(b, nb);
	puts("'");
	ndiff++;
}

static void dir_cmp(const char *p, int sfd, int dfd);

static void subdir_cmp(const char *p, int sdir, const char *sname, int ddir,
		       const char *dname)
{
	int sfd = open_at(sdir, sname, O_RDONLY | O_DIRECTORY);
	int dfd = open_at(ddir, dname, O_RDONLY | O_DIRECTORY);
	if (sfd < 0 || dfd < 0)
		problem(p, "open directory", errno);
	else
		dir_cmp(p, sfd, dfd);
	close_both(sfd, dfd);
}

/* Compare SDIR/SNAME with DDIR/DNAME; p already names them. The names differ
 * only for the two roots. */
static void entry_cmp(const char *p, int sdir, const char *sname, int ddir,
		      const char *dname)
{
	struct stat a, b;
	if (fstatat(sdir, sname, &a, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fstatat(ddir, dname, &b, AT_SYMLINK_NOFOLLOW) < 0) {
		problem(p, "stat", errno);
		return;
	}
	if ((a.st_mode & S_IFMT) != (b.st_mode & S_IFMT)) {
		diff(p, "type %s != %s", type_name(a.st_mode), type_name(b.st_mode));
		return;
	}
	meta_cmp(p, &a, &b);
	if (checks & C_XATTR)
		xattr_cmp(p, sdir, sname, ddir, dname);
	if (!S_ISDIR(a.st_mode) && (checks & C_LINKS) && (a.st_nlink > 1 || b.st_nlink > 1))
		link_record(p, &a, &b);
	if (S_ISREG(a.st_mode))
		file_cmp(p, sdir, sname, ddir, dname, &a, &b);
	else if (S_ISLNK(a.st_mode))
		symlink_cmp(p, sdir, sname, ddir, dname, &a, &b);
	else if ((S_ISCHR(a.st_mode) || S_ISBLK(a.st_mode)) && a.st_rdev != b.st_rdev)
		diff(p, "device %u:%u != %u:%u", major(a.st_rdev), minor(a.st_rdev),
		     major(b.st_rdev), minor(b.st_rdev));
	else if (S_ISDIR(a.st_mode))
		subdir_cmp(p, sdir, sname, ddir, dname);
}

/* Merge the two sorted listings: names on one side only are differences. */
static void dir_cmp(const char *p, int sfd, int dfd)
{
	struct names sn, dn;
	int es = read_names(sfd, &sn), ed = read_names(dfd, &dn);
	if (es < 0 || ed < 0) {
		problem(p, "read directory", -(es < 0 ? es : ed));
		goto out;
	}
	size_t i = 0, j = 0;
	while (i < sn.n || j < dn.n) {
		int c = i == sn.n ? 1 : j == dn.n ? -1 : strcmp(sn.v[i], dn.v[j]);
		const char *name = c <= 0 ? sn.v[i] : dn.v[j];
		char *sub = path_join(p, name);
		if (c < 0)
			diff(sub, "only in SRC");
		else if (c > 0)
			diff(sub, "only in DST");
		else
			entry_cmp(sub, sfd, name, dfd, name);
		free(sub);
		i += c <= 0;
		j += c >= 0;
	}
out:
	names_free(&sn);
	names_free(&dn);
}

/* ---- entry points ---- */

/* Split ROOT into an open parent directory and a last component, so the
 * roots are compared by the same code as every entry below them. */
static int open_parent(const char *root, char **base)
{
	char *d = strdup(root), *b = strdup(root);
	int fd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*base = strdup(basename(b));
	free(d);
	free(b);
	return fd;
}

static int tree_cmp(const char *src, const char *dst)
{
	char *sb, *db;
	int sdir = open_parent(src, &sb), ddir = open_parent(dst, &db);
	if (sdir < 0 || ddir < 0) {
		fprintf(stderr, "treecmp: cannot open parent of '%s': %s\n",
			sdir < 0 ? src : dst, strerror(errno));
		return 2;
	}
	entry_cmp("", sdir, sb, ddir, db);
	free(sb);
	free(db);
	close(sdir);
	close(ddir);
	if (checks & C_LINKS) {
		links_check_side(0);
		links_check_side(1);
	}
	fflush(stdout);
	return trouble ? 2 : ndiff ? 1 : 0;
}

static int holes_print(const char *file)
{
	struct stat st;
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "treecmp: %s: %s\n", file, strerror(errno));
		return 2;
	}
	long n = count_extents(fd, st.st_size, 1);
	printf("size %lld allocated %lld extents %ld\n", (long long)st.st_size,
	       (long long)st.st_blocks * 512, n);
	close(fd);
	return n < 0 ? 2 : 0;
}

/* FIEMAP_FLAG_SYNC flushes delayed allocation first, so a just-written clone
 * reports its real extents. */
static int shared_check(const char *file)
{
	enum { N = 128 };
	struct fiemap *fm = xrealloc(NULL, sizeof(*fm) + N * sizeof(struct fiemap_extent));
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), rc = -1;
	unsigned long long start = 0;
	if (fd < 0) {
		fprintf(stderr, "treecmp: %s: %s\n", file, strerror(errno));
		free(fm);
		return 2;
	}
	while (rc < 0) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = N;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			fprintf(stderr, "treecmp: fiemap %s: %s\n", file, strerror(errno));
			rc = 2;
			break;
		}
		if (fm->fm_mapped_extents == 0)
			rc = 1;
		for (unsigned i = 0; rc < 0 && i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *e = &fm->fm_extents[i];
			if (e->fe_flags & FIEMAP_EXTENT_SHARED)
				rc = 0;
			else if (e->fe_flags & FIEMAP_EXTENT_LAST)
				rc = 1;
			start = e->fe_logical + e->fe_length;
		}
	}
	close(fd);
	free(fm);
	return rc;
}

static int usage(void)
{
	fputs("usage: treecmp [--atime] [--no-atime] [--no-owner] [--no-xattr] [--no-times]\n"
	      "               [--no-mode] [--no-links] [--no-holes] [--content-only] SRC DST\n"
	      "       treecmp --holes FILE | --shared FILE\n", stderr);
	return 2;
}

static const struct { const char *opt; unsigned clear, set; } flags[] = {
	{ "--atime", 0, C_ATIME },     { "--no-atime", C_ATIME, 0 },
	{ "--no-owner", C_OWNER, 0 },  { "--no-xattr", C_XATTR, 0 },
	{ "--no-times", C_TIMES | C_ATIME, 0 }, { "--no-mode", C_MODE, 0 },
	{ "--no-links", C_LINKS, 0 },  { "--no-holes", C_HOLES, 0 },
	{ "--content-only", ~0u, 0 },
};

int main(int argc, char **argv)
{
	struct rlimit rl;
	int i = 1;

	/* Each directory level holds two descriptors: allow deep trees. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (argc == 3 && !strcmp(argv[1], "--holes"))
		return holes_print(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--shared"))
		return shared_check(argv[2]);
	for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2]; i++) {
		size_t k;
		for (k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
			if (!strcmp(argv[i], flags[k].opt))
				break;
		if (k == sizeof(flags) / sizeof(flags[0]))
			return usage();
		checks = (checks & ~flags[k].clear) | flags[k].set;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (argc - i != 2)
		return usage();
	return tree_cmp(argv[i], argv[i + 1]);
}
