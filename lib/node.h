/*
 * node.h - helpers of the directory node model (job.h): a new work item,
 * and the paths of a node and of its entries.
 */
#ifndef FCP_NODE_H
#define FCP_NODE_H

#include "job.h"

/* A new item of kind for entry name of d (dst_name: its name in the copy,
 * NULL when the same), or NULL out of memory. */
struct fcp_item *fcp_item_new(enum fcp_item_kind kind, struct fcp_dir *d, const char *name,
			      const char *dst_name, unsigned char d_type);
/* "dir/name" for messages and lookups: a trailing slash of dir is not
 * doubled ("out/" + "d" is "out/d", "out//" is "out/"); "" + name is
 * name, dir + "" is dir. malloc'd. */
char *fcp_path_join(const char *dir, const char *name);
/* Source / destination path of an entry of d, for messages (malloc'd). */
char *fcp_dir_src_path(const struct fcp_dir *d, const char *name);
char *fcp_dir_dst_path(const struct fcp_dir *d, const char *name);
/* Path of d relative to its root copy ("" for the root itself). */
char *fcp_dir_rel_path(const struct fcp_dir *d);

#endif
