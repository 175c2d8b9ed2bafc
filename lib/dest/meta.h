/*
 * meta.h - owner, mode, xattrs/ACLs and times, applied in one place.
 *
 * The order matters and is fixed here: chown first (it clears setuid bits
 * and security.capability), then xattrs (ACLs included), then the mode,
 * then the times last (any earlier change would move them).
 */
#ifndef FCP_META_H
#define FCP_META_H

#include "core/job.h"

/* Where an inode is: an open fd, or (dirfd, name) for inodes that are not
 * opened (symlinks, devices, FIFOs). */
struct fcp_at {
	int fd;
	int dirfd;
	const char *name;
	bool ours;      /* a new inode known to have our euid/egid already */
	bool inherited; /* a new inode that got ACLs from its directory's
			   default ACL: those the source lacks are removed */
	mode_t mode;    /* exact permission bits it was created with (0: unknown) */
	bool existed;   /* there before this job (a directory copied into):
			   without mode preservation it keeps its own mode */
	bool exact_xattrs; /* brought up to date (--sync): its xattrs the
			      source lacks are removed */
};
#define FCP_AT_FD(f) ((struct fcp_at){ .fd = (f), .dirfd = -1, .name = NULL })
#define FCP_AT_NAME(d, n) ((struct fcp_at){ .fd = -1, .dirfd = (d), .name = (n) })
#define FCP_AT_NEW(f, dir, m) ((struct fcp_at){ .fd = (f), .dirfd = -1, .name = NULL, \
						.ours = (dir)->created, \
						.inherited = (dir)->gives_acl, .mode = (m) })

/* Read what the job's owner changes depend on (its groups, job->meta),
 * once, before its workers start: 0, or -ENOMEM; and its end. */
int fcp_meta_init(struct fcp_job *job);
void fcp_meta_free(struct fcp_job *job);

/*
 * Copy the metadata of src (described by st) onto dst, as the job's
 * preserve bits say. What the destination cannot hold is a warning,
 * counted once per kind; the message names the source entry `name` of dir
 * d (NULL = d itself): that is not a failed copy. What cannot be read from
 * the source (its xattrs: EIO, EACCES, ...) is: -errno is returned, nothing
 * said, and the caller fails the item as for a read error of its data
 * (a copy without them is not the copy asked for, and --move must keep
 * the source). 0 otherwise.
 */
int fcp_meta_copy(struct fcp_job *job, struct fcp_at src, struct fcp_at dst,
		  const struct statx *st, struct fcp_dir *d, const char *name);

/*
 * The exact mode to create a new regular file with in d: its final
 * permission bits when nothing done to it later can change them (it will
 * be ours, so no chown; no setuid/setgid/sticky bit; no inherited ACL; the
 * umask keeps every bit), so that fcp_meta_copy can skip the chmod, one
 * inode update per file fewer. Otherwise 0: create it private (0600) and
 * let fcp_meta_copy set the mode. The
 * copy's directory is new and still 0700, so nobody else can reach it
 * before it is renamed and its directory finished.
 */
mode_t fcp_meta_create_mode(const struct fcp_job *job, const struct statx *st,
			    const struct fcp_dir *d);

/* Do a and b carry the same xattrs with the same values (both unable to
 * carry any counts as the same)? Only the keys of the parts in keep count. */
bool fcp_meta_xattrs_same(unsigned keep, struct fcp_at a, struct fcp_at b);

#endif
