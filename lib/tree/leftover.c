/*
 * leftover.c - find what killed runs left in the destination, and say so.
 *
 * A run killed outright (SIGKILL, a crash, a power cut) cannot clean up:
 * its unfinished root copy stays as a .fcp-* directory beside the
 * destination name, and in directories that already existed its temporary
 * files stay under .fcp-* names (unnamed files in new directories leave
 * nothing). Every run looks for them where it copies: the directory where
 * its root copies go, and each destination directory that existed, read
 * before anything of this run can be in it; what it finds it finishes,
 * removes or names, as below.
 *
 * The same reading tells whether the directory holds a FIFO, device or
 * socket: where it holds none, commits rename plainly (dest.c).
 *
 * A name of the temporary shape proves neither that fastcp made it nor
 * that the run that made it is dead: a run going on now holds a lock on
 * its hidden root copy (fcp_dest_mkdir_hidden), so that one is left out,
 * but its temporary files look like any leftover (a second run into the
 * same directory may remove one; the first then fails that file at its
 * rename, and loses nothing).
 *
 * Every run that copies (not --dry-run) finishes a stopped run's hidden
 * root copy of a name it copies, so that the same command again never
 * makes a second one: a directory of the temporary shape, owned by this
 * user, not locked, whose marker xattr (FCP_ROOT_MARKER, set when it was
 * made) is that name and the identity of this very source root (its
 * path, inode, birth time and filesystem: fcp_root_identify). A copy of
 * another source made for the same name (another card's DCIM, or the
 * source directory removed and made again) is never taken up: it is
 * named, with its source. Where the source's filesystem gives no birth
 * time, a matching copy is held: neither taken up nor a second one made
 * (hold). Its files under final names are either
 * finished or have an mtime not yet set (the mtime is set last, on every
 * path), so the quick check, which a taken-up copy always uses (plan.c),
 * redoes exactly the unfinished ones. On a filesystem without user
 * xattrs, hidden copies stay leftovers to name.
 *
 * A name the source has (or a root of the run) is the copy's own, never a
 * leftover: neither named nor removed; so are the job's own files
 * (--manifest, --log, --events: own.h), whatever their names. A name's shape alone never gets a
 * file removed: a user may name a file so. Temporary names of killed runs
 * (non-directories of the exact shape owned by this user; a symlink is
 * removed, never followed) that the source lacks are removed where fastcp
 * can tell it made them: by the tag in their name, which ties it to the
 * directory it was made in (tmpname.h: a user's file has it once in
 * 2^32, and a copy of a leftover made anywhere else does not have it),
 * in any directory the run walks;
 * and inside a taken-up copy, which fastcp made and marked. Elsewhere (an
 * earlier version's names, or a user's file of that shape) they are only
 * named; with --sync --delete (--mirror) they are not the scan's at all
 * but names the source lacks like any other (delete.c): left alone when
 * the filters exclude them, backed up with --backup, counted against
 * --max-delete and listed by --dry-run. An empty, unmarked hidden copy
 * (killed between its mkdir and its marker) is removed when its name
 * carries the tag.
 * --dry-run changes nothing: it only names them; --check says
 * those inside DEST as extras (delete.c).
 *
 * --resume keeps the large files of killed runs (".fcp-resume-*", with a
 * record of their progress) whose record still matches their source: the
 * copy of that source takes them up (resume.c). Others go as above.
 */
#include "tree/delete.h"
#include "dest/dest.h"
#include "core/job.h"
#include "dest/manifest.h"
#include "dest/own.h"
#include "tree/merge.h"
#include "core/node.h"
#include "core/observe.h"
#include "dest/resume.h"
#include "base/sys.h"
#include "core/upcalls.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

bool fcp_leftover_mine(const struct fcp_job *job, int dirfd, const char *name)
{
	return fcp_tmpname_of_job(job, name) || fcp_tmpname_made_here(dirfd, name) ||
	       fcp_resume_recorded(dirfd, name);
}

/* Is the directory name in dirfd the hidden copy of a run going on now? */
static bool in_use(int dirfd, const char *name)
{
	int fd = fcp_sys_openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	bool busy = fd >= 0 && fcp_sys_flock(fd, LOCK_SH | LOCK_NB) == -EWOULDBLOCK;

	if (fd >= 0)
		close(fd);
	return busy;
}

/* The source path in the marker of the hidden copy name in dirfd (after
 * the final name and "key:fs:ino:btime:"), or NULL: none, or an earlier
 * version's. *taken: the final name it is marked with exists now (its
 * copy cannot get that name: the source's copy goes into what is there).
 * *done: the copy was finished but lost its name to another run. */
