/*
 * manifest.h - --manifest FILE: a SQLite record of the files a job copied,
 * checked or hashed, and a cache of their hashes.
 *
 * One table, files(side, path, size, mtime, ctime, ino, xxh128, verified):
 * side 0 is the destination, path relative to DEST (the copy's name
 * first when it goes into DEST); side 1 a source, by absolute path. mtime
 * and ctime in nanoseconds; xxh128 the 16 bytes of XXH3-128 (big-endian
 * high then low half; hash.h says what is hashed) or NULL when nothing
 * hashed it; verified the Unix time its bytes were last read from storage
 * and hashed, or NULL for a copy's hash of the bytes it wrote that no read
 * has confirmed yet (without --verify). --check and --checksum trust only
 * verified hashes; --check --manifest FILE DEST compares with every one.
 * A hash read from a file whose times are racy (fcp_statx_racy: a change
 * right after might not show in them) is recorded as not verified, and a
 * record a read found wrong loses its verified mark (fcp_manifest_distrust).
 * --move trusts none of them: what it removes is compared by reading.
 * The file carries application_id 0x66637031 ("fcp1") and user_version 2
 * (a manifest of version 1 is taken up, manifest.c): anything else
 * (another database, a newer fastcp's schema, a file that is not SQLite
 * or is corrupt) is reported and neither trusted nor written.
 *
 * Workers never wait on SQLite: the hashes known are read into memory
 * once, before the walk (fcp_manifest_lookup reads that copy, lock-free),
 * and records go into a queue that one writer thread empties, a
 * transaction per batch, in WAL mode with a busy timeout, so that two
 * fastcp processes can share a manifest. A recorded hash is trusted
 * while the file's size, mtime, ctime and inode number are unchanged
 * (ctime cannot be set back by a user: a rewrite that restores mtime
 * still moves it).
 */
#ifndef FCP_MANIFEST_H
#define FCP_MANIFEST_H

#include "core/hash.h"
#include "core/job.h"

/* Whether this build has SQLite. */
bool fcp_manifest_available(void);

/* Open (or make) the manifest at path for job->man and start its writer,
 * for the copy into dest: a manifest records the DEST it serves and is
 * refused for another. Returns 0, or -1 after saying why it cannot be
 * used (the job then exits 2 before copying anything). */
int fcp_manifest_open(struct fcp_job *job, const char *path, const char *dest);

/* Write what is queued, stop the writer, close. A failed write is
 * reported and counted as a failed item. No-op without a manifest. */
void fcp_manifest_close(struct fcp_job *job);

/* The key of entry name of d: its path relative to DEST (src false) or
 * its source's absolute path (src true). malloc'd, NULL without memory. */
char *fcp_manifest_key(const struct fcp_dir *d, const char *name, bool src);

/* The recorded hash of key, if it was read from storage and the file (st)
 * is unchanged since. */
bool fcp_manifest_lookup(struct fcp_job *job, bool src, const char *key,
			 const struct statx *st, struct fcp_hash *h);

/* Does a record of the destination file key (st) with a hash exist, made
 * while the file was as it is now (verified or not)? */
bool fcp_manifest_has(struct fcp_job *job, const char *key, const struct statx *st);

/* Queue a record of the destination file key (st) with h, the hash its
 * bytes should have (its source's), not read from it: a check compares. */
void fcp_manifest_expected(struct fcp_job *job, const char *key, const struct statx *st,
			   const struct fcp_hash *h);

/* Queue a record of key (st; h NULL: hash not known), its bytes read from
 * storage and hashed now. */
void fcp_manifest_record(struct fcp_job *job, bool src, const char *key,
			 const struct statx *st, const struct fcp_hash *h);

/* A read of key's file found other bytes than its record's hash (bit
 * rot, or a change its times did not show): the record is no longer
 * taken as read from storage (lookup), so that no later run calls the
 * file equal by it; its hash stays as what the file should hold. */
void fcp_manifest_distrust(struct fcp_job *job, bool src, const char *key);

/* A file just copied to name in d: recorded (destination side), with h,
 * the hash of the bytes the copy wrote (NULL: not known; an empty file's
 * is known without it). */
void fcp_manifest_copied(struct fcp_job *job, const struct fcp_dir *d, const char *name,
			 const struct fcp_hash *h);

/* The entry rel (a path below d) that this run removed from DEST, or
 * replaced by something that is no file it recorded (a symlink, a special
 * file), or renamed to its backup name (-b): its record goes, and with
 * tree (a directory removed) every record below it, so that a check of
 * DEST alone does not say missing what the run took away on purpose. A
 * file gone from DEST by other hands keeps its record: that loss is said. */
void fcp_manifest_forget(struct fcp_job *job, const struct fcp_dir *d, const char *rel,
			 bool tree);
/* The same for the destination record key (fcp_manifest_key). */
void fcp_manifest_forget_key(struct fcp_job *job, const char *key, bool tree);

/* What --check --manifest FILE DEST (check_manifest.c) reads of a
 * manifest. With SQLite only. */

/* A destination file's record: its path relative to DEST ("": DEST
 * itself, a file), its size and, where one was recorded, its hash. */
struct fcp_manifest_row {
	char *path;
	uint64_t size;
	bool has_hash;
	struct fcp_hash h;
};

/* Open the manifest at path for job->man and start its writer, for a
 * check of DEST alone: never made, and its hashes not read in (the check
 * reads every row). Returns 0, or -1 after saying why it cannot be used. */
int fcp_manifest_open_check(struct fcp_job *job, const char *path);

/* Every destination row, in path order: *out (malloc'd, as each path)
 * holds *n of them. 0, or -1 after saying why the rest could not be read
 * (the rows read so far are in *out). */
int fcp_manifest_rows(struct fcp_job *job, struct fcp_manifest_row **out, size_t *n);

/* The DEST the manifest records (a check writes nothing of its own):
 * malloc'd, or NULL when none is (an older fastcp's). */
char *fcp_manifest_dest(struct fcp_job *job);

/* dest as a manifest records it: an absolute path without symlinks,
 * whether it exists yet or not. malloc'd, or NULL. */
char *fcp_manifest_dest_root(const char *dest);

#endif
