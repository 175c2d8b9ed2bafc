/*
 * dest.c - create under a temporary name, rename into place.
 */
#include "dest.h"
#include "sys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define FCP_TMP_TRIES 100

int fcp_dest_make(struct fcp_worker *w, int dirfd, char tmp[FCP_TMPNAME_MAX],
		  int (*make)(int dirfd, const char *tmp, void *arg), void *arg)
{
	int r = -EEXIST;

	for (int i = 0; i < FCP_TMP_TRIES && r == -EEXIST; i++) {
		fcp_worker_tmpname(w, tmp, FCP_TMPNAME_MAX);
		r = make(dirfd, tmp, arg);
	}
	return r;
}

static int make_file(int dirfd, const char *tmp, void *arg)
{
	return fcp_sys_openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
			      *(mode_t *)arg);
}

int fcp_dest_create(struct fcp_worker *w, int dirfd, char tmp[FCP_TMPNAME_MAX], mode_t mode)
{
	if (!mode)
		mode = 0600;
	return fcp_dest_make(w, dirfd, tmp, make_file, &mode);
}

int fcp_dest_commit(struct fcp_job *job, struct fcp_dir *d, const char *tmp, const char *name)
{
	int r = fcp_sys_renameat(d->dst_fd, tmp, d->dst_fd, name, 0);

	if (r == -ENOTEMPTY || r == -EEXIST)
		r = -EISDIR;
	if (r < 0)
		fcp_dest_discard(job, d, tmp);
	return r;
}

void fcp_dest_discard(struct fcp_job *job, struct fcp_dir *d, const char *tmp)
{
	int r = fcp_sys_unlinkat(d->dst_fd, tmp, 0);

	if (r < 0 && r != -ENOENT) {
		char *p = fcp_dir_dst_path(d, tmp);
		fcp_report_error(job, "cannot remove temporary file", p, r);
		free(p);
	}
}

bool fcp_dest_has_default_acl(int dirfd)
{
	void *val = NULL;
	ssize_t n = fcp_sys_getxattr(dirfd, NULL, "system.posix_acl_default", &val);

	free(val);
	return n > 0;
}

int fcp_dest_mkdir(int dirfd, const char *name, bool *created)
{
	int r = fcp_sys_mkdirat(dirfd, name, 0700);

	*created = r == 0;
	if (r < 0 && r != -EEXIST)
		return r;
	r = fcp_sys_openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	if (r == -ELOOP)
		r = -ENOTDIR;
	return r;
}
