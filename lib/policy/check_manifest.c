/*
 * check_manifest.c - --check --manifest FILE DEST (check_manifest.h):
 * every file the manifest records under DEST read again and compared with
 * its recorded hash, its differences said in --check's words (check.c),
 * and the files of DEST it does not record named. It decides and writes
 * nothing to DEST: a hash found equal is recorded again as verified
 * through the manifest's writer. So it stands on the policy floor beside
 * check.c, whose words it speaks, and manifest.c, on the dest floor below,
 * only keeps the record and reads it out (manifest.h).
 */
#include "config.h"
#include "policy/check_manifest.h"
#include "policy/check.h"
#include "core/limiter.h"
#include "dest/manifest.h"
#include "core/node.h"
#include "dest/own.h"
#include "base/sys.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_SQLITE3

/* The highest directory of dest on the filesystem dev: dest itself, or
 * the first directory on the way down to rel (a file below dfd) that is.
 * malloc'd, or NULL. */
static char *fs_top(int dfd, const char *dest, const char *rel, uint64_t dev)
{
	char *q = strdup(rel), *slash;
	struct statx st;

	if (fcp_sys_fstatx(dfd, &st) == 0 && fcp_statx_dev(&st) == dev) {
		free(q);
		return strdup(dest);
	}
	for (slash = q ? strchr(q, '/') : NULL; slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		if (fcp_sys_statx(dfd, q, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) == 0 &&
		    fcp_statx_dev(&st) == dev) {
			char *p = fcp_path_join(dest, q);
			free(q);
			return p;
		}
		*slash = '/';
	}
	free(q);
	return fcp_path_join(dest, rel); /* a file mounted there alone */
}

/* A recorded file of DEST (fd, st; p its path) read through the page
 * cache: said once for its filesystem (check.h). */
static void no_direct(struct fcp_job *job, int dfd, const char *dest,
		      const struct fcp_manifest_row *r, int fd, const struct statx *st)
{
	char *top;

	if (!fcp_check_no_direct_first(job, fd))
		return;
	top = *r->path ? fs_top(dfd, dest, r->path, fcp_statx_dev(st)) : strdup(dest);
	fcp_check_say_no_direct(job, fd, top ? top : dest);
	free(top);
}

/* The recorded file r, open as fd (st; p its path), read from storage
 * (O_DIRECT) and compared with its recorded hash. */
static void compare_one(struct fcp_job *job, int dfd, const char *dest,
			const struct fcp_manifest_row *r, int fd, const struct statx *st,
			const char *p, void *buf, size_t cap)
{
	bool direct = fcp_sys_set_direct(fd, true) == 0;
	struct fcp_hash h;
	int e = fcp_hash_fd(job, fd, st->stx_size, buf, cap, direct, &h);

	/* Read through the page cache after all (refused by the fcntl, or
	 * by a read): said, and the comparison stands for what was read. */
	if (e == 0 && st->stx_size > 0 && (!direct || fcp_sys_direct_on(fd) == 0))
		no_direct(job, dfd, dest, r, fd, st);
	if (e < 0) {
		fcp_report_failed(job, "cannot read", p, e);
	} else if (!fcp_hash_equal(&h, &r->h)) {
		fcp_check_say(job, p, "content differs");
		/* Its times may well be those recorded (bit rot moves none):
		 * a run with --checksum, or a check against the source, must
		 * not take the recorded hash for what it holds and call it
		 * equal. The hash stays: the next check says it again. */
		fcp_manifest_distrust(job, false, r->path);
	} else {
		/* The same bytes: verified now. */
		fcp_manifest_record(job, false, r->path, st, &h);
		atomic_fetch_add(&job->c.files, 1);
	}
}

/* Read one recorded file again: say how it changed; record its hash when
 * it is the one recorded. A file recorded without a hash is not read: its
 * bytes may be damaged already, and nothing here could tell, so its hash
 * now is never taken for the truth; it is counted as not compared.
 * Only a regular file is opened (sys.h): a FIFO put in its place would
 * hold the check until a writer came, and opening a device can act (a
 * tape rewinds); such a file, or a symlink, is a difference of type, in
 * the words of a check against the source. O_NONBLOCK and O_NOCTTY, and
 * the type read again from what was opened, are a second guard. */
