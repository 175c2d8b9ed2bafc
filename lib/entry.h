/*
 * entry.h - the per-type copy steps that entry.c dispatches to.
 */
#ifndef FCP_ENTRY_H
#define FCP_ENTRY_H

#include "job.h"

/* One source entry being copied: where it is, where it goes, what it is. */
struct fcp_entry {
	struct fcp_worker *w;
	struct fcp_job *job;
	struct fcp_dir *d;
	const char *name;       /* source name in d */
	const char *dst_name;   /* destination name in d */
	struct statx st;
	int src_fd;             /* open source fd, or -1 */
	mode_t create_mode;     /* a regular file's copy was created with
				   (fcp_meta_create_mode; 0 = private) */
	mode_t dst_mode;        /* what the plan found at the destination
				   (0: nothing, or not looked) */
	uint64_t dst_ino;       /* and its inode number */
	unsigned char changes;  /* how it differed from the item there
				   (FCP_CHG_*, observe.h): -v's lines */
	const struct fcp_xfer *xfer; /* how a file's data moved (--debug), or NULL */
	const char *engine;     /* how a file's data went (observers) */
	struct fcp_vsum *vsum;  /* --verify: the source's hash (verify.h) */
	bool cloned;            /* its data was cloned */
	struct fcp_dd_entry *dd_first; /* --dedup: the first copy of its
				   content (dedup.h), or NULL */
	int dd_from;            /* --dedup=reflink: that first copy, open to
				   clone from, -2 cloned from it, or -1
				   (fcp_dedup_settled) */
	int attempt;            /* retries of it so far (limiter.h) */
	signed char content;    /* --checksum: its content compared already
				   (fcp_compare_batch): 1 equal, -1 not; 0
				   not yet */
	const struct statx *dst_st; /* and the destination's statx it was
				   compared by, or NULL */
	bool check_walk;        /* --check -m: a directory missing in DEST,
				   walked to tell whether it was pruned */
};

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

#endif
