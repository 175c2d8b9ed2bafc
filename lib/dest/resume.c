/*
 * resume.c - large files that the next run finishes (--resume).
 *
 * Where the file is, so that the next run finds it without a search and
 * without guessing: in a hidden directory (a new root copy, struct
 * fcp_tmp), under its final name, as every file there; elsewhere under
 * ".fcp-resume-" and a 64-bit hash of its final name, a name of the
 * temporary shape (never a final one, and the same length for every final
 * name, which may be 255 bytes long). Not unnamed (O_TMPFILE) even where
 * that is the rule: an unnamed inode does not outlive the run. Two names
 * with one hash are told apart by the record, which holds the final name;
 * the second of them is copied the ordinary way.
 *
 * The record (FCP_RESUME_XATTR, text) holds the source's identity (dev,
 * ino, size, mtime, ctime: one changed is a changed source; dev is kept
 * for the reader only, a device number may change across a reboot), the
 * durable prefix of the copy, and the final name. chunk.c writes it after
 * an fdatasync of the file, so what it names is on the device before the
 * record even exists; a lost record only costs the copy again.
 *
 * The next run with --resume: the leftover scan keeps such a file where
 * its record still matches its source (fcp_resume_keep), and the copy of
 * that source opens it again (fcp_resume_open) after looking at it without
 * following: a regular file, ours, one link, the same inode once open,
 * the same size as the source, and a record for this very source and
 * name. Anything else of ours there is removed and the file starts over;
 * what is not ours (or not a regular file) is left alone, and the file
 * goes under an ordinary temporary name. Inside a killed run's hidden
 * root copy taken up again (--sync), the file under its final name is
 * looked at too: nobody sees into that copy before it is renamed.
 */
#include "dest/dest.h"
#include "core/node.h"
#include "dest/resume.h"
#include "base/sys.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PREFIX ".fcp-resume-"

/* The job's records (job->resume, made before the workers start). */
struct fcp_resume_state {
	atomic_bool warned; /* a record could not be written: said once */
};

int fcp_resume_init(struct fcp_job *job)
{
	job->resume = calloc(1, sizeof(*job->resume));
	return job->resume ? 0 : -ENOMEM;
}

void fcp_resume_free(struct fcp_job *job)
{
	free(job->resume);
	job->resume = NULL;
}

struct record {
	unsigned long long dev, ino, size;
	long long mtime, ctime, done;
	unsigned mtime_ns, ctime_ns;
	const char *name; /* into the value read */
};

bool fcp_resume_wanted(const struct fcp_entry *e)
{
	return e->job->o->resume && !e->job->o->dry_run && (off_t)e->st.stx_size >= FCP_RESUME_MIN;
}

bool fcp_resume_shaped(const char *name)
{
	size_t n = strlen(PREFIX);

	return !strncmp(name, PREFIX, n) && strlen(name + n) == 16 &&
	       strspn(name + n, "0123456789abcdef") == 16;
}

/* FNV-1a: stable across versions and machines, which is all it must be. */
static void resume_name(const char *final, char buf[FCP_TMPNAME_MAX])
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const unsigned char *p = (const unsigned char *)final; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	snprintf(buf, FCP_TMPNAME_MAX, PREFIX "%016" PRIx64, h);
}

/* The record of fd (or of name in dirfd, when fd < 0), parsed into *r;
 * the text is malloc'd in *val. */
