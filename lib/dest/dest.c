/*
 * dest.c - create under a temporary name (or none, or the final one in a
 * hidden directory), rename (or link) into place.
 */
#include "dest/dest.h"
#include "core/node.h"
#include "base/sys.h"
#include "core/upcalls.h"
#include "core/worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define FCP_TMP_TRIES 100

int fcp_dest_make(struct fcp_worker *w, uint32_t key, int dirfd, char tmp[FCP_TMPNAME_MAX],
		  int (*make)(int dirfd, const char *tmp, void *arg), void *arg)
{
	int r = -EEXIST;

	for (int i = 0; i < FCP_TMP_TRIES && r == -EEXIST; i++) {
		fcp_worker_tmpname(w, key, tmp, FCP_TMPNAME_MAX);
		r = make(dirfd, tmp, arg);
	}
	return r;
}

/* In a hidden directory, make(name) under its final name at once. -EEXIST
 * elsewhere, or where something else made the name meanwhile: then the
 * caller takes its usual way, which replaces that one. */
static int make_final(struct fcp_dir *d, const char *name,
		      int (*make)(int dirfd, const char *tmp, void *arg), void *arg)
{
	return d->hidden ? make(d->dst_fd, name, arg) : -EEXIST;
}

int fcp_dest_make_for(struct fcp_worker *w, struct fcp_dir *d, const char *name,
		      char tmp[FCP_TMPNAME_MAX], const char **at,
		      int (*make)(int dirfd, const char *tmp, void *arg), void *arg)
{
	int r = make_final(d, name, make, arg);

	if (r != -EEXIST) {
		*at = name;
		return r;
	}
	*at = tmp;
	return fcp_dest_make(w, fcp_tmpname_dir_key(d), d->dst_fd, tmp, make, arg);
}

struct new_file {
	mode_t mode;
	int flags;
};

static int make_file(int dirfd, const char *tmp, void *arg)
{
	const struct new_file *f = arg;

	return fcp_sys_openat(dirfd, tmp, f->flags, f->mode);
}

enum { UNNAMED_UNKNOWN, UNNAMED_EMPTY_PATH, UNNAMED_PROCFS, UNNAMED_NO };

static void link_args(int how, int fd, char buf[32], int *olddir, int *flags)
{
	if (how == UNNAMED_EMPTY_PATH) {
		buf[0] = 0;
		*olddir = fd;
		*flags = AT_EMPTY_PATH;
	} else {
		snprintf(buf, 32, "/proc/self/fd/%d", fd);
		*olddir = AT_FDCWD;
		*flags = AT_SYMLINK_FOLLOW;
	}
}

void fcp_dest_unnamed_link_args(const struct fcp_job *job, int fd, char buf[32], int *olddir,
				int *flags)
{
	link_args(atomic_load(&job->unnamed), fd, buf, olddir, flags);
}

struct link_of_fd {
	int how, fd;
};

static int make_link_of_fd(int dirfd, const char *name, void *arg)
{
	const struct link_of_fd *l = arg;
	char buf[32];
	int olddir, flags;

	link_args(l->how, l->fd, buf, &olddir, &flags);
	return fcp_sys_linkat(olddir, buf, dirfd, name, flags);
}

/* Which way this process may link an unnamed file: AT_EMPTY_PATH needs
 * CAP_DAC_READ_SEARCH before Linux 6.10, the /proc/self/fd path only a
 * mounted /proc. Tried for real once, on a throwaway file in d. */
static int unnamed_probe(struct fcp_worker *w, struct fcp_dir *d)
{
	struct link_of_fd l = { .fd = fcp_sys_openat(d->dst_fd, ".", FCP_DEST_UNNAMED_FLAGS, 0600) };
	int how = UNNAMED_NO;

	for (l.how = UNNAMED_EMPTY_PATH; l.fd >= 0 && l.how <= UNNAMED_PROCFS; l.how++) {
		char tmp[FCP_TMPNAME_MAX];
		if (fcp_dest_make(w, fcp_tmpname_dir_key(d), d->dst_fd, tmp, make_link_of_fd, &l) == 0) {
			fcp_dest_discard(fcp_worker_job(w), d, tmp);
			how = l.how;
			break;
		}
	}
	if (l.fd >= 0)
		close(l.fd);
	return how;
}

