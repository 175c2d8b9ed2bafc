/*
 * check.c - --check (check.h).
 */
#include "policy/check.h"
#include "base/grow.h"
#include "core/node.h"
#include "policy/plan.h"
#include "base/sys.h"
#include "core/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void fcp_check_say(struct fcp_job *job, const char *path, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what) - 1, fmt, ap);
	va_end(ap);
	strcat(what, ":");
	fcp_report_plan(job, what, path);
	atomic_fetch_add(&job->c.differs, 1);
}

const char *fcp_check_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "file";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symlink";
	case S_IFIFO: return "fifo";
	case S_IFCHR: return "character device";
	case S_IFBLK: return "block device";
	default: return "socket";
	}
}

/*
 * Hard links: the copy keeps the links within the copied set, so a
 * source inode must meet one copy inode, and a copy inode one source
 * inode, however many names either has. Two tables of pairs, by source
 * and by copy, under one lock (only names of inodes with more than one
 * link come here).
 */
struct pair {
	uint64_t k1, k2, v1, v2;
	bool used;
};

struct table {
	struct pair *v;
	size_t n, cap;
};

/* Whether a new file keeps its holes on the filesystem of DEST (dev),
 * found once per filesystem (dest_keeps_holes); few per job. */
#define PROBED_MAX 16

struct probed {
	uint64_t dev;
	bool keeps;
};

struct fcp_check_links {
	pthread_mutex_t lock;
	struct table by_src, by_dst;
	/* The filesystems (devices) of DEST found to refuse O_DIRECT, each
	 * said once (fcp_check_no_direct): few, searched in turn. */
	uint64_t *nd;
	size_t nnd, capnd;
	atomic_bool any_nd; /* nd is not empty: read without the lock */
	struct probed probed[PROBED_MAX];
	int n_probed;
};

static size_t slot(const struct table *t, uint64_t k1, uint64_t k2)
{
	uint64_t h = (k1 * 0x9E3779B97F4A7C15ull) ^ k2;

	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	for (size_t i = (h ^ (h >> 29)) & (t->cap - 1);; i = (i + 1) & (t->cap - 1))
		if (!t->v[i].used || (t->v[i].k1 == k1 && t->v[i].k2 == k2))
			return i;
}

static int grow(struct table *t)
{
	struct table n = { calloc(t->cap ? 2 * t->cap : 256, sizeof(struct pair)), 0,
			   t->cap ? 2 * t->cap : 256 };

	if (!n.v)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].used)
			n.v[slot(&n, t->v[i].k1, t->v[i].k2)] = t->v[i];
	n.n = t->n;
	free(t->v);
	*t = n;
	return 0;
}

/* 1 when key (k1, k2) goes with (v1, v2) (kept now if new), 0 when it
 * went with another, or -ENOMEM. */
static int pair_with(struct table *t, uint64_t k1, uint64_t k2, uint64_t v1, uint64_t v2)
{
	struct pair *p;

	if (2 * (t->n + 1) > t->cap && grow(t) < 0)
		return -ENOMEM;
	p = &t->v[slot(t, k1, k2)];
	if (p->used)
		return p->v1 == v1 && p->v2 == v2;
	*p = (struct pair){ k1, k2, v1, v2, true };
	t->n++;
	return 1;
}

int fcp_check_links_init(struct fcp_job *job)
{
	job->check_links = calloc(1, sizeof(*job->check_links));
	if (!job->check_links)
		return -ENOMEM;
	pthread_mutex_init(&job->check_links->lock, NULL);
	return 0;
}

void fcp_check_links_free(struct fcp_job *job)
{
	if (!job->check_links)
		return;
	free(job->check_links->by_src.v);
	free(job->check_links->by_dst.v);
	free(job->check_links->nd);
	pthread_mutex_destroy(&job->check_links->lock);
	free(job->check_links);
	job->check_links = NULL;
}

bool fcp_check_direct_refused(struct fcp_job *job, uint64_t dev)
{
	struct fcp_check_links *l = job->check_links;
	bool found = false;

	if (!l || !atomic_load(&l->any_nd))
		return false; /* none has: the common case, without the lock */
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; i < l->nnd && !found; i++)
		found = l->nd[i] == dev;
	pthread_mutex_unlock(&l->lock);
	return found;
}

