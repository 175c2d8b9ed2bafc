/*
 * backup.c - cp's --backup: keep a destination file about to be replaced.
 *
 * The names are cp's: simple "NAME~" (or -S SUFFIX, or
 * $SIMPLE_BACKUP_SUFFIX), numbered "NAME.~N~" one past the highest there,
 * existing: numbered where NAME has numbered backups already, else simple.
 *
 * The old file gets its backup name by a hard link (made under a
 * temporary name, then renamed over an older backup of that name), not by
 * renaming it away: until the copy is renamed over it the file keeps its
 * own name, so a copy that fails leaves it where it was. Where the
 * filesystem has no hard links it is renamed, as cp does.
 */
#include "backup.h"
#include "sys.h"
#include "worker.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The highest N of name's "name.~N~" backups in dirfd (0: none), or -errno. */
static long highest_number(int dirfd, const char *name)
{
	int fd = fcp_sys_openat(dirfd, ".", O_RDONLY | O_DIRECTORY, 0);
	size_t len = strlen(name);
	struct dirent *de;
	long best = 0;
	DIR *dir;

	if (fd < 0)
		return fd;
	if (!(dir = fdopendir(fd))) {
		close(fd);
		return -ENOMEM;
	}
	while ((de = readdir(dir))) {
		const char *p = de->d_name + len + 2;
		char *end;
		long n;

		if (strncmp(de->d_name, name, len) || strncmp(de->d_name + len, ".~", 2) ||
		    *p < '1' || *p > '9')
			continue;
		n = strtol(p, &end, 10);
		if (end[0] == '~' && !end[1] && n > best)
			best = n;
	}
	closedir(dir);
	return best;
}

/* The simple backups' suffix: -S, else $SIMPLE_BACKUP_SUFFIX, else "~". */
static const char *suffix_of(const struct fcp_options *o)
{
	const char *suffix = o->backup_suffix ? o->backup_suffix : getenv("SIMPLE_BACKUP_SUFFIX");

	return !suffix || !*suffix || strchr(suffix, '/') ? "~" : suffix;
}

/* Does name end in ".~N~" (N from 1), after at least one character? */
static bool numbered_name(const char *name)
{
	size_t len = strlen(name), i = len;

	if (len < 5 || name[len - 1] != '~')
		return false;
	for (i = len - 1; i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9'; i--)
		;
	return i < len - 1 && name[i] != '0' && i >= 3 && name[i - 1] == '~' &&
	       name[i - 2] == '.';
}

bool fcp_backup_name_like(const struct fcp_options *o, const char *name)
{
	const char *suffix = suffix_of(o);
	size_t len = strlen(name), n = strlen(suffix);

	if (o->backup == FCP_BACKUP_NONE)
		return false;
	return (len > n && !strcmp(name + len - n, suffix)) || numbered_name(name);
}

static char *backup_name(const struct fcp_options *o, int dirfd, const char *name)
{
	const char *suffix = suffix_of(o);
	long n = 0;
	char *b;

	if (o->backup != FCP_BACKUP_SIMPLE && (n = highest_number(dirfd, name)) < 0)
		return NULL;
	if (o->backup == FCP_BACKUP_NUMBERED || (o->backup == FCP_BACKUP_EXISTING && n > 0))
		return asprintf(&b, "%s.~%ld~", name, n + 1) < 0 ? NULL : b;
	return asprintf(&b, "%s%s", name, suffix) < 0 ? NULL : b;
}

static bool no_hard_links(int err)
{
	return err == -EPERM || err == -EOPNOTSUPP || err == -EMLINK || err == -ENOSYS;
}

int fcp_backup_make(struct fcp_worker *w, int dirfd, const char *name)
{
	const struct fcp_options *o = fcp_worker_job(w)->o;
	char tmp[64], *b = backup_name(o, dirfd, name);
	int r;

	if (!b)
		return -ENOMEM;
	fcp_worker_tmpname(w, tmp, sizeof(tmp));
	r = fcp_sys_linkat(dirfd, name, dirfd, tmp, 0);
	/* Renamed onto another name of the same inode (a backup made of
	 * this very file), rename() does nothing: tmp goes either way. */
	if (r == 0) {
		r = fcp_sys_renameat(dirfd, tmp, dirfd, b, 0);
		fcp_sys_unlinkat(dirfd, tmp, 0);
	} else if (no_hard_links(r)) {
		r = fcp_sys_renameat(dirfd, name, dirfd, b, 0);
	}
	free(b);
	return r;
}

int fcp_backup_rename(const struct fcp_options *o, int dirfd, const char *name, char **backup)
{
	char *b = backup_name(o, dirfd, name);
	int r;

	if (!b)
		return -ENOMEM;
	/* One rename: the data never lacks a name. */
	r = fcp_sys_renameat(dirfd, name, dirfd, b, 0);
	if (r == 0 && backup)
		*backup = b;
	else
		free(b);
	return r;
}

bool fcp_backup_is_source(struct fcp_worker *w, int dirfd, const char *name,
			  const struct statx *src)
{
	char *b = backup_name(fcp_worker_job(w)->o, dirfd, name);
	struct statx at;
	bool is = false;

	/* A symlink there to the source counts too: the source may have
	 * been reached through it (-L, -H). */
	if (b && fcp_sys_statx(dirfd, b, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &at) == 0)
		is = fcp_statx_same_inode(&at, src) ||
		     (S_ISLNK(at.stx_mode) &&
		      fcp_sys_statx(dirfd, b, 0, STATX_BASIC_STATS, &at) == 0 &&
		      fcp_statx_same_inode(&at, src));
	free(b);
	return is;
}