static bool record_read(int fd, int dirfd, const char *name, struct record *r, char **val)
{
	void *raw = NULL;
	struct statx st;
	ssize_t n;
	int at = -1, off = -1;

	*val = NULL;
	if (fd < 0 && (fd = at = fcp_sys_openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
							      O_NOCTTY, 0)) < 0)
		return false;
	n = fcp_sys_fstatx(fd, &st) == 0 && S_ISREG(st.stx_mode)
		    ? fcp_sys_getxattr(fd, -1, NULL, FCP_RESUME_XATTR, &raw)
		    : -EINVAL;
	if (at >= 0)
		close(at);
	*val = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (*val) {
		memcpy(*val, raw, (size_t)n);
		(*val)[n] = 0;
	}
	free(raw);
	if (!*val || sscanf(*val, "fastcp-resume 1 dev=%llu ino=%llu size=%llu mtime=%lld.%u "
				  "ctime=%lld.%u done=%lld name=%n",
			    &r->dev, &r->ino, &r->size, &r->mtime, &r->mtime_ns, &r->ctime,
			    &r->ctime_ns, &r->done, &off) != 8 || off < 0)
		return false;
	r->name = *val + off;
	return r->done >= 0 && (unsigned long long)r->done <= r->size;
}

/* Does record r describe the copy of source st under the final name? */
static bool record_matches(const struct record *r, const struct statx *st, const char *name)
{
	return r->ino == st->stx_ino && r->size == st->stx_size &&
	       r->mtime == st->stx_mtime.tv_sec && r->mtime_ns == st->stx_mtime.tv_nsec &&
	       r->ctime == st->stx_ctime.tv_sec && r->ctime_ns == st->stx_ctime.tv_nsec &&
	       !strcmp(r->name, name);
}

int fcp_resume_save(struct fcp_entry *e, int fd, off_t done)
{
	const struct statx *st = &e->st;
	char *val = NULL;
	int n, r;

	n = asprintf(&val, "fastcp-resume 1 dev=%llu ino=%llu size=%llu mtime=%lld.%09u "
			   "ctime=%lld.%09u done=%lld name=%s",
		     (unsigned long long)fcp_statx_dev(st), (unsigned long long)st->stx_ino,
		     (unsigned long long)st->stx_size, (long long)st->stx_mtime.tv_sec,
		     st->stx_mtime.tv_nsec, (long long)st->stx_ctime.tv_sec, st->stx_ctime.tv_nsec,
		     (long long)done, e->dst_name);
	r = n < 0 ? -ENOMEM : fcp_sys_fsetxattr(fd, FCP_RESUME_XATTR, val, (size_t)n);
	free(val);
	if (r < 0 && !atomic_exchange(&e->job->resume->warned, true)) {
		char *p = fcp_dir_dst_path(e->d, e->dst_name);
		fcp_report_error(e->job,
				 "warning: --resume cannot record progress (an interrupted copy "
				 "starts over) on",
				 p ? p : e->dst_name, r);
		free(p);
	}
	return r;
}

void fcp_resume_forget(int fd)
{
	fcp_sys_removexattr(fd, -1, NULL, FCP_RESUME_XATTR);
}

enum { NONE = -1000000, STALE, FOREIGN };

/* The killed run's file name in e's destination directory, opened for
 * writing, with r->done set; else NONE (nothing there), STALE (ours, not
 * to be reused) or FOREIGN (not ours, or not a regular file). */
static int reuse(struct fcp_entry *e, const char *name, struct fcp_resume *r)
{
	int dirfd = e->d->dst_fd, fd;
	struct statx at, st;
	struct record rec;
	char *val = NULL;
	bool ok;

	if (fcp_sys_statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &at) < 0)
		return NONE;
	if (!S_ISREG(at.stx_mode) || at.stx_uid != e->job->euid || at.stx_nlink != 1)
		return FOREIGN;
	/* --verify reads the copy back through this descriptor. */
	fd = fcp_sys_openat(dirfd, name,
			    fcp_dest_flags(e->job, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY), 0);
	if (fd < 0)
		return fd == -ELOOP || fd == -ENXIO ? FOREIGN : STALE;
	/* Swapped since it was looked at: not the file looked at. */
	if (fcp_sys_fstatx(fd, &st) < 0 || !fcp_statx_same_inode(&st, &at) || !S_ISREG(st.stx_mode)) {
		close(fd);
		return FOREIGN;
	}
	ok = st.stx_size == e->st.stx_size && record_read(fd, -1, NULL, &rec, &val) &&
	     record_matches(&rec, &e->st, e->dst_name);
	free(val);
	if (!ok) {
		close(fd);
		return STALE;
	}
	r->done = rec.done;
	r->record = r->found = true;
	return fd;
}

