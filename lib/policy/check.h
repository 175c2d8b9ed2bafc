/*
 * check.h - --check: compare each SOURCE with its copy, change nothing.
 *
 * The job runs as a dry run that decides by content (--checksum) and
 * looks for extras as --delete would, on the same parallel walk; plan.c
 * hands every entry here instead of deciding an action, and the same
 * comparisons (fcp_plan_meta_diff, fcp_plan_content) name each
 * difference. One line per difference on the job's output, the
 * destination path last:
 *
 *   missing in DEST: 'PATH'            (a directory once, not its content)
 *   extra in DEST: 'PATH'
 *   type directory != file: 'PATH'    (SOURCE's first, DEST's second)
 *   size 10 != 12: 'PATH'              (not read: sizes differ)
 *   content differs: 'PATH'
 *   holes filled (allocated 4096 != 10489856): 'PATH'
 *   symlink target differs: 'PATH'
 *   device 1:3 != 1:5: 'PATH'
 *   hard links differ: 'PATH'
 *   mode 0644 != 0600: 'PATH'
 *   owner 0:0 != 1000:1000: 'PATH'     (as root, as the copy keeps it)
 *   mtime 1700000000.000000001 != 1700000000.000000002: 'PATH'
 *   xattrs differ: 'PATH'              (ACLs and security labels included)
 *
 * An item that cannot be read is an error on stderr, with its path.
 */
#ifndef FCP_CHECK_H
#define FCP_CHECK_H

#include "core/node.h"

/* Compare entry e of d with what is at its destination name; say every
 * difference (a directory: only missing or another type; its metadata
 * when it is finished, fcp_check_dir). */
void fcp_check_entry(struct fcp_entry *e);

/* --check of directory e: true where it is missing in DEST and -m may
 * have pruned it: the walk goes on into its source, and it is named only
 * where something below it would have been copied (fcp_check_found). Else
 * as fcp_check_entry, and false. */
bool fcp_check_dir_entry(struct fcp_entry *e);

/* fcp_check_entry in two steps: statx e's destination (0 or -errno), then
 * say every difference given that result r and dst; same is the content's
 * comparison when made already (1 equal, 0 not), or -1 to make it here. */
int fcp_check_stat(struct fcp_entry *e, struct statx *dst);
void fcp_check_found(struct fcp_entry *e, int r, const struct statx *dst, int same);

/* For n regular files of one directory (e[i].st their sources' statx):
 * statx each destination (dst[i], result r[i] as fcp_check_stat's) and
 * compare the contents of the small ones that match in size a batch at a
 * time through io_uring (check_uring.c), where the job allows: same[i] is
 * 1 equal, 0 not, -1 not compared (read it one by one). */
void fcp_compare_batch(struct fcp_worker *w, struct fcp_entry *e, int n, struct statx *dst,
		       int *r, int *same);

/* The finished directory d (both fds usable): say how its metadata
 * differs. */
void fcp_check_dir(struct fcp_job *job, struct fcp_dir *d);

/* Say one difference: "WHAT: 'path'", counted. */
void fcp_check_say(struct fcp_job *job, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The kind of file mode is, in those differences' words: "file", "fifo",
 * "symlink", "character device"... */
const char *fcp_check_kind(mode_t mode);

/*
 * DEST is read from its storage (O_DIRECT) where its filesystem allows;
 * where it refuses, through the page cache, which may hold other bytes
 * than the disk (a copy checked right after it was written): said once
 * per filesystem, a note (the comparison stands for the bytes read, and
 * the exit status with it). fcp_check_no_direct: a file of directory d,
 * fd any descriptor on its filesystem, was read so. The two steps for a
 * caller without a directory node (--check --manifest FILE DEST): is fd's
 * filesystem new to this job (then it is said by the caller, with path:
 * the highest directory of DEST on it)?
 */
void fcp_check_no_direct(struct fcp_job *job, const struct fcp_dir *d, int fd);
bool fcp_check_no_direct_first(struct fcp_job *job, int fd);
void fcp_check_say_no_direct(struct fcp_job *job, int fd, const char *path);
/* Has filesystem dev refused O_DIRECT already (read it buffered)? */
bool fcp_check_direct_refused(struct fcp_job *job, uint64_t dev);

/* Has the copy e's source inode had (dst, a regular file) its holes
 * filled, where a fresh copy on that filesystem would keep them? --check
 * says so, and --sync and -c copy it again: one test for both. */
bool fcp_check_holes_filled(struct fcp_entry *e, const struct statx *dst);

/* --sync, -c: is dst, the inode of e's copy, already the copy of another
 * source inode seen in this job (hard links DEST has that the source has
 * not)? Then this name is copied again, on an inode of its own, as
 * --check counts the pair as a difference. The first name met keeps the
 * inode. */
bool fcp_check_links_taken(struct fcp_entry *e, const struct statx *dst);

/* The hard-link pairs seen (source inode, copy inode), the holes kept
 * by each DEST filesystem (--check, --sync, -c) and the filesystems that
 * refused O_DIRECT: made before the walk, freed after it. */
int fcp_check_links_init(struct fcp_job *job);
void fcp_check_links_free(struct fcp_job *job);

#endif
