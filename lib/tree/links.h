/*
 * links.h - the hard-link map.
 */
#ifndef FCP_LINKS_H
#define FCP_LINKS_H

#include "core/hash.h"
#include "core/job.h"

/* The hard-link map: inodes with more than one name in the copied set. */
enum fcp_hl_state { FCP_HL_FIRST, FCP_HL_LINK, FCP_HL_QUEUED };

struct fcp_hl_entry;

int fcp_hl_init(struct fcp_job *job);
void fcp_hl_free(struct fcp_job *job);

/*
 * Look up the inode of st for the entry (d, dst_name).
 *  FCP_HL_FIRST: first name seen; copy it, then call fcp_hl_done().
 *  FCP_HL_LINK: already copied; call fcp_hl_link() for this name.
 *  FCP_HL_QUEUED: being copied by another worker; this name was queued and
 *                 holds one pending count of d, released when it is linked.
 */
enum fcp_hl_state fcp_hl_claim(struct fcp_job *job, const struct statx *st, struct fcp_dir *d,
			       const char *name, const char *dst_name, struct fcp_hl_entry **e);

/* The first name of e was copied (ok): link the queued names. Or not: the
 * queued names are copied again, the first of them as the new first. */
void fcp_hl_done(struct fcp_worker *w, struct fcp_hl_entry *e, bool ok);
/* The hash of the bytes the first copy wrote (--manifest), for the
 * records of its other names; before fcp_hl_done(). */
void fcp_hl_set_hash(struct fcp_hl_entry *e, const struct fcp_hash *h);

/* As fcp_hl_claim, for a name that needs no copy: the destination has it
 * up to date as inode dst_ino (--sync), which the other names must be too
 * (0: a dry run's copy). FCP_HL_FIRST makes the entry done at once, with
 * nothing to call after; the other two states are as above. */
enum fcp_hl_state fcp_hl_claim_found(struct fcp_job *job, const struct statx *st,
				     struct fcp_dir *d, const char *name, const char *dst_name,
				     uint64_t dst_ino, struct fcp_hl_entry **e);

/* As fcp_hl_claim, only where the inode has no entry yet: the new entry
 * (FCP_HL_FIRST: call fcp_hl_done() after the copy), or NULL when
 * another name has one (or out of memory). For the io_uring batch, which
 * neither links nor queues. */
struct fcp_hl_entry *fcp_hl_claim_new(struct fcp_job *job, const struct statx *st,
				      struct fcp_dir *d, const char *dst_name);

/* The destination inode of e's first name when it was found up to date,
 * or 0 when this job made the copy. */
uint64_t fcp_hl_copy_ino(const struct fcp_hl_entry *e);

/* Make dst_name in d another name of e's copy. Returns 0 or -errno. */
int fcp_hl_link(struct fcp_worker *w, struct fcp_hl_entry *e, struct fcp_dir *d,
		const char *dst_name);

#endif