/* Is dev new among those that refused O_DIRECT (kept now)? A job that
 * checks always has the table (fcp_check_links_init, or it ends). */
static bool refused_first(struct fcp_job *job, uint64_t dev)
{
	struct fcp_check_links *l = job->check_links;
	bool first = true;
	uint64_t *v;

	if (!l)
		return true;
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; i < l->nnd && first; i++)
		first = l->nd[i] != dev;
	if (first && (v = fcp_grow(l->nd, &l->capnd, l->nnd + 1, sizeof(*v), 4))) {
		l->nd = v;
		l->nd[l->nnd++] = dev;
	}
	atomic_store(&l->any_nd, l->nnd > 0);
	pthread_mutex_unlock(&l->lock);
	return first;
}

bool fcp_check_no_direct_first(struct fcp_job *job, int fd)
{
	struct statx st;

	return fcp_sys_fstatx(fd, &st) == 0 && refused_first(job, fcp_statx_dev(&st));
}

void fcp_check_say_no_direct(struct fcp_job *job, int fd, const char *path)
{
	long type;

	/* There the page cache is the storage: what is read is all there is. */
	if (fcp_sys_fs_type(fd, &type) == 0 && (type == TMPFS_MAGIC || type == RAMFS_MAGIC))
		fcp_report_errorf(job, "check: '%s' is held in memory (tmpfs or ramfs): its files "
				  "are read from there", path);
	else
		fcp_report_errorf(job, "check: '%s' cannot do O_DIRECT: its files are read through "
				  "the page cache, so the bytes compared may be cached ones, not "
				  "the disk's", path);
}

void fcp_check_no_direct(struct fcp_job *job, const struct fcp_dir *d, int fd)
{
	const struct fcp_dir *top = d;
	char *p;

	if (!fcp_check_no_direct_first(job, fd))
		return;
	/* Named by the highest directory of the copy on that filesystem:
	 * the copy itself, or a mount point inside it. */
	while (top->parent && !top->parent->is_top && top->parent->dst_dev == d->dst_dev)
		top = top->parent;
	p = fcp_dir_dst_path(top, NULL);
	fcp_check_say_no_direct(job, fd, p ? p : "?");
	free(p);
}

static void check_links(struct fcp_entry *e, const struct statx *dst, const char *path)
{
	struct fcp_check_links *l = e->job->check_links;
	uint64_t sd = fcp_statx_dev(&e->st), dd = fcp_statx_dev(dst);
	int a, b;

	if (!l || !(e->job->o->preserve & FCP_PRESERVE_LINKS) || S_ISDIR(e->st.stx_mode) ||
	    (e->st.stx_nlink < 2 && dst->stx_nlink < 2))
		return;
	pthread_mutex_lock(&l->lock);
	a = pair_with(&l->by_src, sd, e->st.stx_ino, dd, dst->stx_ino);
	/* --dedup=hardlink links copies of one content on purpose: a copy
	 * inode may stand for several source inodes (fcp_check_links_taken
	 * leaves them linked too). */
	b = a < 0 || e->job->o->dedup == FCP_DEDUP_HARDLINK
		    ? a
		    : pair_with(&l->by_dst, dd, dst->stx_ino, sd, e->st.stx_ino);
	pthread_mutex_unlock(&l->lock);
	if (a < 0 || b < 0)
		fcp_report_failed(e->job, "out of memory checking hard links of", path, -ENOMEM);
	else if (!a || !b)
		fcp_check_say(e->job, path, "hard links differ");
}

bool fcp_check_links_taken(struct fcp_entry *e, const struct statx *dst)
{
	struct fcp_check_links *l = e->job->check_links;
	const struct fcp_options *o = e->job->o;
	int a;

	/* --dedup=hardlink links copies of one content on purpose, and -l
	 * makes each name a link to its source. */
	if (!l || !(o->preserve & FCP_PRESERVE_LINKS) || !S_ISREG(e->st.stx_mode) ||
	    dst->stx_nlink < 2 || o->make != FCP_MAKE_COPY || o->dedup == FCP_DEDUP_HARDLINK ||
	    fcp_statx_same_inode(&e->st, dst))
		return false;
	pthread_mutex_lock(&l->lock);
	a = pair_with(&l->by_dst, fcp_statx_dev(dst), dst->stx_ino, fcp_statx_dev(&e->st),
		      e->st.stx_ino);
	pthread_mutex_unlock(&l->lock);
	return a == 0; /* out of memory: left as it is, never split blindly */
}