static int ordinary(struct fcp_entry *e, struct fcp_tmp *t, mode_t mode)
{
	return fcp_dest_create(e->w, e->d, t, mode, e->dst_name, false);
}

int fcp_resume_open(struct fcp_entry *e, struct fcp_tmp *t, struct fcp_resume *r)
{
	mode_t mode = fcp_dest_open_mode(e->create_mode);
	struct fcp_dir *d = e->d;
	int fd;

	*r = (struct fcp_resume){ 0 };
	t->name[0] = 0;
	t->unnamed = false;
	t->final = NULL;
	t->in_place = false;
	/* A new hidden directory: the final name, as every file there. */
	if (d->hidden) {
		fd = ordinary(e, t, e->create_mode);
		r->record = fd >= 0 && t->final;
		return fd;
	}
	resume_name(e->dst_name, t->name);
	fd = reuse(e, t->name, r);
	if (fd == NONE && d->root->adopted) {
		int in_place = reuse(e, e->dst_name, r);
		if (in_place >= 0) {
			t->name[0] = 0;
			t->final = e->dst_name;
			return in_place;
		}
	}
	if (fd >= 0)
		return fd;
	if (fd == STALE)
		fcp_sys_unlinkat(d->dst_fd, t->name, 0);
	if (fd != FOREIGN) {
		fd = fcp_sys_openat(d->dst_fd, t->name, fcp_dest_flags(e->job, FCP_DEST_NAMED_FLAGS),
				    mode);
		r->record = fd >= 0;
		if (fd != -EEXIST)
			return fd;
	}
	/* Not ours to touch, or made meanwhile: an ordinary copy. */
	return ordinary(e, t, e->create_mode);
}

/* The source of the resumable file name in d, by its record's final
 * name: an entry of d's source, or the operand of a root of that name. */
static int source_of(const struct fcp_job *job, const struct fcp_dir *d, const char *name,
		     struct fcp_root **roots, int n, struct statx *st)
{
	int flags = job->o->symlinks == FCP_SYMLINKS_FOLLOW ? 0 : AT_SYMLINK_NOFOLLOW;

	if (!d->is_top)
		return fcp_sys_statx(d->src_fd, name, flags, STATX_BASIC_STATS, st);
	for (int i = 0; i < n; i++)
		if (roots[i]->name && !strcmp(roots[i]->name, name))
			return fcp_sys_statx(AT_FDCWD, roots[i]->src_arg, flags, STATX_BASIC_STATS, st);
	return -ENOENT;
}

bool fcp_resume_recorded(int dirfd, const char *name)
{
	struct record rec;
	char *val = NULL;
	bool ok = fcp_resume_shaped(name) && record_read(-1, dirfd, name, &rec, &val);

	free(val);
	return ok;
}

bool fcp_resume_keep(struct fcp_job *job, const struct fcp_dir *d, const char *name,
		     struct fcp_root **roots, int n)
{
	struct statx at, src;
	struct record rec;
	char *val = NULL;
	bool keep;

	if (!job->o->resume || !fcp_resume_shaped(name) ||
	    fcp_sys_statx(d->dst_fd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &at) < 0 ||
	    !S_ISREG(at.stx_mode) || at.stx_uid != job->euid)
		return false;
	keep = record_read(-1, d->dst_fd, name, &rec, &val) &&
	       source_of(job, d, rec.name, roots, n, &src) == 0 && S_ISREG(src.stx_mode) &&
	       record_matches(&rec, &src, rec.name);
	free(val);
	return keep;
}