static char *marked_source(int dirfd, const char *name, bool *taken, bool *done)
{
	int fd = fcp_sys_openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	void *val = NULL;
	ssize_t len = fd >= 0 ? fcp_sys_getxattr(fd, -1, NULL, FCP_ROOT_MARKER, &val) : -1;
	char *v, *end, *p, *src = NULL;
	struct statx st;

	*done = false;
	if (len <= 0 && fd >= 0) {
		free(val);
		val = NULL;
		len = fcp_sys_getxattr(fd, -1, NULL, FCP_DONE_MARKER, &val);
		*done = len > 0;
	}
	v = val;
	end = v && len > 0 ? v + len : v;
	p = v ? memchr(v, 0, end - v) : NULL;
	*taken = p && fcp_sys_statx(dirfd, v, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) == 0;
	for (int colons = 0; p && p < end && colons < 4; p++)
		colons += *p == ':';
	if (p && p < end)
		src = strndup(p, end - p);
	free(val);
	if (fd >= 0)
		close(fd);
	return src;
}

static void found(struct fcp_job *job, const struct fcp_dir *d, const char *abs_dir,
		  const char *name, bool dir, bool sure)
{
	char *path = NULL, *of;
	bool taken = false, done = false;

	if (atomic_fetch_add(&job->c.leftovers, 1) >= FCP_LEFTOVERS_NAMED)
		return;
	if (!abs_dir || asprintf(&path, "%s/%s", abs_dir, name) < 0)
		path = fcp_dir_dst_path(d, name);
	of = dir ? marked_source(d->dst_fd, name, &taken, &done) : NULL;
	if (done)
		fcp_report_lost_name(job, path ? path : name, of);
	else
		fcp_report_leftover(job, path ? path : name, dir, of, taken, sure);
	free(of);
	free(path);
}

/* What refuse_special() (dest.c) would have to look at. */
static bool maybe_special(unsigned char type)
{
	return type != DT_REG && type != DT_DIR && type != DT_LNK;
}

/* --sync: remove the temporary name of d, when it is one of a killed run:
 * a non-directory fastcp made there (a file, or a symlink, FIFO or device made under
 * a temporary name before its rename), looked at without following; the
 * unlink removes a symlink itself, never what it points to. */
static bool removed(struct fcp_job *job, const struct fcp_dir *d, const char *abs_dir,
		    const char *name)
{
	struct statx st;
	char *path = NULL;
	int r;

	if (fcp_sys_statx(d->dst_fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_UID, &st) < 0 ||
	    S_ISDIR(st.stx_mode) || st.stx_uid != job->euid)
		return false;
	r = fcp_sys_unlinkat(d->dst_fd, name, 0);
	if (r < 0 && r != -ENOENT)
		return false;
	if (!abs_dir || asprintf(&path, "%s/%s", abs_dir, name) < 0)
		path = fcp_dir_dst_path(d, name);
	pthread_mutex_lock(&job->err_lock);
	fcp_up_clear_line(job);
	fprintf(job->err, "fastcp: removed '%s', a temporary file left by an interrupted run "
			  "(the source lacks it)\n", path ? path : name);
	pthread_mutex_unlock(&job->err_lock);
	free(path);
	return true;
}

/* Is val (len bytes) the marker root's copy, the directory fd, would have? */
static bool marks(const struct fcp_root *root, int fd, const void *val, ssize_t len)
{
	size_t n;
	char *want = root->name ? fcp_root_marker(root, true, fd, false, &n) : NULL;
	bool same = want && (size_t)len == n && !memcmp(want, val, n);

	free(want);
	return same;
}

/* The root of roots[0..n) whose marker (name and source) is on directory
 * fd and that has no copy of its own yet, or NULL. */
static struct fcp_root *marked_for(int fd, struct fcp_root **roots, int n, bool *marked,
				   bool *unsupported)
{
	void *val = NULL;
	ssize_t len = fcp_sys_getxattr(fd, -1, NULL, FCP_ROOT_MARKER, &val);
	struct fcp_root *found = NULL;

	*marked = len >= 0;
	*unsupported = len == -EOPNOTSUPP;
	for (int i = 0; len > 0 && i < n && !found; i++)
		if (roots[i]->adopt_fd < 0 && !roots[i]->held && marks(roots[i], fd, val, len))
			found = roots[i];
	free(val);
	return found;
}

/* Say that the hidden copy name of d is the one root's copy finishes:
 * where the copy comes from is never a surprise. */