/* A time as people read it (VOCABULARY): ISO 8601, local, with the
 * nanoseconds that tell two copies apart. */
static const char *iso_time(const struct statx_timestamp *t, char *buf, size_t len)
{
	time_t sec = (time_t)t->tv_sec;
	struct tm tm;
	char day[40], zone[8];

	if (!localtime_r(&sec, &tm)) {
		snprintf(buf, len, "%lld.%09u", (long long)t->tv_sec, t->tv_nsec);
		return buf;
	}
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	snprintf(buf, len, "%s.%09u%s", day, t->tv_nsec, zone);
	return buf;
}

/* "mtime A != B" for people (ISO 8601), and the exact numbers for
 * programs (the event's source_mtime and dest_mtime). */
static void say_mtimes(struct fcp_job *job, const char *path, const struct statx_timestamp *s,
		       const struct statx_timestamp *d)
{
	char a[64], b[64], what[160], sn[32], dn[32];
	const char *const times[2] = { sn, dn };

	snprintf(sn, sizeof(sn), "%lld.%09u", (long long)s->tv_sec, s->tv_nsec);
	snprintf(dn, sizeof(dn), "%lld.%09u", (long long)d->tv_sec, d->tv_nsec);
	snprintf(what, sizeof(what), "mtime %s != %s:", iso_time(s, a, sizeof(a)),
		 iso_time(d, b, sizeof(b)));
	fcp_report_plan_times(job, what, path, times);
	atomic_fetch_add(&job->c.differs, 1);
}

static void check_meta(struct fcp_job *job, const struct statx *st, struct fcp_at sat,
		       const struct statx *dst, struct fcp_at dat, const char *path)
{
	unsigned diff = fcp_plan_meta_diff(job, st, sat, dst, dat);

	if (diff & FCP_PRESERVE_MODE)
		fcp_check_say(job, path, "mode %04o != %04o", st->stx_mode & 07777,
			      dst->stx_mode & 07777);
	if (diff & FCP_PRESERVE_OWNER)
		fcp_check_say(job, path, "owner %u:%u != %u:%u", st->stx_uid, st->stx_gid,
			      dst->stx_uid, dst->stx_gid);
	if (diff & FCP_PRESERVE_TIMES)
		say_mtimes(job, path, &st->stx_mtime, &dst->stx_mtime);
	if (diff & FCP_PRESERVE_XATTR)
		fcp_check_say(job, path, "xattrs differ");
}

/* The bytes of data in the source file of e (its size less its holes, as
 * SEEK_DATA and SEEK_HOLE say) and its number of data extents; -errno. */
static int source_data(struct fcp_entry *e, uint64_t *data, uint64_t *extents)
{
	struct statx now;
	/* A FIFO or device swapped in since the statx is not opened (sys.c). */
	int fd = e->src_fd >= 0 ? e->src_fd
				: fcp_sys_open_regular(e->d->src_fd, e->name,
						       O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
						       O_NOCTTY | (e->job->is_root ? O_NOATIME : 0),
						       STATX_TYPE, &now);
	off_t size = (off_t)e->st.stx_size, off = 0, hole;
	int r = fd < 0 ? fd : 0;

	*data = *extents = 0;
	while (r == 0 && off < size) {
		if ((off = fcp_sys_lseek(fd, off, SEEK_DATA)) < 0 || off >= size) {
			r = off == -ENXIO || off >= size ? 0 : (int)off;
			break;
		}
		if ((hole = fcp_sys_lseek(fd, off, SEEK_HOLE)) <= off) {
			r = hole < 0 ? (int)hole : -EIO;
			break;
		}
		hole = hole < size ? hole : size;
		*data += (uint64_t)(hole - off);
		*extents += 1;
		off = hole;
	}
	if (fd >= 0 && fd != e->src_fd)
		close(fd);
	return r;
}

/* Filesystems that have no holes, as their statfs types. */
#define EXFAT_MAGIC 0x2011BAB0
#define HFSPLUS_MAGIC 0x482b

/* The probe's one byte: far enough past its start that no allocation
 * unit (a huge page, a bigalloc cluster) covers the hole before it. */
#define PROBE_AT (8 << 20)