bool fcp_dest_unnamed_ok(struct fcp_worker *w, struct fcp_dir *d)
{
	struct fcp_job *job = fcp_worker_job(w);
	int how = atomic_load(&job->unnamed);

	if (!d->created || how == UNNAMED_NO)
		return false;
	if (how == UNNAMED_UNKNOWN) {
		/* Workers that ask at the same time each probe, on their own
		 * throwaway file; the first answer stored is the job's, once
		 * and for all, and everyone uses that one. */
		int unknown = UNNAMED_UNKNOWN, mine = unnamed_probe(w, d);
		atomic_compare_exchange_strong(&job->unnamed, &unknown, mine);
		how = atomic_load(&job->unnamed);
	}
	return how != UNNAMED_NO;
}

int fcp_dest_create(struct fcp_worker *w, struct fcp_dir *d, struct fcp_tmp *t, mode_t mode,
		    const char *name, bool named)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct new_file f = { fcp_dest_open_mode(mode),
			      fcp_dest_flags(job, FCP_DEST_NAMED_FLAGS) };
	int fd;

	t->name[0] = 0;
	t->unnamed = false;
	t->final = NULL;
	t->in_place = false;
	fd = make_final(d, name, make_file, &f);
	if (fd != -EEXIST) {
		t->final = fd >= 0 ? name : NULL;
		return fd;
	}
	t->unnamed = !named && fcp_dest_unnamed_ok(w, d);
	if (t->unnamed) {
		fd = fcp_sys_openat(d->dst_fd, ".", fcp_dest_flags(job, FCP_DEST_UNNAMED_FLAGS),
				    f.mode);
		/* This filesystem may differ from the probe's. */
		if (!fcp_dest_unnamed_refused(fd))
			return fd;
		t->unnamed = false;
	}
	return fcp_dest_make(w, fcp_tmpname_dir_key(d), d->dst_fd, t->name, make_file, &f);
}

/* Rename the complete file from tmp to name; what says why it failed. */
static int commit_tmp(struct fcp_job *job, struct fcp_dir *d, const char *tmp, const char *name,
		      const char **what)
{
	int r = fcp_dest_commit(job, d, tmp, name);

	if (r < 0)
		*what = r == -EISDIR ? "cannot overwrite directory with" : "cannot rename copy of";
	return r;
}

/* Link the complete unnamed file fd as name in d, and close fd. The name
 * can only exist if something outside this job made it in the meantime:
 * then it is replaced like any other, through a temporary name, and only
 * after the close said the data is whole. A close that reports a write
 * error after the link takes the name away again (this job's own, in its
 * own directory). */
static int commit_unnamed(struct fcp_worker *w, struct fcp_dir *d, struct fcp_tmp *t, int fd,
			  const char *name, const char **what)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct link_of_fd l = { .how = atomic_load(&job->unnamed), .fd = fd };
	const char *linked = name;
	int r = make_link_of_fd(d->dst_fd, name, &l), c;

	if (r == -EEXIST) {
		r = fcp_dest_make(w, fcp_tmpname_dir_key(d), d->dst_fd, t->name, make_link_of_fd, &l);
		linked = t->name;
	}
	c = fcp_sys_close(fd);
	if (r < 0) {
		*what = "cannot link copy of";
		return r;
	}
	if (c < 0) {
		fcp_dest_discard(job, d, linked);
		return c;
	}
	return linked == name ? 0 : commit_tmp(job, d, t->name, name, what);
}

int fcp_dest_commit_file(struct fcp_worker *w, struct fcp_dir *d, struct fcp_tmp *t, int fd,
			 const char *name, const char **what)
{
	struct fcp_job *job = fcp_worker_job(w);
	int r;

	*what = "cannot write copy of";
	if (t->in_place)
		return fcp_sys_close(fd);
	if (t->final) {
		r = fcp_sys_close(fd);
		if (r < 0)
			fcp_dest_discard(job, d, t->final);
		return r;
	}
	if (t->unnamed)
		return commit_unnamed(w, d, t, fd, name, what);
	r = fcp_sys_close(fd);
	if (r < 0) {
		fcp_dest_discard(job, d, t->name);
		return r;
	}
	return commit_tmp(job, d, t->name, name, what);
}

