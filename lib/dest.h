/*
 * dest.h - the safe destination: directory fd + name, temporary names,
 * rename into place.
 *
 * Every destination call is an *at() call on a directory fd this job opened
 * itself with O_NOFOLLOW, so a symlink planted inside the destination can
 * never redirect a write outside it. New inodes appear under a temporary
 * name (".fcp-...") and are renamed to their final name only when complete.
 */
#ifndef FCP_DEST_H
#define FCP_DEST_H

#include "job.h"

#define FCP_TMPNAME_MAX 64

/* Create an empty file under a fresh temporary name in dirfd, with mode
 * (fcp_meta_create_mode) or else private (0600); the name is written to
 * tmp. Returns the fd or -errno. */
int fcp_dest_create(struct fcp_worker *w, int dirfd, char tmp[FCP_TMPNAME_MAX], mode_t mode);

/* Make a non-regular inode under a temporary name, by calling make(dirfd,
 * tmp, arg) until the name is free. */
int fcp_dest_make(struct fcp_worker *w, int dirfd, char tmp[FCP_TMPNAME_MAX],
		  int (*make)(int dirfd, const char *tmp, void *arg), void *arg);

/* Rename tmp to name in d's copy, replacing a non-directory. A directory in the
 * way is -EISDIR. On failure the temporary inode is removed. */
int fcp_dest_commit(struct fcp_job *job, struct fcp_dir *d, const char *tmp, const char *name);

/* Remove a temporary inode of d after a failure; if even that fails, say
 * so (a leftover must never go unmentioned). */
void fcp_dest_discard(struct fcp_job *job, struct fcp_dir *d, const char *tmp);

/* Create (private mode 0700) or open an existing directory name in dirfd;
 * never follows a symlink. *created tells which. Returns an O_RDONLY|O_DIRECTORY fd or -errno
 * (-ENOTDIR when a non-directory is in the way). */
int fcp_dest_mkdir(int dirfd, const char *name, bool *created);

/* Does directory fd carry a default ACL (inherited by new inodes in it)? */
bool fcp_dest_has_default_acl(int dirfd);

#endif
