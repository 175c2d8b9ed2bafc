/*
 * parents.h - cp's --parents: SOURCE is copied to DEST/SOURCE, its whole
 * path (parents.c).
 */
#ifndef FCP_PARENTS_H
#define FCP_PARENTS_H

#include "core/job.h"

/* The directories of SOURCE's path below DEST, made or found. */
struct fcp_parents {
	int fd;                 /* the innermost one (DEST/dirname(SOURCE)), or -1 */
	int n;                  /* those this job made, for their times: */
	int *fds;
	struct statx *st;       /* their sources */
};

/* SOURCE's path as it is copied below DEST: without leading slashes and
 * "." components, malloc'd. NULL if it holds a ".." (which would climb
 * out of DEST) or names no entry. */
char *fcp_parents_path(const char *src);

/* Open (making what is missing, never following a symlink) the
 * directories of path (fcp_parents_path) below destfd (the directory
 * dest), each one made given the mode and owner of the source directory
 * of the same path in src. Returns 0 (p->fd open) or -errno after
 * reporting which failed. --dry-run makes nothing: it names each one it
 * would make, and p->fd is -1 when one is missing. */
int fcp_parents_make(struct fcp_job *job, int destfd, const char *dest, const char *src,
		     const char *path, struct fcp_parents *p);

/* After the copy: the times of the directories made (their sources'),
 * then everything closed. */
void fcp_parents_finish(struct fcp_job *job, struct fcp_parents *p);

#endif