void fcp_dest_discard_file(struct fcp_job *job, struct fcp_dir *d, struct fcp_tmp *t, int fd)
{
	if (fd >= 0)
		close(fd);
	if (t->in_place) /* the user's file: left as the failure left it */
		return;
	if (t->name[0])
		fcp_dest_discard(job, d, t->name);
	if (t->final)
		fcp_dest_discard(job, d, t->final);
	t->name[0] = 0;
	t->unnamed = false;
	t->final = NULL;
}

static bool special(mode_t m)
{
	return !S_ISREG(m) && !S_ISDIR(m) && !S_ISLNK(m);
}

/*
 * A FIFO, device or socket at name is replaced only by one of its own kind
 * (archive mode re-creates it): anything else there is most likely a
 * mistake (`fastcp disk.img /dev/sdX`), and removing a device node cannot
 * be undone. Then the new inode tmp is refused (reported here, with the
 * destination's path) and FCP_ERR_REFUSED returned. Asked only when a
 * rename without replacement found the name taken, or cannot be had here.
 */
static int refuse_special(struct fcp_job *job, struct fcp_dir *d, const char *tmp,
			  const char *name)
{
	struct statx old, new;
	char *p;

	if (fcp_sys_statx(d->dst_fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &old) < 0 ||
	    !special(old.stx_mode) ||
	    fcp_sys_statx(d->dst_fd, tmp, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &new) < 0 ||
	    (old.stx_mode & S_IFMT) == (new.stx_mode & S_IFMT))
		return 0;
	p = fcp_dir_dst_path(d, name);
	fcp_report_refused(job, "will not replace special file", p ? p : name,
			   fcp_file_kind_name(new.stx_mode, false), "remove it first");
	free(p);
	return FCP_ERR_REFUSED;
}

/* rename(RENAME_NOREPLACE), or -EINVAL where this job learnt that the
 * destination's rename takes no flags (EINVAL; ENOSYS from old kernels):
 * asked once, then remembered (rename_noreplace() below says why). */
static int rename_flagged(struct fcp_job *job, int dirfd, const char *old, const char *new)
{
	int r;

	if (atomic_load(&job->rename_flags_refused))
		return -EINVAL;
	r = fcp_sys_renameat(dirfd, old, dirfd, new, RENAME_NOREPLACE);
	if (r != -EINVAL && r != -ENOSYS)
		return r;
	atomic_store(&job->rename_flags_refused, true);
	return -EINVAL;
}

/* The end of every commit: a directory in the way is -EISDIR, and a
 * failed one's inode goes. */
static int committed(struct fcp_job *job, struct fcp_dir *d, const char *tmp, int r)
{
	if (r == -ENOTEMPTY || r == -EEXIST)
		r = -EISDIR;
	if (r < 0)
		fcp_dest_discard(job, d, tmp);
	return r;
}

int fcp_dest_commit_taken(struct fcp_job *job, struct fcp_dir *d, const char *tmp,
			  const char *name)
{
	int r = refuse_special(job, d, tmp, name);

	if (r == 0)
		r = fcp_sys_renameat(d->dst_fd, tmp, d->dst_fd, name, 0);
	return committed(job, d, tmp, r);
}

int fcp_dest_commit(struct fcp_job *job, struct fcp_dir *d, const char *tmp, const char *name)
{
	int r;

	/* A directory read before with nothing special in it: one plain
	 * rename, which replaces a file there. */
	if (d->no_special)
		return committed(job, d, tmp, fcp_sys_renameat(d->dst_fd, tmp, d->dst_fd, name, 0));
	/* Nothing in the way, the common case: one call. Something there, or
	 * a filesystem whose rename takes no flags (rename_noreplace() below):
	 * look at it first. */
	r = rename_flagged(job, d->dst_fd, tmp, name);
	if (r == -EEXIST || r == -EINVAL)
		return fcp_dest_commit_taken(job, d, tmp, name);
	return committed(job, d, tmp, r);
}