/* Does a new file in e's DEST directory keep a hole, also once it has
 * been read (as -c and --check read a copy; ramfs fills a hole read)? One
 * byte is written PROBE_AT into an unnamed file (O_TMPFILE), which nobody
 * sees and which changes no directory, and what is before it read: less
 * than half of that allocated, it keeps it. Where no such file can be made
 * (a filesystem without them, read-only), the filesystems known to have
 * no holes say no, all others yes. */
static bool probe_holes(struct fcp_entry *e)
{
	int fd = fcp_sys_openat(e->d->dst_fd, ".", O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
	size_t cap, n;
	void *buf = fcp_worker_buf(e->w, &cap);
	ssize_t r = buf ? 0 : -ENOMEM;
	struct statx st;
	long type;

	if (fd < 0)
		return fcp_sys_fs_type(e->d->dst_fd, &type) < 0 ||
		       (type != MSDOS_SUPER_MAGIC && type != EXFAT_MAGIC && type != HFSPLUS_MAGIC);
	if (r == 0)
		r = fcp_sys_pwrite_full(fd, "", 1, PROBE_AT);
	for (off_t off = 0; r >= 0 && off < PROBE_AT; off += (off_t)n) {
		n = cap < (size_t)(PROBE_AT - off) ? cap : (size_t)(PROBE_AT - off);
		r = fcp_sys_pread_full(fd, buf, n, off);
	}
	if (r >= 0)
		r = fcp_sys_fstatx(fd, &st);
	close(fd);
	return r < 0 || st.stx_blocks * 512 < PROBE_AT / 2;
}

/* Would a fresh copy keep holes on dst's filesystem? Asked once per
 * filesystem: one that cannot (vfat, exFAT) fills every copy's holes,
 * and a copy made again there would be the same, so its holes are no
 * difference and no reason to copy it again on every run. Where it cannot
 * be found out, they are taken to be kept: a check names a difference it
 * is not sure of rather than miss one. --check, --sync and -c ask the
 * same probe (it writes nothing anyone sees), so they agree. */
static bool dest_keeps_holes(struct fcp_entry *e, const struct statx *dst)
{
	struct fcp_check_links *l = e->job->check_links;
	uint64_t dev = fcp_statx_dev(dst);
	int r = -1;

	if (!l)
		return true;
	pthread_mutex_lock(&l->lock);
	for (int i = 0; i < l->n_probed; i++)
		if (l->probed[i].dev == dev)
			r = l->probed[i].keeps;
	pthread_mutex_unlock(&l->lock);
	if (r >= 0)
		return r;
	r = probe_holes(e);
	pthread_mutex_lock(&l->lock);
	if (l->n_probed < PROBED_MAX)
		l->probed[l->n_probed++] = (struct probed){ dev, r };
	pthread_mutex_unlock(&l->lock);
	return r;
}

/*
 * The copy keeps holes (unless --sparse=never), so a copy whose holes were
 * filled is a difference: it allocates more than the source's data by more
 * than the destination's rounding can explain, which is two of its blocks
 * per data extent (both ends) and 64 KiB for its own extent records. Only
 * a source that allocates less than its size can have holes; SEEK_HOLE
 * then tells holes from compression (a compressed source's copy elsewhere
 * allocates its whole size, and that is no difference).
 */
bool fcp_check_holes_filled(struct fcp_entry *e, const struct statx *dst)
{
	const struct statx *st = &e->st;
	uint64_t src_alloc = st->stx_blocks * 512, dst_alloc = dst->stx_blocks * 512;
	uint64_t blk = dst->stx_blksize > 4096 ? dst->stx_blksize : 4096;
	uint64_t data, extents;

	return S_ISREG(st->stx_mode) && e->job->o->sparse != FCP_SPARSE_NEVER &&
	       src_alloc < st->stx_size && dst_alloc > src_alloc + (64 << 10) &&
	       source_data(e, &data, &extents) == 0 &&
	       dst_alloc > data + 2 * blk * extents + (64 << 10) && dest_keeps_holes(e, dst);
}

static void check_holes(struct fcp_entry *e, const struct statx *dst, const char *path)
{
	if (fcp_check_holes_filled(e, dst))
		fcp_check_say(e->job, path, "holes filled (allocated %llu != %llu)",
			      (unsigned long long)e->st.stx_blocks * 512,
			      (unsigned long long)dst->stx_blocks * 512);
}

/* Content (same: 1 or 0 when already compared, -1 to read it here), a
 * link's target, a device's number. */
static void check_data(struct fcp_entry *e, const struct statx *dst, const char *path, int same)
{
	const struct statx *st = &e->st;

	if (S_ISREG(st->stx_mode) && st->stx_size != dst->stx_size)
		fcp_check_say(e->job, path, "size %llu != %llu", (unsigned long long)st->stx_size,
			      (unsigned long long)dst->stx_size);
	else if (S_ISREG(st->stx_mode) && (same >= 0 ? same : fcp_plan_content(e, dst)) == 0)
		fcp_check_say(e->job, path, "content differs");
	else if (S_ISREG(st->stx_mode))
		check_holes(e, dst, path);
	else if (!S_ISREG(st->stx_mode) && !fcp_plan_data_same(e, dst))
		fcp_check_say(e->job, path, S_ISLNK(st->stx_mode) ? "symlink target differs"
					 : "device %u:%u != %u:%u", st->stx_rdev_major,
			      st->stx_rdev_minor, dst->stx_rdev_major, dst->stx_rdev_minor);
}

int fcp_check_stat(struct fcp_entry *e, struct statx *dst)
{
	return e->d->dst_fd < 0 ? -ENOENT
				: fcp_sys_statx(e->d->dst_fd, e->dst_name, AT_SYMLINK_NOFOLLOW,
						STATX_BASIC_STATS, dst);
}

/* -m: d, below a directory missing in DEST, holds a non-directory the
 * copy would have copied, so that directory would not have been pruned:
 * the highest missing one is named, once. */
static void say_missing_dir(struct fcp_job *job, struct fcp_dir *d)
{
	char *p;

	while (d->parent && d->parent->made && !d->parent->is_top)
		d = d->parent;
	if (atomic_exchange(&d->missing_said, true))
		return;
	p = fcp_dir_dst_path(d, NULL);
	fcp_check_say(job, p, "missing in DEST");
	free(p);
}

void fcp_check_found(struct fcp_entry *e, int r, const struct statx *dst, int same)
{
	char *p = fcp_dir_dst_path(e->d, e->dst_name);

	if (r == -ENOENT && e->job->o->prune_empty_dirs && e->d->made) {
		say_missing_dir(e->job, e->d);
	} else if (r == -ENOENT) {
		fcp_check_say(e->job, p, "missing in DEST");
	} else if (r < 0) {
		fcp_report_failed(e->job, "cannot stat", p, r);
	} else if ((dst->stx_mode & S_IFMT) != (e->st.stx_mode & S_IFMT)) {
		fcp_check_say(e->job, p, "type %s != %s", fcp_check_kind(e->st.stx_mode),
			      fcp_check_kind(dst->stx_mode));
	} else if (!S_ISDIR(dst->stx_mode)) {
		struct fcp_at sat = e->src_fd >= 0 ? FCP_AT_FD(e->src_fd)
						   : FCP_AT_NAME(e->d->src_fd, e->name);

		check_data(e, dst, p, same);
		check_links(e, dst, p);
		check_meta(e->job, &e->st, sat, dst, FCP_AT_NAME(e->d->dst_fd, e->dst_name), p);
	}
	free(p);
}

void fcp_check_entry(struct fcp_entry *e)
{
	struct statx dst;

	fcp_check_found(e, fcp_check_stat(e, &dst), &dst, -1);
}

bool fcp_check_dir_entry(struct fcp_entry *e)
{
	struct statx dst;
	int r = fcp_check_stat(e, &dst);

	if (r == -ENOENT && e->job->o->prune_empty_dirs)
		return true;
	fcp_check_found(e, r, &dst, -1);
	return false;
}

void fcp_check_dir(struct fcp_job *job, struct fcp_dir *d)
{
	struct statx dst;
	char *p;
	int r;

	if (d->made) /* missing in DEST (-m): said, or pruned */
		return;
	p = fcp_dir_dst_path(d, NULL);
	r = fcp_sys_fstatx(d->dst_fd, &dst);

	if (r < 0)
		fcp_report_failed(job, "cannot stat", p, r);
	else
		check_meta(job, &d->st, FCP_AT_FD(d->src_fd), &dst, FCP_AT_FD(d->dst_fd), p);
	free(p);
}