static void say_taken(struct fcp_job *job, const struct fcp_dir *d, const char *abs_dir,
		      const char *name, const struct fcp_root *root)
{
	char *path = NULL;

	if (!abs_dir || asprintf(&path, "%s/%s", abs_dir, name) < 0)
		path = fcp_dir_dst_path(d, name);
	pthread_mutex_lock(&job->err_lock);
	fcp_up_clear_line(job);
	fprintf(job->err, "fastcp: finishing '%s', the copy of '%s' that an interrupted run "
			  "left\n", path ? path : name, root->src_arg);
	pthread_mutex_unlock(&job->err_lock);
	free(path);
}

/* Is root's copy a new hidden one, its name free in d? */
static bool name_free(const struct fcp_dir *d, const struct fcp_root *root)
{
	struct statx at;

	return root->src_dir && !root->held && root->adopt_fd < 0 && d->dst_fd >= 0 &&
	       fcp_sys_statx(d->dst_fd, root->name, AT_SYMLINK_NOFOLLOW, STATX_TYPE,
			     &at) == -ENOENT;
}

/* The hidden copy name of d may be root's, but nothing can tell: its
 * marker matches root's weak identity (no birth time: another card's copy
 * of the same path marks the same), or the filesystem keeps no marker at
 * all. Finishing it could overwrite another card's files in it, and a new
 * copy beside it would be a second hidden copy: neither; the root fails
 * and the user, who knows which it is, decides. */
static void hold(struct fcp_job *job, const struct fcp_dir *d, const char *abs_dir,
		 const char *name, struct fcp_root *root, bool unmarked)
{
	const char *why = unmarked ? "this destination keeps no extended attributes to tell"
				   : "the source's filesystem gives no birth time to tell it from "
				     "another source of that path";
	char *path = NULL;

	if (!abs_dir || asprintf(&path, "%s/%s", abs_dir, name) < 0)
		path = fcp_dir_dst_path(d, name);
	if (!path && !(path = strdup(name)))
		return;
	root->held = path;
	atomic_fetch_add(&root->failed, 1);
	atomic_fetch_add(&job->c.failed, 1);
	fcp_report_errorf(job, "not copied: '%s': '%s' may be the unfinished copy of it that an "
			  "interrupted run left, but %s; if it is, rename it to '%s' and run the "
			  "command again with --sync to finish it; if not, remove it first",
			  root->src_arg, path, why, root->name);
}

static char *leftover_path(const struct fcp_dir *d, const char *abs_dir, const char *name);

/* A stopped run's hidden copy, directory name in d: kept locked for the
 * root it is marked for (true), removed when empty and unmarked (true),
 * or left to be named (false). On a destination without user
 * xattrs, every root that would make a new hidden copy is held by it
 * (true): never a second hidden copy of one source. */