void fcp_dest_discard(struct fcp_job *job, struct fcp_dir *d, const char *name)
{
	int r = fcp_sys_unlinkat(d->dst_fd, name, 0);

	/* A leftover in the destination fails the job, even where the
	 * item it belonged to did not (the probe's throwaway link). */
	if (r < 0 && r != -ENOENT)
		fcp_report_leftover_in(job, "cannot remove unfinished file", d, name, r);
}

bool fcp_dest_has_default_acl(int dirfd)
{
	void *val = NULL;
	ssize_t n = fcp_sys_getxattr(dirfd, -1, NULL, "system.posix_acl_default", &val);

	free(val);
	return n > 0;
}

int fcp_dest_mkdir(int dirfd, const char *name, bool *created)
{
	int r = fcp_sys_mkdirat(dirfd, name, 0700);

	*created = r == 0;
	if (r < 0 && r != -EEXIST)
		return r;
	r = fcp_sys_openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	if (r == -ELOOP)
		r = -ENOTDIR;
	return r;
}

static int make_dir(int dirfd, const char *tmp, void *arg)
{
	(void)arg;
	return fcp_sys_mkdirat(dirfd, tmp, 0700);
}

char *fcp_root_marker(const struct fcp_root *root, bool with_name, int dirfd, bool deletes,
		      size_t *len)
{
	const char *name = with_name && root->name ? root->name : "";
	char *s = NULL;
	int n;

	char bt[40] = "-";

	/* The name first, NUL-ended: a marker of an earlier version (the
	 * name alone, or dev:ino:path) never equals one of these. */
	if (root->src_strong)
		snprintf(bt, sizeof(bt), "%lld.%09u", (long long)root->src_btime.tv_sec,
			 root->src_btime.tv_nsec);
	/* The marked directory's own key (tmpname.h) first: a copy of it
	 * (cp -a keeps user xattrs) is another directory, and its marker
	 * then says nothing of it. */
	n = asprintf(&s, "%s%c%08x%s:%llx:%llu:%s:%s", name, 0, fcp_tmpname_key(dirfd),
		     deletes ? "d" : "", (unsigned long long)root->src_fs,
		     (unsigned long long)root->src_ino, bt, root->src_abs ? root->src_abs : "");
	if (n < 0)
		return NULL;
	*len = with_name ? (size_t)n : (size_t)n - strlen(name) - 1;
	if (!with_name)
		memmove(s, s + strlen(name) + 1, *len + 1);
	return s;
}

/*
 * dev:ino:path does not tell one source from another: two cards mounted in
 * turn on one device and mount point have the same device, root inode and
 * path, and a directory removed and made again often gets its inode back.
 * The birth time (nanoseconds on ext4, XFS, btrfs; 10 ms on FAT) differs
 * for both, and survives a remount of the same card; the filesystem's
 * f_fsid (from the UUID on ext4, XFS, btrfs) in place of the device number
 * lets the same card match when mounted from another device. Without a
 * birth time the identity is weak: a copy it matches is held, not taken
 * up (leftover.c).
 */
void fcp_root_identify(struct fcp_root *root, const char *src, int sflags,
		       const struct statx *st)
{
	struct statx b;
	uint64_t fs = 0;

	root->src_dev = fcp_statx_dev(st);
	root->src_ino = st->stx_ino;
	root->src_dir = S_ISDIR(st->stx_mode);
	root->src_fs = fcp_sys_fs_id(src, &fs) == 0 && fs ? fs : root->src_dev;
	root->src_strong = fcp_sys_statx(AT_FDCWD, src, sflags, STATX_BTIME | STATX_INO, &b) == 0 &&
			   (b.stx_mask & STATX_BTIME) && b.stx_ino == st->stx_ino &&
			   (b.stx_btime.tv_sec || b.stx_btime.tv_nsec);
	if (root->src_strong)
		root->src_btime = b.stx_btime;
}

