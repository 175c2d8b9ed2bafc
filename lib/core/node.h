/*
 * node.h - the entry of the directory node model (job.h), and its
 * helpers: a new work item, and the paths of a node and of its entries.
 * The entry is here, below the tree code that copies it, so that the
 * floors that look at an entry (the plan, --check, the limiter) need no
 * header of the tree.
 */
#ifndef FCP_NODE_H
#define FCP_NODE_H

#include "core/job.h"

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

/* A new item of kind for entry name of d (dst_name: its name in the copy,
 * NULL when the same), or NULL out of memory. */
struct fcp_item *fcp_item_new(enum fcp_item_kind kind, struct fcp_dir *d, const char *name,
			      const char *dst_name, unsigned char d_type);
/* "dir/name" for messages and lookups: a trailing slash of dir is not
 * doubled ("out/" + "d" is "out/d", "out//" is "out/"); "" + name is
 * name, dir + "" is dir. malloc'd. */
char *fcp_path_join(const char *dir, const char *name);
/* Source / destination path of an entry of d, for messages (malloc'd). */
char *fcp_dir_src_path(const struct fcp_dir *d, const char *name);
char *fcp_dir_dst_path(const struct fcp_dir *d, const char *name);
/* Path of d relative to its root copy ("" for the root itself). */
char *fcp_dir_rel_path(const struct fcp_dir *d);

#endif
