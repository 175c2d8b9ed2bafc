/*
 * srcmount.h - a SOURCE directory (or file) mounted inside DEST.
 *
 * A bind mount can show a directory of SOURCE, or one that holds a SOURCE,
 * at a place in DEST: "mount --bind src/a dest/keep/m2". What the copy
 * writes into dest/keep/m2 then lands in src/a, a source being read (a
 * file of it replaced before it is copied, a copy of the copy); what
 * --delete would take away there are the source's own files. ".." above
 * a bind mount leads to where it is mounted, so the walk up by ".." that
 * tells a directory copied into itself does not see it; st_dev and st_ino
 * are the same on both sides, a file handle opened through the SOURCE's
 * mount places the inode in its filesystem, and mountinfo says what each
 * mount shows (mounts.h), where the handles cannot tell (no
 * CAP_DAC_READ_SEARCH). A DEST directory that is such a mount is not copied into,
 * named; --in-place does not rewrite a file of SOURCE mounted in DEST.
 *
 * The SOURCEs are taken as the command line names them before anything
 * is copied; mountinfo is read when a question first needs it (a DEST
 * directory on the filesystem of a SOURCE that the inodes did not tell),
 * once per job. In a chroot whose root is no mount point mountinfo names
 * paths outside the root, or lacks the mount: only the inodes tell there.
 */
#ifndef FCP_SRCMOUNT_H
#define FCP_SRCMOUNT_H

#include "core/job.h"

/* The SOURCE operands (-H, -L: followed as the copy follows them). 0 or
 * -ENOMEM. */
int fcp_srcmount_init(struct fcp_job *job, char *const *srcs, int nsrc);
void fcp_srcmount_free(struct fcp_job *job);

/* Is directory fd `dir` the directory src or below it? Walks up by ".."
 * to the filesystem root, comparing inodes: no path strings, so symlinks
 * and bind mounts in the spelling do not fool it (but a bind mount on the
 * way up hides what holds it: fcp_srcmount_find). */
bool fcp_dir_inside(int dir, const struct statx *src);

/* Is fd, whose statx st is (basic stats), the root of a mount: a mount
 * point? Told by STATX_ATTR_MOUNT_ROOT, or before Linux 5.8 by the mount
 * ids of fd and parent (the directory it was reached in). */
bool fcp_srcmount_point(int parent, int fd, const struct statx *st);

/* What a refusal says: "WHY 'dest/keep/m2' is 'src/a'". */
#define FCP_SRCMOUNT_WHY "not copied into a SOURCE directory mounted inside DEST:"

enum {
	/* Also a directory that holds a SOURCE below it. */
	FCP_SRCMOUNT_HOLDS = 1,
	/* Only where the walk up by ".." from fd does not meet the SOURCE
	 * (DEST's own directory: one plainly inside a SOURCE is the "into
	 * itself" refusal's, job.c). */
	FCP_SRCMOUNT_HIDDEN = 2,
};

/* Is fd (st: its statx, or NULL to ask), a directory or file of DEST, a
 * SOURCE, or a directory or file inside one (the same inode, found by its
 * path in its filesystem), or with FCP_SRCMOUNT_HOLDS a directory that
 * holds one? The SOURCE as the command line names it, joined with what
 * lies below it ("src/a"; malloc'd), *holds set when fd holds it; NULL
 * where none is (or it cannot be told: no /proc and not the SOURCE's own
 * inode, memory out). */
char *fcp_srcmount_find(struct fcp_job *job, int fd, const struct statx *st, int flags,
			bool *holds);

#endif