static void verify_one(struct fcp_job *job, int dfd, const char *dest,
		       const struct fcp_manifest_row *r, void *buf, size_t cap, uint64_t *unhashed)
{
	char *p = fcp_path_join(dest, r->path);
	int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
	struct statx st = { 0 }; /* stx_mode 0: not looked at */
	int fd = *r->path ? fcp_sys_open_regular_beneath(dfd, r->path, flags, STATX_TYPE, &st)
			  : fcp_sys_open_regular(AT_FDCWD, dest, flags, STATX_TYPE, &st);
	int e;

	if (fd == -ENOENT || fd == -ENOTDIR)
		fcp_check_say(job, p, "missing in DEST");
	else if (fd == -ELOOP) /* a symlink on the way (RESOLVE_NO_SYMLINKS) */
		fcp_check_say(job, p, "type file != symlink");
	else if (fd == -ENXIO && st.stx_mode && !S_ISREG(st.stx_mode))
		fcp_check_say(job, p, "type file != %s", fcp_check_kind(st.stx_mode));
	else if (fd < 0)
		fcp_report_failed(job, "cannot open", p, fd);
	else if ((e = fcp_sys_fstatx(fd, &st)) < 0)
		fcp_report_failed(job, "cannot stat", p, e);
	else if (!S_ISREG(st.stx_mode))
		fcp_check_say(job, p, "type file != %s", fcp_check_kind(st.stx_mode));
	else if (st.stx_size != r->size)
		fcp_check_say(job, p, "size %llu != %llu", (unsigned long long)r->size,
			      (unsigned long long)st.stx_size);
	else if (!r->has_hash)
		(*unhashed)++;
	else
		compare_one(job, dfd, dest, r, fd, &st, p, buf, cap);
	if (fd >= 0)
		close(fd);
	free(p);
}

/* The re-verify's workers share out the rows by an atomic index. */
struct verify {
	struct fcp_job *job;
	struct fcp_manifest_row *v;
	size_t n;
	atomic_size_t next;
	atomic_ullong unhashed;
	int dfd;
	const char *dest;
};

static void *verify_worker(void *arg)
{
	struct verify *x = arg;
	size_t cap = 1 << 20, i;
	void *buf = aligned_alloc(4096, cap); /* O_DIRECT's reads (verify_one) */
	uint64_t unhashed = 0;

	while (buf && (i = atomic_fetch_add(&x->next, 1)) < x->n)
		verify_one(x->job, x->dfd, x->dest, &x->v[i], buf, cap, &unhashed);
	if (!buf)
		fcp_report_errorf(x->job, "out of memory verifying '%s'", x->dest);
	atomic_fetch_add(&x->unhashed, unhashed);
	free(buf);
	return NULL;
}

/* Read the rows again on a few threads: a cold disk answers several
 * reads at once faster than one after another. */
static void verify_all(struct verify *x, int threads)
{
	pthread_t t[32];
	int k = 0;

	if (threads > 32)
		threads = 32;
	while (k < threads && (size_t)k < x->n && pthread_create(&t[k], NULL, verify_worker, x) == 0)
		k++;
	if (k == 0)
		verify_worker(x);
	while (k-- > 0)
		pthread_join(t[k], NULL);
}

/* Is the recorded path rel (a row; "" for DEST itself) there, below the
 * directory dfd, or as dfd itself when dfd is a file? */
