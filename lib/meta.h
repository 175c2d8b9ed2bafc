/*
 * meta.h - owner, mode, xattrs/ACLs and times, applied in one place.
 *
 * The order matters and is fixed here: chown first (it clears setuid bits
 * and security.capability), then xattrs (ACLs included), then the mode,
 * then the times last (any earlier change would move them).
 */
#ifndef FCP_META_H
#define FCP_META_H

#include "job.h"

/* Where an inode is: an open fd, or (dirfd, name) for inodes that are not
 * opened (symlinks, devices, FIFOs). */
struct fcp_at {
	int fd;
	int dirfd;
	const char *name;
	bool ours;      /* a new inode known to have our euid/egid already */
	bool inherited; /* a new inode that got ACLs from its directory's
			   default ACL: those the source lacks are removed */
};
#define FCP_AT_FD(f) ((struct fcp_at){ .fd = (f), .dirfd = -1, .name = NULL })
#define FCP_AT_NAME(d, n) ((struct fcp_at){ .fd = -1, .dirfd = (d), .name = (n) })
#define FCP_AT_NEW(f, dir) ((struct fcp_at){ .fd = (f), .dirfd = -1, .name = NULL, \
					     .ours = (dir)->created, .inherited = (dir)->gives_acl })

/*
 * Copy the metadata of src (described by st) onto dst, as the job's
 * preserve bits say. Failures are warnings, counted once per kind; the
 * message names the source entry `name` of dir d (NULL = d itself): a
 * destination that cannot hold some metadata is not a failed copy.
 */
void fcp_meta_copy(struct fcp_job *job, struct fcp_at src, struct fcp_at dst,
		   const struct statx *st, struct fcp_dir *d, const char *name);

/* Copy every xattr of src onto dst; warnings as above. */
void fcp_meta_copy_xattrs(struct fcp_job *job, struct fcp_at src, struct fcp_at dst,
			  struct fcp_dir *d, const char *name);

#endif
