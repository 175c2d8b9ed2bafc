/*
 * debug.h - cp's --debug: which engine copied each file, and why
 * (debug.c). Called only when the job's o->debug is set.
 */
#ifndef FCP_DEBUG_H
#define FCP_DEBUG_H

#include "core/job.h"

struct fcp_xfer;

/* "fastcp: debug: 'SRC' -> 'DST': how" for entry name of d. */
void fcp_debug_item(struct fcp_job *job, const struct fcp_dir *d, const char *name,
		    const char *dst_name, const char *how);

/* The same for a regular file whose data x moved (chunks: in chunks). */
void fcp_debug_file(struct fcp_job *job, const struct fcp_dir *d, const char *name,
		    const char *dst_name, const struct fcp_xfer *x, bool chunks);

#endif
