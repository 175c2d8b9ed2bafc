/*
 * dirlink.h - --keep-directory-symlink (-K, rsync's --keep-dirlinks): where
 * a SOURCE directory's copy would go, DEST may hold a symlink to a
 * directory; the copy goes into that directory, as cp and rsync do, and
 * the symlink stays as it is. Without the option a symlink in DEST is
 * never followed (dest.h).
 *
 * The user asked to write through such a symlink, not to change a
 * SOURCE: one that leads into a SOURCE, to a directory that holds one, or
 * to the directory it is in or one above it (a loop) is not followed, and
 * the item fails, named.
 */
#ifndef FCP_DIRLINK_H
#define FCP_DIRLINK_H

#include "tree/entry.h"

/* Why o cannot be run with -K, or NULL: --delete (--mirror) through a
 * followed symlink would delete in a directory outside DEST's own tree,
 * which may hold the only copy of what is there. */
const char *fcp_dirlink_conflict(const struct fcp_options *o);

/* Where the SOURCE operands are, taken before anything is copied (the
 * option off: nothing). 0, or -ENOMEM. */
int fcp_dirlink_init(struct fcp_job *job, char *const *srcs, int nsrc);
void fcp_dirlink_free(struct fcp_job *job);

/* The directory to copy the source directory e into, where its name in
 * DEST is a symlink to follow: an O_DIRECTORY fd. -ENOENT where there is
 * none (the option off, no symlink there, a dangling one, one to a
 * non-directory, a directory this job made): the usual way then, as
 * without the option. -ECANCELED after reporting why a symlink to a
 * directory is not followed (the item failed). */
int fcp_dirlink_open(struct fcp_entry *e);

#endif
