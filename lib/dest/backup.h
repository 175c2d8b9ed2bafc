/*
 * backup.h - cp's --backup (backup.c).
 */
#ifndef FCP_BACKUP_H
#define FCP_BACKUP_H

#include "core/job.h"

/* Give the non-directory name in dirfd its backup name (the job's
 * --backup and -S), keeping it under its own name too where hard links
 * can. srcfd: the source directory copied into dirfd, or -1: a backup
 * name is never one of its names (the copy writes those) nor one this run
 * made, but the next ("NAME~~", one number higher). Returns 0 or -errno. */
int fcp_backup_make(struct fcp_worker *w, int dirfd, int srcfd, const char *name);

/* --delete under -b: rename the non-directory name in dirfd to its backup
 * name (chosen as by fcp_backup_make) instead of removing it, as rsync -b
 * --delete does. *backup (if asked): that name, to free, on success.
 * Returns 0 or -errno. */
int fcp_backup_rename(struct fcp_job *job, int dirfd, int srcfd, const char *name,
		      char **backup);

/* --dry-run: 0 if the backup of name in dirfd (srcfd: as for
 * fcp_backup_make) could be made, else the -errno the run would meet: a
 * name too long, or a directory at the backup name. */
int fcp_backup_would(struct fcp_job *job, int dirfd, int srcfd, const char *name);

/* Would the backup of name in dirfd (srcfd: as for fcp_backup_make)
 * replace the source being copied over it (src: its statx)? "fastcp
 * --backup=simple a~ a": cp refuses that. */
bool fcp_backup_is_source(struct fcp_worker *w, int dirfd, int srcfd, const char *name,
			  const struct statx *src);

/* Note that the copy writes name in the directory (dev, ino) of DEST
 * (where -b is on and name looks like a backup): no backup takes it. 0,
 * or -ENOMEM. */
int fcp_backup_note_copy(struct fcp_job *job, uint64_t dev, uint64_t ino, const char *name);

/* The job's record of the backups it made (at its end). */
void fcp_backup_free(struct fcp_job *job);

/* Is name a backup's name under the job's -b and -S (ending in SUFFIX,
 * or in ".~N~")? --delete keeps those, as rsync does: else a run would
 * delete the backups it just made, and every older one. False without -b. */
bool fcp_backup_name_like(const struct fcp_options *o, const char *name);

#endif
