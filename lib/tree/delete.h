/*
 * delete.h - --delete: remove what the source lacks, inside the copied tree.
 *
 * Only in a directory that existed before the job (a new one holds nothing
 * else), only once everything in it was copied, and never where an item
 * in it or below failed or the job was stopped: a source read error must
 * not read as "gone from the source". What the scan of the source met is
 * kept per directory; a name met there is never deleted, even if it
 * vanished from the source since (a directory removed during the copy
 * does not take its copy along). Removal is by directory fd and name, a
 * directory opened with O_NOFOLLOW and checked to be the one stat'ed
 * before it is emptied: no symlink is ever followed, no other mount
 * entered (mount ids, not st_dev: a bind mount of the same filesystem is
 * another mount). A directory of the copy on another mount than DEST's
 * (a mount point inside DEST, or below one) is copied into but keeps its
 * extras. Several SOURCEs merging into one copy are judged together, and
 * the files the job writes (own.h) are never extras, nor, with -b, the
 * names of backups (backup.h), at any depth.
 */
#ifndef FCP_DELETE_H
#define FCP_DELETE_H

#include "core/job.h"

/* Before d is scanned: start keeping its source names, if d will have its
 * extras deleted. */
void fcp_delete_prepare(struct fcp_job *job, struct fcp_dir *d);

/* Keep a source name of d (its scan met it). */
void fcp_names_add(struct fcp_job *job, struct fcp_dir *d, const char *name);
void fcp_names_free(struct fcp_dir *d);

/* d is finished: remove the entries of its copy that its source lacks
 * (--dry-run: say so), or say why they are held back. */
void fcp_delete_extras(struct fcp_worker *w, struct fcp_dir *d);

/* Remove name of d's copy, a directory with everything in it, counted
 * against --max-delete (--dry-run: say so). Returns 0 or -errno, after
 * reporting it. */
int fcp_delete_entry(struct fcp_job *job, struct fcp_dir *d, const char *name);

/* --prune-empty-dirs: d is finished and its extras gone; remove its copy
 * if it is empty, as rsync -m does not make it: one this run made, or,
 * with --delete, one that was there (the source has nothing for it).
 * Never the root copy, nor where an item below failed. True if removed:
 * d then takes no metadata. */
bool fcp_delete_pruned(struct fcp_job *job, struct fcp_dir *d);

/* Remove name of dirfd (path for messages), a stopped run's hidden copy,
 * with everything in it but mount points and this job's own files;
 * counted against --max-delete. Returns 0, 1 when something stayed (said),
 * or -errno after reporting it. */
int fcp_delete_leftover(struct fcp_job *job, int dirfd, const char *name, const char *path);

/* A dry run where SOURCEs merge into one copy: has the line key (a
 * deletion's path, or a word and a path) been said already? Each is said
 * once, as the run does it once (the first SOURCE to finish does it; the
 * others find it done). Always false where no SOURCEs merge. */
bool fcp_dry_said_before(struct fcp_job *job, const char *key);

/* The job's deletion state (job->del), before its workers start: 0, or
 * -ENOMEM. */
int fcp_delete_init(struct fcp_job *job);
/* The job is over: what the deletions kept goes. */
void fcp_delete_free(struct fcp_job *job);

#endif
