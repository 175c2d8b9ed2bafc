/*
 * dest.h - the safe destination: directory fd + name, temporary names,
 * rename into place.
 *
 * Every destination call is an *at() call on a directory fd this job opened
 * itself with O_NOFOLLOW, so a symlink planted inside the destination can
 * never redirect a write outside it. New inodes appear under a temporary
 * name (".fcp-...") and are renamed to their final name only when complete.
 * A root copy that did not exist is made the same way, as a whole: a
 * directory under a temporary name, renamed when everything in it is done,
 * so inside it every name can be final at once.
 */
#ifndef FCP_DEST_H
#define FCP_DEST_H

#include "core/job.h"

#include <errno.h>
#include <fcntl.h>

#define FCP_TMPNAME_MAX 64

/*
 * Where a new regular file is until it is complete. In a hidden directory
 * (struct fcp_dir: inside a root copy that still has its temporary name)
 * it has its final name from the start: nobody sees it before it is
 * complete, and it costs one directory update and no io_uring worker for
 * the link. In another directory this job created (still 0700, so its
 * final name can only be ours), it is an unnamed inode (O_TMPFILE) that
 * one linkat() names when complete: a crash leaves nothing behind, and it
 * costs one directory update instead of the two of create + rename.
 * Elsewhere, or where the filesystem or the kernel cannot, it is a
 * temporary name renamed over the final one.
 */
struct fcp_tmp {
	char name[FCP_TMPNAME_MAX]; /* "" while unnamed or when nothing exists */
	bool unnamed;               /* an O_TMPFILE inode, open, not yet linked */
	const char *final;          /* created under this final name (hidden dir) */
	bool in_place;              /* the file that was there, rewritten
				       (--in-place): nothing to name or remove */
};

/* How new regular files are opened (callers add O_CLOEXEC where their
 * open does not): under a temporary name, never over an existing name nor
 * through a symlink; or unnamed, in the directory opened as the dirfd. */
#define FCP_DEST_NAMED_FLAGS (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW)
#define FCP_DEST_UNNAMED_FLAGS (O_WRONLY | O_TMPFILE)

/* The open flags of a new file, one of the two above: --verify reads each
 * copy back through the descriptor that wrote it (verify.h), so that no
 * re-open can refresh or bypass what it checks. */
static inline int fcp_dest_flags(const struct fcp_job *job, int flags)
{
	return job->o->verify ? (flags & ~O_ACCMODE) | O_RDWR : flags;
}

/* The mode a new file is opened with: create_mode (fcp_meta_create_mode)
 * when it has one, else private until its metadata is set. */
static inline mode_t fcp_dest_open_mode(mode_t create_mode)
{
	return create_mode ? create_mode : 0600;
}

/* Did an unnamed open fail because this filesystem or kernel has no
 * O_TMPFILE (EOPNOTSUPP; EISDIR or EINVAL before Linux 3.11)? Then the
 * file gets a temporary name instead. */
static inline bool fcp_dest_unnamed_refused(int err)
{
	return err == -EOPNOTSUPP || err == -EISDIR || err == -EINVAL;
}

/* Create an empty regular file for name in d, with mode
 * (fcp_meta_create_mode) or else private (0600), described in *t (which
 * keeps the pointer name); named: never unnamed (another process will open
 * it by name: a large file other ranks help copy). Returns the fd or
 * -errno. */
int fcp_dest_create(struct fcp_worker *w, struct fcp_dir *d, struct fcp_tmp *t, mode_t mode,
		    const char *name, bool named);

/* Should new files of d be unnamed (see struct fcp_tmp)? The first call
 * of a job finds out whether the kernel lets this process link them. */
bool fcp_dest_unnamed_ok(struct fcp_worker *w, struct fcp_dir *d);

/* The linkat() arguments that name the open unnamed file fd: olddir and
 * old (written to buf) and flags. */
void fcp_dest_unnamed_link_args(const struct fcp_job *job, int fd, char buf[32], int *olddir,
				int *flags);

