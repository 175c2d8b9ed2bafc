/*
 * own.h - the files this job writes itself: the --manifest database with
 * its -wal, -shm and -journal files, the --log file and the --events file.
 *
 * Wherever they lie (inside a SOURCE, inside DEST), they are never walked,
 * copied over or deleted: a live SQLite database copied mid-write is no
 * copy, a --mirror that deletes its own manifest as an extra loses the
 * record it is writing, and a source file copied onto one of them would
 * replace it under the job's feet. Each is known as a name in a directory
 * (that directory's device and inode), once as the path was given and
 * once with its symlinks resolved, so that -wal and -shm files that appear
 * later are known too.
 */
#ifndef FCP_OWN_H
#define FCP_OWN_H

#include "core/job.h"

/* Note the job's own files (job->o's --manifest, --log, --events), once
 * they are open. 0, or -ENOMEM. */
int fcp_own_init(struct fcp_job *job);
void fcp_own_free(struct fcp_job *job);

/* Does the directory (dev, ino) hold one of them? A cheap first test
 * before asking for each name. */
bool fcp_own_dir(const struct fcp_job *job, uint64_t dev, uint64_t ino);

/* Is name in the directory (dev, ino) one of them? */
bool fcp_own_name(const struct fcp_job *job, uint64_t dev, uint64_t ino, const char *name);

/* Is path (as given on the command line) one of them? */
bool fcp_own_path(const struct fcp_job *job, const char *path);

#endif
