/*
 * pick.h - choosing what to copy: the filters decide as the walk meets
 * each name, so an excluded directory is never opened or read. They read
 * (a .gitignore, a CACHEDIR.TAG, a stat) and never write.
 */
#ifndef FCP_PICK_H
#define FCP_PICK_H

#include "core/job.h"

enum fcp_pick {
	FCP_PICK_COPY,  /* copy it */
	FCP_PICK_RULE,  /* left out by a rule (--exclude, .gitignore, a
			   CACHEDIR.TAG): its copy is removed only by
			   --delete-excluded */
	FCP_PICK_LIMIT, /* left out by size or time: its copy stays */
};

/* Before directory d is read (pinned): false when it must not be (-x, a
 * mount point: its copy stays empty). Reads d's .gitignore (--gitignore).
 * The status line's pre-scan asks the same (progress.c), on directories
 * of its own (d->counting: nothing reported; of d only parent, name,
 * depth, st and src_fd are read, rel and ign kept until
 * fcp_plan_dir_free). */
bool fcp_plan_reads(struct fcp_job *job, struct fcp_dir *d);

/* Entry name of d (getdents type *type, filled in where the filters had
 * to stat it): copy it or leave it out? Call only when
 * fcp_options_filter(job->o). */
enum fcp_pick fcp_plan_pick(struct fcp_job *job, struct fcp_dir *d, const char *name,
			    unsigned char *type);

/* --delete: must an entry of d's copy that the source lacks stay because
 * a rule excludes it (and no --delete-excluded)? below: its path below d
 * (its name, or deeper inside an extra directory); name in dirfd: it. */
bool fcp_plan_keeps_extra(struct fcp_job *job, struct fcp_dir *d, const char *below, int dirfd,
			  const char *name);

/* d is finished: what the filters kept for it goes. */
void fcp_plan_dir_free(struct fcp_dir *d);

#endif