/* Set the markers of the new hidden copy fd of root: which source it is a
 * copy of and under which name (leftover.c), and the same identity to find
 * the copy by once it has its name (job.c): a run stopped after the rename
 * has a copy under its final name that the same command must go on into,
 * not into a copy of it. Without user xattrs it stays a leftover to name. */
static void mark(const struct fcp_job *job, int fd, struct fcp_root *root)
{
	size_t len;
	char *v = fcp_root_marker(root, true, fd, false, &len);

	root->unmarked = !v || fcp_sys_fsetxattr(fd, FCP_ROOT_MARKER, v, len) < 0;
	free(v);
	v = fcp_root_marker(root, false, fd, job->o->delete_extra, &len);
	if (v)
		fcp_sys_fsetxattr(fd, FCP_MOVE_MARKER, v, len);
	free(v);
}

/* The hidden copy of a stopped run, found by the leftover scan, is
 * finished instead of a new one made (leftover.c): its lock passes on. */
static int adopt(struct fcp_root *root, bool *created, char tmp[FCP_TMPNAME_MAX])
{
	int fd = root->adopt_fd;

	snprintf(tmp, FCP_TMPNAME_MAX, "%s", root->adopt_name);
	root->adopt_fd = -1;
	root->adopted = true;
	*created = false;
	return fd;
}

int fcp_dest_mkdir_hidden(struct fcp_worker *w, struct fcp_root *root, int dirfd,
			  const char *name, bool *created, char tmp[FCP_TMPNAME_MAX])
{
	struct statx st;
	int r;

	tmp[0] = 0;
	/* Whatever is in the way (a directory to copy into, a non-directory
	 * or a symlink to refuse, an error) is the usual case's. */
	if (fcp_sys_statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) != -ENOENT)
		return fcp_dest_mkdir(dirfd, name, created);
	/* Said and counted once by the scan: no second hidden copy. */
	if (root->held)
		return -ECANCELED;
	if (root->adopt_fd >= 0) {
		r = adopt(root, created, tmp);
		/* Taken up by a --move: found again if it is killed later. */
		if (fcp_worker_job(w)->o->move)
			mark(fcp_worker_job(w), r, root);
		return r;
	}
	r = fcp_dest_make(w, fcp_tmpname_key(dirfd), dirfd, tmp, make_dir, NULL);
	if (r == 0)
		r = fcp_sys_openat(dirfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	/* Held while this job runs (root->dst_fd shares it): another run
	 * that finds this directory sees it is no leftover (leftover.c).
	 * Where locks are not supported, that run names it wrongly; no more. */
	if (r >= 0)
		fcp_sys_flock(r, LOCK_EX | LOCK_NB);
	if (r >= 0)
		mark(fcp_worker_job(w), r, root);
	*created = r >= 0;
	if (r < 0) {
		if (tmp[0])
			fcp_sys_unlinkat(dirfd, tmp, AT_REMOVEDIR);
		tmp[0] = 0;
	}
	return r;
}

/*
 * Rename old to new in dirfd, never over an existing new. NFS, 9p and FUSE
 * daemons without rename2 take no rename flags (EINVAL; ENOSYS from old
 * kernels): then, and from then on in this job (whose root copies all go
 * into one destination directory, so one filesystem), the name is checked
 * and a plain rename follows. Between the two, a name made by someone else
 * could be replaced; old is a directory, and a rename over a non-empty
 * directory or a non-directory fails, so what could be lost in that window
 * of a few microseconds is an empty directory made in it. No emulation
 * closes it for a directory (there is no link()).
 */
static int rename_noreplace(struct fcp_job *job, int dirfd, const char *old, const char *new)
{
	struct statx st;
	int r;

	r = rename_flagged(job, dirfd, old, new);
	if (r != -EINVAL)
		return r;
	r = fcp_sys_statx(dirfd, new, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st);
	if (r != -ENOENT)
		return r < 0 ? r : -EEXIST;
	r = fcp_sys_renameat(dirfd, old, dirfd, new, 0);
	return r == -ENOTEMPTY || r == -ENOTDIR || r == -EISDIR ? -EEXIST : r;
}

