/*
 * dist_int.h - what the files of lib/dist*.c share: the rank's state, its
 * root copies, and a unit of work as bytes (dist_unit.c). dist.h is the
 * interface to the rest of the library.
 */
#ifndef FCP_DIST_INT_H
#define FCP_DIST_INT_H

#include "dist/dist.h"
#include "tree/hooks.h"

enum unit_kind { UNIT_SCAN, UNIT_BATCH, UNIT_NAMES, UNIT_RANGE };
enum phase { PHASE_TREE, PHASE_LINKS, PHASE_AFTER };

/* What a directory was made as, for the rank that goes on in it. */
enum {
	F_MADE = 1 << 0, F_CREATED = 1 << 1, F_HIDDEN = 1 << 2, F_GIVES_ACL = 1 << 3,
	F_ROTATIONAL = 1 << 4, F_NO_SPECIAL = 1 << 5, F_ADOPTED = 1 << 6,
};

/* Where another rank opens a root copy, and how messages name it. */
struct fcp_dist_root {
	char *src_at, *dst_at;     /* absolute: the source, and its copy now
				      (under its temporary name) */
	char *disp_src, *disp_dst; /* as the command line's paths say them */
};

/* A RANGE unit's chunks [first, end) of a file of rank owner (its id
 * there), whose source and copy (under tmp_name) are these inodes; its
 * names are the source's name and the copy's (dist_chunk.c). */
struct unit_range {
	uint64_t id, src_ino, tmp_ino, size, allocated;
	int32_t first, end, owner, pad;
};

/* A unit: this head, then NUL-terminated strings (the root's, then the
 * directory's path below it), then count names; padded to 8 bytes. */
struct unit_head {
	uint32_t len;
	uint8_t kind, flags;
	int32_t root;
	uint32_t count;
	uint64_t dst_ino;
	struct statx st;           /* the directory's, as its giver saw it */
	struct unit_range range;   /* RANGE only */
};

enum { S_SRC_AT, S_DST_AT, S_SRC_ABS, S_DST_ABS, S_DISP_SRC, S_DISP_DST, S_REL_TOP, S_NAME,
       S_REL, S_COUNT };

struct unit {
	struct unit_head h;
	const char *s[S_COUNT];
	const char *names;         /* count of them, one after another */
	size_t names_len;
};

struct buf {
	char *p;
	size_t len, cap;
};

/* A root copy as this rank has it open. Rank 0 has its own roots' real
 * fcp_root (job.c); the others one of their own. */
struct droot {
	struct fcp_root *root;
	struct fcp_root own;
	struct fcp_dist_root at;
	struct fcp_dir top;        /* stands for the root copy: depth 0, never
				      finished, the parent of what is taken */
	bool broken;               /* could not be opened here (reported once):
				      each unit of it counts as failed in it */
};

struct meta_rec {
	int root, depth;
	char *rel;
	struct statx st;
	bool inherited, existed, exact, created, gives_acl;
};

struct fcp_dist_state {
	const struct fcp_dist *t;
	enum phase phase;
	bool may_give;
	pthread_mutex_t lock;      /* everything below */
	struct droot **roots;      /* by root id */
	int nroots;
	struct meta_rec *meta;
	size_t nmeta, cap_meta;
	struct buf *links;         /* NAMES units for each rank */
	struct fcp_dir **held;     /* rank 0's root copies */
	int nheld;
	size_t cap_held;
	struct shared_file *files; /* large files whose chunks may go */
	int nfiles;
	size_t cap_files;
	uint64_t next_id;
	struct range_result *results; /* ranges done here, for their owners */
	int nresults;
	size_t cap_results;
};

/* dist_unit.c: a unit of work as bytes. */
/* Append a unit of d (at rel below its root copy) to b; the names are
 * names_len bytes of count NUL-terminated names. 0 or -ENOMEM. */
int fcp_unit_pack(struct buf *b, enum unit_kind kind, const struct fcp_dir *d, const char *rel,
		  const char *names, size_t names_len, uint32_t count);
/* The same for a RANGE unit (names: the source's and the copy's). */
int fcp_unit_pack_range(struct buf *b, const struct fcp_dir *d, const char *rel,
			const char *names, size_t names_len, const struct unit_range *range);
/* The chunks of the RANGE unit packed at offset at of b. */
void fcp_unit_set_range(struct buf *b, size_t at, int first, int end);
/* The unit at *off in buf, checked to lie within it; advances *off. */
bool fcp_unit_unpack(const char *buf, size_t len, size_t *off, struct unit *u);
/* How many items of work unit u is (what is not copied when it is lost). */
int fcp_unit_items(const struct unit *u);
/* How many counts of its directory unit u's work holds once queued. */
int fcp_unit_refs(const struct unit *u);

/* dist.c: the root copy unit u names, opened here the first time a unit
 * names it (under ds->lock); one that cannot be opened is reported once
 * and kept as broken. NULL only out of memory. */
struct droot *fcp_dist_root_open(struct fcp_job *job, const struct unit *u);
/* The directory of unit u below its root copy r, opened, with pending
 * counts; NULL after reporting why not. */
struct fcp_dir *fcp_dist_dir_open(struct fcp_job *job, struct droot *r, const struct unit *u,
				  int pending);
/* Open rel beneath fd (a top's source or copy) as the inode ino (0: any),
 * its statx in *st; -ESTALE when it is another. */
int fcp_dist_open_rel(int fd, const char *rel, uint64_t ino, struct statx *st);
/* Queue unit u's work on d (its pending counts taken). */
void fcp_dist_queue(struct fcp_job *job, struct fcp_dir *d, const struct unit *u);
/* A unit's work of pending items not done here (r broken, or NULL). */
void fcp_dist_lost(struct fcp_job *job, struct droot *r, int items);
/* dist_chunk.c: give up to max ranges of large files' chunks (into b);
 * how many. Copy here the range of unit u (from fcp_dist_take). */
int fcp_dist_chunk_give(struct fcp_job *job, int max, struct buf *b);
void fcp_dist_chunk_take(struct fcp_job *job, const struct unit *u);
/* Free what dist_chunk.c keeps. */
void fcp_dist_chunk_free(struct fcp_dist_state *ds);

/* The hooks of the tree (hooks.h), as fcp_dist_init installs them. */
void fcp_dist_root_made(struct fcp_job *job, struct fcp_dir *d);
void fcp_dist_dir_done(struct fcp_job *job, struct fcp_dir *d, struct fcp_at dst);
bool fcp_dist_defer_link(struct fcp_entry *e);
/* dist_chunk.c: a file of this size may be shared (not under --verify);
 * b's chunks may go to other ranks (not a file that is not shareable),
 * and no longer; this rank's part of a range is done, queued for the
 * owner. */
bool fcp_dist_may_share(const struct fcp_job *job, uint64_t size);
void fcp_dist_chunk_add(struct fcp_job *job, struct fcp_bigfile *b);
void fcp_dist_chunk_remove(struct fcp_job *job, struct fcp_bigfile *b);
void fcp_dist_chunk_result(struct fcp_job *job, int owner, uint64_t id, uint64_t bytes, int err,
			   int64_t eof);

/* Work below d went to another rank or phase: the metadata of d and of
 * the directories above it waits for every rank. */
void fcp_dist_wait_for_all(struct fcp_dir *d);

#endif
