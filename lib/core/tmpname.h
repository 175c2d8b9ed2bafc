/*
 * tmpname.h - the temporary names of this job, and how a later run knows
 * one that fastcp made where it is.
 *
 * A file is complete before it gets its final name; until then it may
 * have a temporary name (dest.h). A run killed outright leaves such names
 * behind, and the next run removes them (tree/leftover.c) - but only
 * where it can tell that fastcp made the name in that very directory: a
 * user may copy a killed run's leftover elsewhere (into a SOURCE, with
 * cp -a or with fastcp), and that copy is the user's file.
 *
 * A name is ".fcp-RRRRRRRRTTTTTTTT-W-S": R, 32 random bits of the job
 * (shared by its ranks); T, a tag of R and of the directory the name was
 * made in (its inode number and birth time, which no copy keeps: a copy
 * is a new inode, in a directory of its own); W the rank and worker; S a
 * sequence. A user's file of that shape carries a right tag once in 2^32,
 * and a copy of a leftover into another directory carries the tag of the
 * directory it came from.
 */
#ifndef FCP_TMPNAME_H
#define FCP_TMPNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fcp_job;

/* The key of the directory open as dirfd (one statx): its part in the
 * tag. */
uint32_t fcp_tmpname_key(int dirfd);

/* The same for a directory node, asked once and kept in d. */
struct fcp_dir;
uint32_t fcp_tmpname_dir_key(struct fcp_dir *d);

/* Write ".fcp-RRRRRRRR" for random into buf (FCP_TMPNAME_PREFIX bytes):
 * the start of every temporary name of a job. */
#define FCP_TMPNAME_PREFIX 16
void fcp_tmpname_prefix(uint32_t random, char buf[FCP_TMPNAME_PREFIX]);

/* A fresh temporary name of job for the directory of key
 * (fcp_tmpname_key), in buf: the job's prefix, the tag, who (rank and
 * worker) and a sequence number. */
void fcp_tmpname_make(const struct fcp_job *job, uint32_t key, unsigned who, unsigned long seq,
		      char *buf, size_t len);

/* Is name one of job's own temporary names (its prefix)? */
bool fcp_tmpname_of_job(const struct fcp_job *job, const char *name);

/* Is name, an entry of the directory dirfd, a temporary name that fastcp
 * made in that directory: of the shape, its tag that of dirfd? */
bool fcp_tmpname_made_here(int dirfd, const char *name);

/* Is name of the shape of a temporary name (".fcp-" and three groups of
 * lowercase hex digits joined by '-'), of this version or an earlier
 * one, whoever made it? */
bool fcp_tmpname_shaped(const char *name);

#endif
