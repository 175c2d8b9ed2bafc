/*
 * entry.h - the per-type copy steps that entry.c dispatches to.
 */
#ifndef FCP_ENTRY_H
#define FCP_ENTRY_H

#include "core/job.h"
#include "core/node.h"

/* file.c: copy a regular file; e->src_fd is open (and closed here). */
void fcp_file_copy(struct fcp_entry *e);

struct fcp_hl_entry;

/* Is e's inode looked up in the hard-link map (links kept)? One of several
 * names, and a regular file whose name may be a followed symlink
 * (-L; -H: an operand), since another name or symlink may reach the same
 * inode: the copy has one inode for them, as cp's has. */
bool fcp_entry_links_kept(const struct fcp_entry *e);

/* Another name of an inode already seen (hard link): link it, or queue it
 * behind the copy in flight, and return true. Returns false for a first
 * name, which the caller copies and then passes to fcp_hl_done(). */
bool fcp_entry_hardlink(struct fcp_entry *e, struct fcp_hl_entry **hl);

struct fcp_tmp;
struct fcp_vsum;

/* The end of a file's pipeline: with err == 0, [--verify: read back and
 * compare, a mismatch copied once more], metadata, [fsync], close and link
 * or rename into place; otherwise report `what` and remove the new file.
 * Closes the source and settles the hard-link entry either way. */
void fcp_file_finish(struct fcp_entry *e, struct fcp_hl_entry *hl, int out,
		     struct fcp_tmp *tmp, int err, const char *what);

struct fcp_xfer;

struct fcp_resume;

/* chunk.c: if the file is large enough, copy its data in chunks, by this
 * worker and helpers (while the job has fewer runners than CPUs), and
 * return true; the last runner out finishes the file. rs (--resume, else
 * NULL): the chunks done already, and whether to record progress. */
bool fcp_chunk_start(struct fcp_entry *e, const struct fcp_xfer *x, struct fcp_hl_entry *hl,
		     const struct fcp_tmp *tmp, const struct fcp_resume *rs);

/* entry_link.c: -l, -s: link the non-directory e instead of copying it
 * (e->src_fd, if open, stays the caller's). */
void fcp_entry_link(struct fcp_entry *e);

/* Report a failed entry with its source path. */
void fcp_entry_fail(struct fcp_entry *e, const char *what, int err);
/* --move: e's copy failed, said and counted by the caller: its source
 * stays (a file with other names, with all of them), and the prune does
 * not name it, nor count it, a second time. */
void fcp_entry_stays(struct fcp_entry *e);

#endif