/* The full path of d's hidden copy, for the message at the job's end:
 * beside the absolute destination path, or as the user spelled it. */
static char *hidden_path(const struct fcp_dir *d)
{
	const char *abs = d->root->dst_abs, *slash = abs ? strrchr(abs, '/') : NULL;
	char *s;

	if (!slash)
		return fcp_dir_dst_path(d->parent, d->hidden_name);
	if (asprintf(&s, "%.*s/%s", (int)(slash - abs), abs, d->hidden_name) < 0)
		return NULL;
	return s;
}

static void mark_done(const struct fcp_dir *d)
{
	size_t len;
	char *v = fcp_root_marker(d->root, true, d->dst_fd, false, &len);

	if (v)
		fcp_sys_fsetxattr(d->dst_fd, FCP_DONE_MARKER, v, len);
	free(v);
}

void fcp_dest_note_hidden(struct fcp_job *job, struct fcp_dir *d)
{
	char *p = hidden_path(d), *then = NULL;

	/* As fcp_report_left says it once the copy stops. */
	if (!(d->root->src_strong && !d->root->unmarked) &&
	    asprintf(&then, "once renamed to '%s', the same command with --sync finishes it",
		     d->root->name ? d->root->name : "?") < 0)
		then = NULL;
	/* The signal handler is the program's (job.c): through the job's
	 * upcall, as dest stands below it (none: no handler to tell). */
	fcp_up_signal_note(job, d->root, d->root->src_arg, p ? p : d->hidden_name,
			   then ? then : "the same command finishes it");
	free(then);
	free(p);
}

static void unmark(struct fcp_job *job, const struct fcp_dir *d, const char *marker)
{
	int r = fcp_sys_removexattr(d->dst_fd, -1, NULL, marker);

	if (r < 0 && r != -ENODATA && r != -EOPNOTSUPP)
		fcp_report_failed_in(job, "cannot remove the marker of", d->parent, d->dst_name,
				     true, r);
}

void fcp_dest_unhide(struct fcp_job *job, struct fcp_dir *d)
{
	struct fcp_dir *p = d->parent;
	unsigned long long failed = atomic_load(&d->root->failed);
	char *left;
	int r;

	/* A copy that was stopped (a signal, a full or read-only DEST) is not
	 * whole: it keeps its hidden name, the job says where it is, and the
	 * same command takes it up. Failed items alone do not hold back the
	 * rest, as in cp and rsync; unless --atomic. */
	if (atomic_load(&job->stop) || (failed && job->o->atomic) || atomic_load(&d->root->stale)) {
		d->root->left = hidden_path(d);
		if (!d->root->left)
			d->root->left = strdup(d->hidden_name);
		return;
	}
	/* The name first, then the marker goes: a copy is never hidden and
	 * unmarked at once, which no later run could tell from a stranger's
	 * and take up (a kill between the two, with the marker first, left
	 * a whole copy hidden beside the one the same command made again).
	 * Killed after the rename, the copy under its name still carries
	 * FCP_MOVE_MARKER, by which the same command goes on into it, and
	 * that run's end removes both (job.c). */
	r = rename_noreplace(job, p->dst_fd, d->hidden_name, d->dst_name);
	/* (With --fsync, the job syncs the parent, a top directory, at its
	 * end.) */
	if (r == 0) {
		fcp_up_signal_note(job, d->root, NULL, NULL, NULL);
		unmark(job, d, FCP_ROOT_MARKER);
		if (failed)
			fcp_report_named_partial(job, d->root->src_arg, p, d->dst_name, failed);
		return;
	}
	/* Someone made the name while the copy was made: neither is lost.
	 * Later runs name this one as finished, never as interrupted: the
	 * finished marker goes on before the other comes off. */
	mark_done(d);
	unmark(job, d, FCP_ROOT_MARKER);
	fcp_report_leftover_in(job, "cannot give the finished copy its name", p, d->dst_name, r);
	left = hidden_path(d);
	fcp_report_errorf(job, "the copy is left as '%s'", left ? left : d->hidden_name);
	free(left);
}
