/*
 * resume.h - large files that the next run finishes (--resume).
 *
 * A regular file of FCP_RESUME_MIN bytes or more, copied with --resume,
 * carries a record of its progress (FCP_RESUME_XATTR) while it is being
 * copied: the source's identity and the prefix of the copy that is on the
 * device. A run killed outright leaves it; the next one with --sync
 * --resume finds it and copies only the rest (resume.c says how).
 */
#ifndef FCP_RESUME_H
#define FCP_RESUME_H

#include "core/node.h"

#include <sys/types.h>

#define FCP_RESUME_MIN ((off_t)1 << 30)
#define FCP_RESUME_XATTR "user.fastcp.resume"

/* Where the copy of a resumable file starts. */
struct fcp_resume {
	off_t done;  /* bytes of the file already durable (a prefix) */
	bool record; /* record progress on it (the next run can find it) */
	bool found;  /* it was a killed run's, with a record on it */
};

struct fcp_tmp;

/* Is e a file that --resume records (and the job asks for it)? */
bool fcp_resume_wanted(const struct fcp_entry *e);

/* Open the file to copy e into, as fcp_dest_create() does (t, the mode):
 * a killed run's that matches the source (r->done bytes of it are done),
 * or a new one under the name the next run looks for (r->record), or,
 * where that name is taken by something not to touch, an ordinary one.
 * Returns the fd or -errno. */
int fcp_resume_open(struct fcp_entry *e, struct fcp_tmp *t, struct fcp_resume *r);

/* Record on fd, the copy of source st named name, that [0, done) of it is
 * durable: the caller made it so (fdatasync) first. Without user xattrs
 * there, says so once per job and returns -errno: the caller stops
 * recording. */
int fcp_resume_save(struct fcp_entry *e, int fd, off_t done);

/* The file is whole: its record goes (before its metadata is set). */
void fcp_resume_forget(int fd);

/* Is name of the shape of a resumable file's name (".fcp-resume-<hex>")? */
bool fcp_resume_shaped(const char *name);

/* Is name in dirfd a resumable file fastcp made: of that shape, a regular
 * file carrying a record (a user's file of that name carries none)? */
bool fcp_resume_recorded(int dirfd, const char *name);

/* leftover.c, --resume: should the resumable file name in d stay for this
 * run to finish (ours, regular, its record matching its source now)?
 * roots[0..n) name the sources of a top directory's entries. */
bool fcp_resume_keep(struct fcp_job *job, const struct fcp_dir *d, const char *name,
		     struct fcp_root **roots, int n);

/* The state the job's records share (job->resume), before its workers
 * start: 0, or -ENOMEM; and its end. */
int fcp_resume_init(struct fcp_job *job);
void fcp_resume_free(struct fcp_job *job);

#endif