static bool adopted(struct fcp_job *job, const struct fcp_dir *d, const char *abs_dir,
		    const char *name, struct fcp_root **roots, int n)
{
	int fd = fcp_sys_openat(d->dst_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	struct fcp_root *root;
	struct statx st, at;
	bool marked, unsupported, held = false;

	if (fd < 0)
		return false;
	/* Ours, and still the name's inode; a run going on holds it locked. */
	if (fcp_sys_fstatx(fd, &st) < 0 || st.stx_uid != job->euid ||
	    fcp_sys_flock(fd, LOCK_EX | LOCK_NB) < 0 ||
	    fcp_sys_statx(d->dst_fd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &at) < 0 ||
	    !fcp_statx_same_inode(&st, &at)) {
		close(fd);
		return false;
	}
	root = marked_for(fd, roots, n, &marked, &unsupported);
	/* Empty and unmarked: killed between its mkdir and its marker, or
	 * before anything was written. Nothing of anyone's is in it, and a
	 * run going on would hold its lock: it goes, so the same command
	 * never leaves it beside its copy. Not one made since this job began:
	 * another run going on now may be between its mkdir and its lock
	 * (two runs into one directory at once; its copy then failed). Only
	 * a name with the tag: a user's empty directory of that shape stays. */
	if (!marked && fcp_tmpname_made_here(d->dst_fd, name) && (st.stx_ctime.tv_sec < job->began.tv_sec ||
			(st.stx_ctime.tv_sec == job->began.tv_sec &&
			 st.stx_ctime.tv_nsec < job->began.tv_nsec)) &&
	    fcp_sys_unlinkat(d->dst_fd, name, AT_REMOVEDIR) == 0) {
		close(fd);
		return true;
	}
	for (int i = 0; unsupported && i < n; i++)
		if (name_free(d, roots[i])) {
			hold(job, d, abs_dir, name, roots[i], true);
			held = true;
		}
	if (root && !root->src_strong && name_free(d, root)) {
		hold(job, d, abs_dir, name, root, false);
		held = true;
	}
	/* Only where the copy's own name is still free: else the copy goes
	 * into what is there, and this one is a leftover to name. */
	if (!held && root && root->src_strong && name_free(d, root) &&
	    (root->adopt_name = strdup(name))) {
		root->adopt_fd = fd;
		say_taken(job, d, abs_dir, name, root);
		return true;
	}
	/* Its name taken meanwhile (another source of that name copied
	 * there): this run copies the source into what is there, after which
	 * this copy holds nothing of the source that the name lacks. Kept
	 * locked till then (fcp_leftover_superseded): the same command again
	 * leaves no hidden copy. */
	if (!held && root && root->src_strong && root->src_dir && !root->superseded &&
	    !name_free(d, root) && (root->superseded = leftover_path(d, abs_dir, name))) {
		root->superseded_fd = fd;
		return true;
	}
	close(fd);
	return held;
}

static char *leftover_path(const struct fcp_dir *d, const char *abs_dir, const char *name)
{
	char *path = NULL;

	if (!abs_dir || asprintf(&path, "%s/%s", abs_dir, name) < 0)
		path = fcp_dir_dst_path(d, name);
	return path;
}

void fcp_leftover_superseded(struct fcp_job *job, struct fcp_dir *top, struct fcp_root *root,
			     bool whole)
{
	const char *slash = root->superseded ? strrchr(root->superseded, '/') : NULL;
	const char *name = slash ? slash + 1 : root->superseded;
	struct statx st, at;
	char *dir;
	int r = -ESTALE;

	if (!root->superseded)
		return;
	/* Still the copy the scan locked, under that name. */
	if (whole && top->dst_fd >= 0 && fcp_sys_fstatx(root->superseded_fd, &st) == 0 &&
	    fcp_sys_statx(top->dst_fd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &at) == 0 &&
	    fcp_statx_same_inode(&st, &at))
		r = fcp_delete_leftover(job, top->dst_fd, name, root->superseded);
	close(root->superseded_fd);
	root->superseded_fd = -1;
	if (r == 0) {
		pthread_mutex_lock(&job->err_lock);
		fcp_up_clear_line(job);
		fprintf(job->err, "fastcp: removed '%s', the unfinished copy of '%s' that an "
				  "interrupted run left: that source is copied whole into '%s' now\n",
			root->superseded, root->src_arg, root->name);
		pthread_mutex_unlock(&job->err_lock);
	} else if (r == -ESTALE) {
		dir = slash ? strndup(root->superseded, slash - root->superseded) : NULL;
		found(job, top, dir, name, true, true);
		free(dir);
	}
	free(root->superseded);
	root->superseded = NULL;
}

/* Are the temporary files of killed runs in d removed? A name's shape
 * proves nothing (a user may name a file so, or copy a leftover); its
 * tag for this directory does (fcp_tmpname_made_here), a
 * resumable file's record does, and so does a taken-up copy, which
 * fastcp made and marked. Never beside the roots (the directory above
 * DEST's copies, which no option hands to fastcp). */
static bool tidies(const struct fcp_job *job, const struct fcp_dir *d, const char *name)
{
	return !d->is_top && ((d->root && d->root->adopted) || fcp_leftover_mine(job, d->dst_fd, name));
}

/* Is name of d, not provably fastcp's, one that --sync --delete judges
 * as any other name the source lacks (delete.c)? Then it is not the
 * scan's: the filters, --backup, --max-delete and --dry-run apply to it
 * as to any extra, and it is not called a leftover. */
static bool deletes_as_extra(const struct fcp_job *job, const struct fcp_dir *d, const char *name)
{
	return job->o->sync && job->o->delete_extra && !job->o->check && !d->is_top &&
	       !(d->root && d->root->adopted) && !fcp_leftover_mine(job, d->dst_fd, name);
}

/* Has the source of d (or a root the scan is for) the name? Then it is
 * the copy's own name, never a leftover. One that cannot be asked may. */
static bool source_has(struct fcp_job *job, const struct fcp_dir *d, const char *name,
		       struct fcp_root **roots, int n)
{
	struct fcp_others o;
	struct statx st;
	bool has;
	int r;

	for (int i = 0; i < n; i++)
		if (roots[i]->name && !strcmp(roots[i]->name, name))
			return true;
	if (d->is_top || d->src_fd < 0)
		return false;
	r = fcp_sys_statx(d->src_fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st);
	if (r != -ENOENT)
		return true;
	/* Another SOURCE merging into this copy may have it (--delete). */
	if (!job->merge || !d->root || fcp_others_open(job, d, &o) < 0)
		return job->merge != NULL;
	has = fcp_others_have(&o, name);
	fcp_others_close(&o);
	return has;
}

/* Said at the start, once: where a new hidden copy cannot be marked, a
 * kill leaves a copy that nothing takes up (and that holds every later
 * copy of a directory there until the user renames or removes it). */
static void warn_unmarkable(struct fcp_job *job, const struct fcp_dir *d, const char *abs_dir,
			    struct fcp_root **roots, int n)
{
	void *val = NULL;
	bool hidden = false;

	for (int i = 0; i < n; i++)
		hidden |= name_free(d, roots[i]);
	if (!hidden || job->o->dry_run ||
	    fcp_sys_getxattr(d->dst_fd, -1, NULL, FCP_ROOT_MARKER, &val) != -EOPNOTSUPP) {
		free(val);
		return;
	}
	pthread_mutex_lock(&job->err_lock);
	fcp_up_clear_line(job);
	fprintf(job->err, "fastcp: '%s' keeps no extended attributes: a copy interrupted here "
			  "cannot be taken up by the same command, and its hidden copy holds back "
			  "later copies of directories into it until it is renamed or removed\n",
		abs_dir ? abs_dir : ".");
	pthread_mutex_unlock(&job->err_lock);
}

bool fcp_leftover_scan(struct fcp_job *job, const struct fcp_dir *d, const char *abs_dir,
		       struct fcp_root **roots, int n)
{
	int fd = fcp_sys_openat(d->dst_fd, ".", O_RDONLY | O_DIRECTORY, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	bool special = false;
	int r;

	/* Only a report: a directory that cannot be read here is the copy's
	 * to report, if it matters to it. */
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return true;
	}
	warn_unmarkable(job, d, abs_dir, roots, n);
	while ((r = fcp_sys_readdir(dir, &de)) > 0) {
		struct statx st;
		bool is_dir = de->d_type == DT_DIR;

		special |= maybe_special(de->d_type);
		if (!(fcp_tmpname_shaped(de->d_name) || fcp_resume_shaped(de->d_name)) ||
		    fcp_tmpname_of_job(job, de->d_name) ||
		    fcp_own_name(job, d->dst_dev, d->dst_ino, de->d_name) ||
		    source_has(job, d, de->d_name, roots, n))
			continue;
		/* --resume: a killed run's large file this run finishes. */
		if (fcp_resume_keep(job, d, de->d_name, roots, n) ||
		    deletes_as_extra(job, d, de->d_name))
			continue;
		if (de->d_type == DT_UNKNOWN)
			is_dir = fcp_sys_statx(d->dst_fd, de->d_name, AT_SYMLINK_NOFOLLOW, STATX_TYPE,
					       &st) == 0 && S_ISDIR(st.stx_mode);
		if (!job->o->dry_run && (is_dir ? adopted(job, d, abs_dir, de->d_name, roots, n)
						: tidies(job, d, de->d_name) &&
							  removed(job, d, abs_dir, de->d_name)))
			continue;
		/* --check says it as an extra in DEST (delete.c). */
		if (job->o->check && !d->is_top)
			continue;
		if (!is_dir || !in_use(d->dst_fd, de->d_name))
			found(job, d, abs_dir, de->d_name, is_dir,
			      is_dir ? fcp_leftover_mine(job, d->dst_fd, de->d_name)
				     : tidies(job, d, de->d_name));
	}
	closedir(dir);
	/* A read error part way leaves names unseen. */
	special |= r < 0;
	return special;
}

void fcp_leftover_drop_unconfirmed(struct fcp_job *job, struct fcp_dir *d, const char *name)
{
	struct statx st;
	int r;

	/* A temporary name may be one of this job's own, in flight. */
	if (!name || d->is_top || d->dst_fd < 0 || job->o->dry_run || !strncmp(name, ".fcp-", 5)) {
		atomic_store(&d->root->stale, true);
		return;
	}
	r = fcp_sys_statx(d->dst_fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st);
	if (r == 0 && S_ISDIR(st.stx_mode))
		r = fcp_delete_entry(job, d, name);
	else if (r == 0 && (r = fcp_sys_unlinkat(d->dst_fd, name, 0)) == 0)
		fcp_manifest_forget(job, d, name, false);
	if (r < 0 && r != -ENOENT)
		atomic_store(&d->root->stale, true);
}
