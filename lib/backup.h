/*
 * backup.h - cp's --backup (backup.c).
 */
#ifndef FCP_BACKUP_H
#define FCP_BACKUP_H

#include "job.h"

/* Give the non-directory name in dirfd its backup name (the job's
 * --backup and -S), keeping it under its own name too where hard links
 * can. Returns 0 or -errno. */
int fcp_backup_make(struct fcp_worker *w, int dirfd, const char *name);

/* Would the backup of name in dirfd replace the source being copied over
 * it (src: its statx)? "fastcp --backup=simple a~ a": cp refuses that. */
bool fcp_backup_is_source(struct fcp_worker *w, int dirfd, const char *name,
			  const struct statx *src);

#endif