/* Close fd, the complete file t, and give it name in d, replacing a
 * non-directory (a directory in the way is -EISDIR). On failure nothing of
 * it is left, and *what says which step failed. */
int fcp_dest_commit_file(struct fcp_worker *w, struct fcp_dir *d, struct fcp_tmp *t, int fd,
			 const char *name, const char **what);

/* Remove what exists of t after a failure (fd, if >= 0, is closed). */
void fcp_dest_discard_file(struct fcp_job *job, struct fcp_dir *d, struct fcp_tmp *t, int fd);

/* Make a non-regular inode under a temporary name, by calling make(dirfd,
 * tmp, arg) until the name is free; key: dirfd's in temporary names
 * (tmpname.h). */
int fcp_dest_make(struct fcp_worker *w, uint32_t key, int dirfd, char tmp[FCP_TMPNAME_MAX],
		  int (*make)(int dirfd, const char *tmp, void *arg), void *arg);

/* Make a non-regular inode for name in d by make(dirfd, name, arg): under
 * name itself in a hidden directory (*at = name, nothing to commit), else
 * (or where name was made meanwhile) under a temporary name (*at = tmp)
 * for fcp_dest_commit(). */
int fcp_dest_make_for(struct fcp_worker *w, struct fcp_dir *d, const char *name,
		      char tmp[FCP_TMPNAME_MAX], const char **at,
		      int (*make)(int dirfd, const char *tmp, void *arg), void *arg);

/* Rename tmp to name in d's copy, replacing a non-directory. A directory in the
 * way is -EISDIR. A FIFO, device or socket is replaced only by an inode of its
 * own kind: else FCP_ERR_REFUSED, reported and counted already. On failure
 * the temporary inode is removed. */
int fcp_dest_commit(struct fcp_job *job, struct fcp_dir *d, const char *tmp, const char *name);

/* The same where a rename without replacement found the name taken (or
 * cannot be had): looks at what is there, then renames over it. */
int fcp_dest_commit_taken(struct fcp_job *job, struct fcp_dir *d, const char *tmp,
			  const char *name);

/* Remove a name of d this job made for a file that failed (a temporary
 * name, or the final one of a file whose close failed after its link); if
 * even that fails, say so and count it (a leftover must never go
 * unmentioned). */
void fcp_dest_discard(struct fcp_job *job, struct fcp_dir *d, const char *name);

/* Create (private mode 0700) or open an existing directory name in dirfd;
 * never follows a symlink. *created tells which. Returns an O_RDONLY|O_DIRECTORY fd or -errno
 * (-ENOTDIR when a non-directory is in the way). */
int fcp_dest_mkdir(int dirfd, const char *name, bool *created);

/* The same for a root copy: where name does not exist, the directory is
 * made under a temporary name, written to tmp ("" otherwise), marked
 * with its final name and source (FCP_ROOT_MARKER), until
 * fcp_dest_unhide(); or the stopped run's hidden copy of the same source
 * that the leftover scan found for root is taken up again (*created
 * false). */
int fcp_dest_mkdir_hidden(struct fcp_worker *w, struct fcp_root *root, int dirfd,
			  const char *name, bool *created, char tmp[FCP_TMPNAME_MAX]);

/* Give the finished hidden directory d its final name, never over a name
 * made meanwhile by someone else: then it stays where it is, and says so.
 * When the job was stopped (or, with --atomic, an item inside failed),
 * the copy is not whole: it keeps its hidden name, recorded in
 * d->root->left. */
void fcp_dest_unhide(struct fcp_job *job, struct fcp_dir *d);
/* A new root copy d was made under its hidden name: a signal names it
 * until it has its final name (job->up's signal_note, job.c). */
void fcp_dest_note_hidden(struct fcp_job *job, struct fcp_dir *d);

/* Does directory fd carry a default ACL (inherited by new inodes in it)? */
bool fcp_dest_has_default_acl(int dirfd);

#endif
