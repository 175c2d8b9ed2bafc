/*
 * hooks.h - the calls the copy of a tree makes into a run of several
 * processes (dist.c), through a table dist installs on the job
 * (job->hooks) when such a run starts; NULL for a job of one process.
 *
 * The tree stands below dist: it must not name dist's functions, and a
 * job of one process must not pay for them. Each hook is reached through
 * one of the inline calls below: a test of one pointer for one process,
 * one indirect call per item (or per large file, or per range of one)
 * for several, never one per chunk.
 */
#ifndef FCP_HOOKS_H
#define FCP_HOOKS_H

#include "dest/meta.h"
#include "core/node.h"

struct fcp_bigfile;

struct fcp_hooks {
	/* Rank 0 made (or opened) root copy d: held open, and named, until
	 * every rank is done with it. */
	void (*root_made)(struct fcp_job *job, struct fcp_dir *d);
	/* Directory d, below a root copy, is finished here: its metadata is
	 * set once no rank can still copy into it (dst as fcp_meta_copy
	 * takes it). */
	void (*dir_done)(struct fcp_job *job, struct fcp_dir *d, struct fcp_at dst);
	/* A name of an inode with several links, met while the tree is
	 * copied: sent to the rank that owns the inode, which copies all
	 * its names after the tree. True when it is taken so. */
	bool (*defer_link)(struct fcp_entry *e);
	/* Might other ranks copy parts of a file of this size? Its copy
	 * then needs a name they can open: never an unnamed inode. */
	bool (*may_share)(const struct fcp_job *job, uint64_t size);
	/* b's chunks may go to other ranks; and no longer. */
	void (*chunk_add)(struct fcp_job *job, struct fcp_bigfile *b);
	void (*chunk_remove)(struct fcp_job *job, struct fcp_bigfile *b);
	/* This rank's part of another rank's range is done: its result,
	 * queued for the owner. */
	void (*chunk_result)(struct fcp_job *job, int owner, uint64_t id, uint64_t bytes, int err,
			     int64_t eof);
};

static inline void fcp_hook_root_made(struct fcp_job *job, struct fcp_dir *d)
{
	if (job->hooks)
		job->hooks->root_made(job, d);
}

static inline void fcp_hook_dir_done(struct fcp_job *job, struct fcp_dir *d, struct fcp_at dst)
{
	if (job->hooks)
		job->hooks->dir_done(job, d, dst);
}

static inline bool fcp_hook_defer_link(struct fcp_entry *e)
{
	return e->job->hooks && e->job->hooks->defer_link(e);
}

static inline bool fcp_hook_may_share(const struct fcp_job *job, uint64_t size)
{
	return job->hooks && job->hooks->may_share(job, size);
}

static inline void fcp_hook_chunk_add(struct fcp_job *job, struct fcp_bigfile *b)
{
	if (job->hooks)
		job->hooks->chunk_add(job, b);
}

static inline void fcp_hook_chunk_remove(struct fcp_job *job, struct fcp_bigfile *b)
{
	if (job->hooks)
		job->hooks->chunk_remove(job, b);
}

static inline void fcp_hook_chunk_result(struct fcp_job *job, int owner, uint64_t id,
					 uint64_t bytes, int err, int64_t eof)
{
	if (job->hooks)
		job->hooks->chunk_result(job, owner, id, bytes, err, eof);
}

#endif
