/*
 * dest.c - create under a temporary name, rename into place.
 */
#include "dest.h"
#include "sys.h"

#include <errno.h>
#include <stdio.h>

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
	(void)arg;
	return fcp_sys_openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
}

int fcp_dest_create(struct fcp_worker *w, int dirfd, char tmp[FCP_TMPNAME_MAX])
{
	return fcp_dest_make(w, dirfd, tmp, make_file, NULL);
}

int fcp_dest_commit(int dirfd, const char *tmp, const char *name)
{
	int r = fcp_sys_renameat(dirfd, tmp, dirfd, name, 0);

	if (r == -ENOTEMPTY || r == -EEXIST)
		r = -EISDIR;
	if (r < 0)
		fcp_dest_discard(dirfd, tmp);
	return r;
}

void fcp_dest_discard(int dirfd, const char *tmp)
{
	fcp_sys_unlinkat(dirfd, tmp, 0);
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
