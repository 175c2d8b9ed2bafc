/*
 * parents.c - cp's --parents: the directories of SOURCE's path are made
 * below DEST ("fastcp --parents a/b/f d" copies f to d/a/b/f), each one
 * made given its source's mode and owner (as the job preserves them) and,
 * once the copy is in, its times, as cp does. A ".." in the path is
 * refused: it would climb out of DEST. A symlink found in DEST on the way
 * is not followed: the copy stays below DEST.
 */
#include "dest/dest.h"
#include "core/node.h"
#include "tree/parents.h"
#include "policy/plan.h"
#include "base/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *fcp_parents_path(const char *src)
{
	char *copy = strdup(src), *out = calloc(1, strlen(src) + 1), *tok, *rest = copy;
	bool ok = copy && out;

	while (ok && (tok = strsep(&rest, "/"))) {
		if (!*tok || !strcmp(tok, "."))
			continue;
		if (!strcmp(tok, ".."))
			ok = false;
		else
			strcat(strcat(out, *out ? "/" : ""), tok);
	}
	free(copy);
	if (ok && *out)
		return out;
	free(out);
	return NULL;
}

/* The source directory of the first len bytes of path, as src spells
 * it: src is path with slashes and "." components around. */
static int stat_source(const char *src, const char *path, size_t len, struct statx *st)
{
	char *p;
	int r;

	/* path's components are src's in order: the prefix of src that holds
	 * as many of them names the same directory. */
	size_t k = 0, comps = 1;
	for (size_t i = 0; i < len; i++)
		comps += path[i] == '/';
	for (const char *s = src; *s && comps; ) {
		while (*s == '/')
			s++;
		const char *e = strchrnul(s, '/');
		if (e - s && !(e - s == 1 && *s == '.'))
			comps--;
		s = e;
		k = s - src;
	}
	if (!(p = strndup(src, k)))
		return -ENOMEM;
	r = fcp_sys_statx(AT_FDCWD, p, 0, STATX_BASIC_STATS, st);
	free(p);
	return r;
}

/* The owner now; the mode at the end (fcp_parents_finish): until then
 * the directory stays 0700, writable and ours, however its source is. */
static void give_owner(struct fcp_job *job, int fd, const struct statx *st)
{
	if ((job->o->preserve & FCP_PRESERVE_OWNER) && job->is_root)
		fcp_sys_fchown(fd, st->stx_uid, st->stx_gid);
}

static int remember(struct fcp_parents *p, int fd, const struct statx *st)
{
	int *fds = realloc(p->fds, (p->n + 1) * sizeof(*fds));
	struct statx *sts = fds ? realloc(p->st, (p->n + 1) * sizeof(*sts)) : NULL;

	if (fds)
		p->fds = fds;
	if (!sts)
		return -ENOMEM;
	p->st = sts;
	p->fds[p->n] = fd;
	p->st[p->n++] = *st;
	return 0;
}

/* --dry-run: the directories of path are opened where they exist and
 * named where they would be made, never made; p->fd stays -1 from the
 * first one missing (everything below it would be new). */
static int parents_look(struct fcp_job *job, int destfd, const char *dest, const char *path,
			size_t end, struct fcp_parents *p)
{
	int fd = fcp_sys_dup(destfd);

	for (size_t at = 0; at < end; ) {
		size_t n = strcspn(path + at, "/");
		char *name = strndup(path + at, n);
		int next = -ENOENT;

		if (!name) {
			if (fd >= 0)
				close(fd);
			return -ENOMEM;
		}
		if (fd >= 0)
			next = fcp_sys_openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
		if (next < 0) {
			char *part = strndup(path, at + n);
			char *where = part ? fcp_path_join(dest, part) : NULL;

			fcp_report_plan_item(job, "mkdir", S_IFDIR, where ? where : path, 0, 0);
			free(where);
			free(part);
		}
		free(name);
		if (fd >= 0)
			close(fd);
		fd = next < 0 ? -1 : next;
		at += n + 1;
	}
	p->fd = fd;
	return 0;
}

int fcp_parents_make(struct fcp_job *job, int destfd, const char *dest, const char *src,
		     const char *path, struct fcp_parents *p)
{
	const char *slash = strrchr(path, '/');
	size_t end = slash ? (size_t)(slash - path) : 0;
	int fd, r = 0;

	memset(p, 0, sizeof(*p));
	if (job->o->dry_run)
		return parents_look(job, destfd, dest, path, end, p);
	fd = fcp_sys_dup(destfd);
	for (size_t at = 0; fd >= 0 && at < end; ) {
		size_t n = strcspn(path + at, "/");
		char *name = strndup(path + at, n);
		struct statx st;
		bool created;
		int next = name ? fcp_dest_mkdir(fd, name, &created) : -ENOMEM;

		if (next >= 0 && created && (r = stat_source(src, path, at + n, &st)) == 0) {
			give_owner(job, next, &st);
			r = remember(p, fcp_sys_dup(next), &st);
		}
		if (next < 0 || r < 0) {
			char *where = strndup(path, at + n);
			fcp_report_failed(job, "cannot make directory", where ? where : path,
					  next < 0 ? next : r);
			free(where);
			r = next < 0 ? next : r;
			if (next >= 0)
				close(next);
			next = -1;
		}
		free(name);
		close(fd);
		fd = next;
		at += n + 1;
	}
	p->fd = fd;
	if (fd < 0) {
		fcp_parents_finish(job, p);
		return r < 0 ? r : fd;
	}
	return 0;
}

void fcp_parents_finish(struct fcp_job *job, struct fcp_parents *p)
{
	/* Innermost first: nothing changes an outer one's times after. */
	for (int i = p->n - 1; i >= 0; i--) {
		const struct statx *st = &p->st[i];
		struct timespec ts[2] = { { st->stx_atime.tv_sec, st->stx_atime.tv_nsec },
					  { st->stx_mtime.tv_sec, st->stx_mtime.tv_nsec } };

		if (p->fds[i] < 0)
			continue;
		fcp_sys_fchmod(p->fds[i], job->o->preserve & FCP_PRESERVE_MODE
						  ? st->stx_mode & 07777
						  : 0777 & ~job->umask);
		if (job->o->preserve & FCP_PRESERVE_TIMES)
			fcp_sys_futimens(p->fds[i], ts);
		/* --fsync: each made one holds the next (DEST: the job's). */
		if (job->o->fsync)
			fcp_sys_fsync(p->fds[i]);
		if (p->fds[i] >= 0)
			close(p->fds[i]);
	}
	if (p->fd >= 0 && job->o->fsync) /* it holds the copy's name */
		fcp_sys_fsync(p->fd);
	if (p->fd >= 0)
		close(p->fd);
	free(p->fds);
	free(p->st);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}
