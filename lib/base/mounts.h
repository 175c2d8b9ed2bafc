/*
 * mounts.h - the mounts of this process, as /proc/self/mountinfo lists
 * them (mounts.c): which directory of which filesystem each one shows,
 * and where.
 *
 * A bind mount shows a directory (or a file) of a filesystem at another
 * place: st_dev and st_ino are the same on both sides, and ".." above it
 * leads to where it is mounted, not to what holds it in its filesystem.
 * What a directory is in its filesystem (its mount's root joined with what
 * lies below the mount point) is told by mountinfo alone. Parsing and
 * joining are pure (unit-tested); fcp_mounts_read reads the file.
 */
#ifndef FCP_MOUNTS_H
#define FCP_MOUNTS_H

#include <stddef.h>
#include <stdint.h>

struct fcp_mount {
	uint64_t id;            /* the mount id (statx's stx_mnt_id) */
	unsigned major, minor;  /* the filesystem, as mountinfo numbers it */
	char *root;             /* what it shows: a path in that filesystem */
	char *point;            /* where: a path of this process */
};

struct fcp_mounts {
	size_t n;
	struct fcp_mount *v;
};

/* One line of mountinfo into *m (root and point unescaped, malloc'd; a
 * root whose directory was removed loses mountinfo's "//deleted"). 0,
 * -EINVAL for a line that is not one, or -ENOMEM. */
int fcp_mount_parse(const char *line, struct fcp_mount *m);
void fcp_mount_clear(struct fcp_mount *m);

/* Every line of text (mountinfo's whole content) into *t, which is
 * emptied first; lines that are not mounts are skipped. 0 or -ENOMEM. */
int fcp_mounts_parse(const char *text, struct fcp_mounts *t);
/* /proc/self/mountinfo into *t: 0 or -errno (-ENOENT without /proc). */
int fcp_mounts_read(struct fcp_mounts *t);
const struct fcp_mount *fcp_mounts_find(const struct fcp_mounts *t, uint64_t id);
void fcp_mounts_free(struct fcp_mounts *t);

/* The path in m's filesystem of path, an absolute path of this process
 * on m: m's root joined with what of path lies below m's mount point
 * (malloc'd), or NULL when path is not below it (or memory is out). */
char *fcp_mount_fs_path(const struct fcp_mount *m, const char *path);

#endif
