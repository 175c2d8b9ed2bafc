/*
 * entry_link.c - cp's -l and -s: the copy of a non-directory is a link to
 * its source, a hard link (-l) or a symlink to the source's path (-s).
 * Directories are made as in a copy. The link is made under a temporary
 * name and renamed into place, as a copy would be: what was there goes
 * only when the link is ready.
 */
#include "engine/debug.h"
#include "dest/dest.h"
#include "tree/entry.h"
#include "dest/manifest.h"
#include "core/node.h"
#include "base/sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int make_hard(int dirfd, const char *tmp, void *arg)
{
	struct fcp_entry *e = arg;
	/* -L: a link to what a symlink leads to, as in cp -lL. */
	int flags = e->job->o->symlinks == FCP_SYMLINKS_FOLLOW ||
				    (e->d->is_top && e->job->o->deref_args)
			    ? AT_SYMLINK_FOLLOW
			    : 0;

	return fcp_sys_linkat(e->d->src_fd, e->name, dirfd, tmp, flags);
}

static int make_sym(int dirfd, const char *tmp, void *target)
{
	return fcp_sys_symlinkat(target, dirfd, tmp);
}

/* Is the directory fd the current directory? */
static bool is_cwd(int fd)
{
	struct statx a, b;

	return fcp_sys_fstatx(fd, &a) == 0 &&
	       fcp_sys_statx(AT_FDCWD, ".", 0, STATX_BASIC_STATS, &b) == 0 &&
	       fcp_statx_same_inode(&a, &b);
}

/* The symlink's target: the source's path as given. A relative one is
 * right only where the link is made in the current directory, which cp
 * requires; elsewhere NULL after reporting it. */
static char *sym_target(struct fcp_entry *e)
{
	char *p = fcp_dir_src_path(e->d, e->name);

	if (p && p[0] != '/' && !(e->d->is_top && is_cwd(e->d->dst_fd))) {
		fcp_report_failed_in(e->job, "can make relative symbolic links only in the "
				     "current directory, not", e->d, e->dst_name, true, 0);
		free(p);
		return NULL;
	}
	if (!p)
		fcp_entry_fail(e, "out of memory at", -ENOMEM);
	return p;
}

void fcp_entry_link(struct fcp_entry *e)
{
	bool hard = e->job->o->make == FCP_MAKE_HARDLINK;
	char tmp[FCP_TMPNAME_MAX], *target = NULL;
	const char *at = tmp;
	int r;

	if (!hard && !(target = sym_target(e)))
		return;
	r = fcp_dest_make_for(e->w, e->d, e->dst_name, tmp, &at, hard ? make_hard : make_sym,
			      hard ? (void *)e : target);
	free(target);
	if (r < 0) {
		fcp_entry_fail(e, hard ? "cannot create hard link to" : "cannot create symlink to", r);
		return;
	}
	r = at == tmp ? fcp_dest_commit(e->job, e->d, tmp, e->dst_name) : 0;
	/* A name already linked to the source (a second run of -l): the
	 * rename of another link of the same inode does nothing. */
	if (at == tmp && r == 0)
		fcp_sys_unlinkat(e->d->dst_fd, tmp, 0);
	if (r < 0) {
		fcp_entry_fail(e, r == -EISDIR ? "cannot overwrite directory with" : "cannot rename", r);
		return;
	}
	atomic_fetch_add(hard ? &e->job->c.hardlinks : &e->job->c.symlinks, 1);
	/* A link the run did not hash took the place of what was there. */
	if (e->dst_mode)
		fcp_manifest_forget(e->job, e->d, e->dst_name, false);
	if (e->job->o->debug)
		fcp_debug_item(e->job, e->d, e->name, e->dst_name,
			       hard ? "hard link to the source (-l)" : "symlink to the source (-s)");
}
