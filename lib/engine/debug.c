/*
 * debug.c - cp's --debug: how each file was copied, and why that way,
 * one line on the job's error stream per file:
 *
 *   fastcp: debug: 'src/a' -> 'dst/a': copy_file_range (no clone here)
 *
 * The line is written where the file's copy is done, by whichever path
 * did it (io_uring batch, one worker, chunks), so --debug changes no
 * choice it reports.
 */
#include "engine/debug.h"
#include "engine/engine.h"
#include "core/node.h"

#include <stdio.h>
#include <stdlib.h>

void fcp_debug_item(struct fcp_job *job, const struct fcp_dir *d, const char *name,
		    const char *dst_name, const char *how)
{
	char *s = fcp_dir_src_path(d, name), *t = fcp_dir_dst_path(d, dst_name);

	pthread_mutex_lock(&job->err_lock);
	fprintf(job->err, "fastcp: debug: '%s' -> '%s': %s\n", s ? s : name, t ? t : dst_name,
		how);
	pthread_mutex_unlock(&job->err_lock);
	free(s);
	free(t);
}

/* Why the engine that moved the data was the one. */
static const char *why(const struct fcp_job *job, const struct fcp_engine *e)
{
	if (e == &fcp_engine_clone)
		return "the destination shares the source's extents";
	if (e == &fcp_engine_range)
		return job->o->reflink == FCP_REFLINK_AUTO ? "no clone here; in-kernel copy"
							   : "--reflink=never; in-kernel copy";
	if (job->o->sparse != FCP_SPARSE_AUTO)
		return job->o->sparse == FCP_SPARSE_ALWAYS
			       ? "--sparse=always: blocks of zeros become holes"
			       : "--sparse=never: holes written as zeros";
	if (job->o->reflink == FCP_REFLINK_NEVER)
		return "--reflink=never; no in-kernel copy across these filesystems";
	return "neither clone nor copy_file_range between these filesystems";
}

void fcp_debug_file(struct fcp_job *job, const struct fcp_dir *d, const char *name,
		    const char *dst_name, const struct fcp_xfer *x, bool chunks)
{
	const struct fcp_engine *e = x->used ? x->used : &fcp_engine_rw;
	char line[320];

	snprintf(line, sizeof(line), "%s (%s)%s%s%s%s%s", x->used ? e->name : "nothing to copy",
		 x->used ? why(job, e) : "empty", chunks ? "; a large file, in chunks by several workers" : "",
		 x->direct > 0 ? "; read around the page cache (O_DIRECT: none of it was cached)" : "",
		 x->piped ? "; written so too, several requests in flight" : "",
		 x->ahead ? "; several reads in flight per runner (io_uring)" : "",
		 x->allocated < (uint64_t)x->size && e != &fcp_engine_clone &&
				 job->o->sparse == FCP_SPARSE_AUTO
			 ? "; holes kept (SEEK_DATA/SEEK_HOLE)" : "");
	fcp_debug_item(job, d, name, dst_name, line);
}
