/*
 * path.h - paths judged as strings (path.c): no filesystem is asked.
 */
#ifndef FCP_PATH_H
#define FCP_PATH_H

#include <stdbool.h>

/* Where a symlink points, judged lexically from where it sits. */
struct fcp_link_class {
	bool absolute;
	bool internal;  /* the target lies inside the copied tree */
};

/*
 * Classify target of a link found at rel_dir (its directory, relative to
 * the copied root; "" for the root). src_root is the absolute source root.
 */
struct fcp_link_class fcp_link_classify(const char *target, const char *rel_dir,
					const char *src_root);

/*
 * For --symlinks=rewrite: an absolute target inside src_root re-pointed to
 * the same place under dst_root (malloc'd), or NULL to keep it as it is.
 */
char *fcp_link_rewrite(const char *target, const char *src_root, const char *dst_root);

/* Lexically normalise an absolute or relative path: drop "." and empty
 * components, resolve ".." against what precedes it (malloc'd). A relative
 * path that climbs above its start keeps its leading "..". */
char *fcp_path_normalize(const char *path);

/* What of path lies below dir, both absolute or both relative to one
 * place, judged by whole names ("/a/bc" is not below "/a/b"): "" for dir
 * itself, "c/d" for dir/c/d (no leading slash), NULL when path is neither
 * dir nor below it. "/" holds every absolute path. */
const char *fcp_path_under(const char *path, const char *dir);

#endif