static bool row_there(int dfd, bool dfd_is_file, const char *rel)
{
	int fd;

	if (!*rel || dfd_is_file)
		return !*rel && dfd_is_file;
	fd = fcp_sys_open_beneath(dfd, rel, O_PATH | O_NOFOLLOW, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* Is any of a few rows, spread over all of them, there under path? */
static bool sample_there(const char *path, const struct fcp_manifest_row *v, size_t n)
{
	int fd = fcp_sys_openat(AT_FDCWD, path, O_PATH | O_DIRECTORY, 0);
	bool found = false;

	if (fd < 0)
		return false;
	for (size_t k = 0; k < 16 && !found; k++)
		found = row_there(fd, false, v[n * k / 16].path);
	close(fd);
	return found;
}

/* The real path of dest, or of the nearest directory above it that
 * exists (dest may be missing: mistyped, or its disk not mounted). */
static char *real_existing(const char *dest)
{
	char *copy = strdup(dest), *p = NULL, *slash;

	while (copy && !(p = realpath(copy, NULL))) {
		if (!(slash = strrchr(copy, '/'))) {
			p = realpath(".", NULL);
			break;
		}
		if (slash == copy) {
			p = strdup("/");
			break;
		}
		*slash = 0;
	}
	free(copy);
	return p;
}

/* A directory under which the recorded files are, near dest: one of its
 * parents (the copy went into DEST, not -T), or one of its directories
 * (the reverse). malloc'd, or NULL. */
static char *probably_meant(const char *dest, const struct fcp_manifest_row *v, size_t n)
{
	char *p = real_existing(dest), *slash, *found = NULL;
	int fd = fcp_sys_openat(AT_FDCWD, dest, O_RDONLY | O_DIRECTORY, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!dir && fd >= 0)
		close(fd);
	/* A few hundred of them at most: a hint, not a search. */
	for (int seen = 0; dir && !found && seen < 500 && fcp_sys_readdir(dir, &de) > 0; seen++) {
		char *c;

		if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		c = fcp_path_join(dest, de->d_name);
		if (c && sample_there(c, v, n))
			found = c;
		else
			free(c);
	}
	if (dir)
		closedir(dir);
	for (int up = 0; p && !found && up < 8 && (slash = strrchr(p, '/')); up++) {
		slash[slash == p] = 0;
		if (sample_there(p, v, n))
			found = strdup(p);
		if (slash == p)
			break;
	}
	free(p);
	return found;
}

/* A check of DEST alone with the manifest of another DEST that is still
 * there would report its files missing and DEST's own as not recorded, a
 * long list that hides the mistake: refused, naming the DEST recorded.
 * Where the recorded DEST holds none of its files (a disk mounted
 * elsewhere, a copy moved), the DEST given is checked. */
static bool other_dest(struct fcp_job *job, const struct verify *x)
{
	char *was = fcp_manifest_dest(job), *root = fcp_manifest_dest_root(x->dest);
	bool other = was && root && strcmp(was, root) && sample_there(was, x->v, x->n);

	if (other)
		fcp_report_errorf(job, "manifest '%s' records the files of '%s', not of '%s' (a "
				  "manifest serves one DEST: was '%s' meant?); nothing checked",
				  job->o->manifest, was, root, was);
	free(was);
	free(root);
	return other;
}

/* Before any file is read: is anything recorded there at all? Where
 * nothing is (a DEST mistyped, a disk not mounted), a line per file
 * "missing" would hide the cause: said once, with the directory
 * probably meant, and nothing is checked. */
static bool nothing_there(struct fcp_job *job, const struct verify *x)
{
	char *meant;

	for (size_t i = 0; i < x->n; i++)
		if (row_there(x->dfd, x->dfd == -ENOTDIR, x->v[i].path))
			return false;
	meant = probably_meant(x->dest, x->v, x->n);
	fcp_report_errorf(job, "none of the %zu files that manifest '%s' records is in '%s'%s%s%s; "
			  "nothing checked", x->n, job->o->manifest, x->dest,
			  meant ? " (was '" : "", meant ? meant : "", meant ? "' meant?)" : "");
	free(meant);
	return true;
}

/* The files of DEST that no row names: a check that reads only the rows
 * would call DEST equal while such a file (copied without --manifest, or
 * found up to date by an older fastcp, which did not record it) could be
 * damaged unseen. Only regular files are recorded, so only they count. */
struct unrec {
	struct fcp_job *job;
	const struct fcp_manifest_row *v;
	size_t n;
	uint64_t count;  /* files not recorded */
	uint64_t mounts; /* other filesystems below DEST, not read */
};

static int row_cmp(const void *key, const void *row)
{
	return strcmp(key, ((const struct fcp_manifest_row *)row)->path);
}

static void unrec_dir(struct unrec *u, int fd, const char *rel, const char *path);

/* One entry of a directory of DEST: a file said when no row names it; a
 * directory entered, unless it is another mount (not read: counted). */
static void unrec_entry(struct unrec *u, int fd, const struct statx *dir,
			const struct dirent *de, const char *rel, const char *path)
{
	char *r = *rel ? fcp_path_join(rel, de->d_name) : strdup(de->d_name);
	char *p = fcp_path_join(path, de->d_name);
	unsigned char type = de->d_type;
	struct statx st;
	int sub, e;

	if (type == DT_UNKNOWN || type == DT_DIR) {
		e = fcp_sys_statx(fd, de->d_name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st);
		type = e < 0 ? DT_UNKNOWN : S_ISDIR(st.stx_mode) ? DT_DIR
					   : S_ISREG(st.stx_mode) ? DT_REG : DT_UNKNOWN;
		if (e < 0)
			fcp_report_failed(u->job, "cannot stat", p ? p : de->d_name, e);
	}
	if (!r || !p) {
		fcp_report_errorf(u->job, "out of memory checking '%s'", path);
	} else if (type == DT_REG) {
		if (!bsearch(r, u->v, u->n, sizeof(*u->v), row_cmp) &&
		    !(dir && fcp_own_name(u->job, fcp_statx_dev(dir), dir->stx_ino, de->d_name))) {
			fcp_report_plan(u->job, "not in the manifest:", p);
			u->count++;
		}
	} else if (type == DT_DIR && (st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
		   (st.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
		fcp_report_plan(u->job, "not read, another mount:", p);
		u->mounts++;
	} else if (type == DT_DIR) {
		sub = fcp_sys_openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
		if (sub < 0)
			fcp_report_failed(u->job, "cannot open", p, sub);
		else
			unrec_dir(u, sub, r, p);
	}
	free(r);
	free(p);
}

/* Every entry of the directory fd (closed here): rel its path in DEST. */
static void unrec_dir(struct unrec *u, int fd, const char *rel, const char *path)
{
	DIR *dir = fdopendir(fd);
	struct dirent *de;
	struct statx st;
	/* The job's own files (the manifest, its -wal and -shm, --log,
	 * --events) are not the copy's: own.h. */
	bool own = fcp_sys_fstatx(fd, &st) == 0 && fcp_own_dir(u->job, fcp_statx_dev(&st), st.stx_ino);
	int r;

	if (!dir) {
		fcp_report_failed(u->job, "cannot read", path, -errno);
		close(fd);
		return;
	}
	while ((r = fcp_sys_readdir(dir, &de)) > 0)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unrec_entry(u, dirfd(dir), own ? &st : NULL, de, rel, path);
	if (r < 0)
		fcp_report_failed(u->job, "cannot read", path, r);
	closedir(dir);
}

/* The files under DEST (x->dfd) that the manifest does not record:
 * said, and their number returned (not compared). */
static uint64_t unrecorded(struct fcp_job *job, const struct verify *x)
{
	struct unrec u = { .job = job, .v = x->v, .n = x->n };
	int fd = fcp_sys_openat(x->dfd, ".", O_RDONLY | O_DIRECTORY, 0);

	if (fcp_own_init(job) < 0) {
		fcp_report_errorf(job, "out of memory");
		atomic_fetch_add(&job->c.failed, 1);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (fd < 0)
		fcp_report_failed(job, "cannot open", x->dest, fd);
	else
		unrec_dir(&u, fd, "", x->dest);
	fcp_own_free(job);
	if (u.count)
		fprintf(job->err, "fastcp: %llu file%s in '%s' not in the manifest (copied without "
			"--manifest, or by an older fastcp): not compared; a check against the "
			"source (fastcp --check --manifest FILE SOURCE DEST) records %s\n",
			(unsigned long long)u.count, u.count == 1 ? "" : "s", x->dest,
			u.count == 1 ? "it" : "them");
	if (u.mounts)
		fprintf(job->err, "fastcp: %llu other filesystem%s mounted in '%s' not read: not "
			"compared\n", (unsigned long long)u.mounts, u.mounts == 1 ? "" : "s",
			x->dest);
	return u.count + u.mounts;
}

int fcp_manifest_verify(const struct fcp_options *o, const char *dest, struct fcp_stats *stats)
{
	struct fcp_job job = { .o = o, .err = o->err ? o->err : stderr };
	struct verify x = { .job = &job, .dest = dest };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int r, rc = 0;
	size_t all;
	uint64_t extra = 0;

	memset(stats, 0, sizeof(*stats));
	stats->check = true;
	pthread_mutex_init(&job.err_lock, NULL);
	/* (A hash found equal is recorded as read unless racy: job.h.) */
	clock_gettime(CLOCK_REALTIME_COARSE, &job.began);
	/* Only a manifest a copy made can say what DEST should hold: a
	 * missing or empty one is a mistake (a mistyped name), never made. */
	if (fcp_manifest_open_check(&job, o->manifest) < 0)
		return FCP_EXIT_USAGE;
	/* The reads of DEST's files take from --bwlimit, --iolimit too. */
	/* (The check's table of filesystems refusing O_DIRECT: check.h.) */
	if (fcp_limit_init(&job) < 0 || fcp_check_links_init(&job) < 0) {
		fcp_report_errorf(&job, "out of memory");
		fcp_limit_free(&job);
		fcp_manifest_close(&job);
		return FCP_EXIT_PARTIAL;
	}
	/* Not even the access times of DEST move (directories included). */
	fcp_sys_reads_noatime(true);
	r = fcp_manifest_rows(&job, &x.v, &x.n); /* a failure said */
	all = x.n;
	if (r == 0 && x.n == 0) {
		fcp_report_errorf(&job, "manifest '%s' records no files; nothing checked",
				  o->manifest);
		rc = FCP_EXIT_USAGE;
	}
	/* DEST is a file when the copy was one file (-T): its row is "". */
	x.dfd = fcp_sys_openat(AT_FDCWD, dest, O_RDONLY | O_DIRECTORY, 0);
	if (x.dfd < 0 && x.dfd != -ENOTDIR && x.dfd != -ENOENT) {
		fcp_report_failed(&job, "cannot open", dest, x.dfd);
		x.n = 0;
	}
	if (x.n && (other_dest(&job, &x) || nothing_there(&job, &x))) {
		rc = FCP_EXIT_USAGE;
		x.n = 0;
	}
	verify_all(&x, o->threads > 0 ? o->threads : cpus > 0 ? 3 * (int)cpus : 3);
	/* DEST a directory whose files were checked: and the others? */
	if (x.n && x.dfd >= 0)
		extra = unrecorded(&job, &x);
	fcp_sys_reads_noatime(false);
	for (size_t i = 0; i < all; i++)
		free(x.v[i].path);
	if (x.unhashed)
		fprintf(job.err, "fastcp: %llu file%s recorded without a hash (by an older fastcp, "
			"or a copy that could not hash %s): not compared; a check against the "
			"source (fastcp --check --manifest FILE SOURCE DEST) records %s\n",
			(unsigned long long)x.unhashed, x.unhashed == 1 ? "" : "s",
			x.unhashed == 1 ? "it" : "them", x.unhashed == 1 ? "its hash" : "theirs");
	if (x.dfd >= 0)
		close(x.dfd);
	free(x.v);
	fcp_check_links_free(&job);
	fcp_limit_free(&job);
	fcp_manifest_close(&job);
	stats->files = job.c.files;
	stats->failed = job.c.failed + (r < 0);
	stats->differences = job.c.differs;
	stats->uncompared = x.unhashed + extra;
	if (rc)
		return rc;
	return stats->failed || stats->differences || stats->uncompared ? FCP_EXIT_PARTIAL
									  : FCP_EXIT_OK;
}

#else /* no SQLite: --manifest is refused on the command line */

int fcp_manifest_verify(const struct fcp_options *o, const char *dest, struct fcp_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	fprintf(o->err ? o->err : stderr,
		"fastcp: --manifest is not available: fastcp was built without SQLite\n");
	return FCP_EXIT_USAGE;
}
#endif
