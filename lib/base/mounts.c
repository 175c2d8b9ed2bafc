/*
 * mounts.c - the mounts of this process (mounts.h).
 *
 * A line of /proc/self/mountinfo (proc(5)):
 *   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw
 * the mount id, its parent's, the filesystem's major:minor, the root (what
 * of the filesystem it shows), the mount point, then options. In the root
 * and the mount point, space, tab, newline and backslash are written as
 * octal escapes ("\040"); a root whose directory was removed ends in
 * "//deleted", which no path of a live directory does.
 */
#include "base/mounts.h"
#include "base/grow.h"
#include "base/path.h"
#include "base/sys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The field at *p (up to a space or the end of the line), unescaped,
 * into *out (malloc'd); *p passes it and the spaces after it. 0, -EINVAL
 * where there is none, -ENOMEM. */
static int field(const char **p, char **out)
{
	const char *s = *p, *e = s;
	char *o;

	while (*e && *e != ' ' && *e != '\n')
		e++;
	if (e == s)
		return -EINVAL;
	if (!(*out = o = malloc(e - s + 1)))
		return -ENOMEM;
	for (; s < e; s++) {
		if (*s == '\\' && e - s >= 4 && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
	while (*e == ' ')
		e++;
	*p = e;
	return 0;
}

int fcp_mount_parse(const char *text, struct fcp_mount *m)
{
	unsigned long long id, parent;
	int used = 0, r = -EINVAL;
	/* One line: sscanf's spaces would match a newline too. */
	char *line = strndup(text, strcspn(text, "\n"));
	const char *p = line;
	size_t n;

	memset(m, 0, sizeof(*m));
	if (!line)
		return -ENOMEM;
	if (sscanf(line, "%llu %llu %u:%u%n", &id, &parent, &m->major, &m->minor, &used) < 4 ||
	    !used || line[used] != ' ')
		goto out;
	m->id = id;
	for (p = line + used; *p == ' '; p++)
		;
	if ((r = field(&p, &m->root)) < 0 || (r = field(&p, &m->point)) < 0)
		goto out;
	n = strlen(m->root);
	if (n > 9 && !strcmp(m->root + n - 9, "//deleted"))
		m->root[n - 9] = 0;
	r = m->root[0] == '/' && m->point[0] == '/' ? 0 : -EINVAL;
out:
	if (r < 0)
		fcp_mount_clear(m);
	free(line);
	return r;
}

void fcp_mount_clear(struct fcp_mount *m)
{
	free(m->root);
	free(m->point);
	m->root = m->point = NULL;
}

void fcp_mounts_free(struct fcp_mounts *t)
{
	for (size_t i = 0; i < t->n; i++)
		fcp_mount_clear(&t->v[i]);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

int fcp_mounts_parse(const char *text, struct fcp_mounts *t)
{
	size_t cap = 0;

	fcp_mounts_free(t);
	while (*text) {
		const char *nl = strchr(text, '\n');
		struct fcp_mount m;
		struct fcp_mount *v;
		int r = fcp_mount_parse(text, &m);

		if (r == -ENOMEM)
			return r;
		if (r == 0) {
			if (!(v = fcp_grow(t->v, &cap, t->n + 1, sizeof(*t->v), 32))) {
				fcp_mount_clear(&m);
				return -ENOMEM;
			}
			t->v = v;
			t->v[t->n++] = m;
		}
		if (!nl)
			break;
		text = nl + 1;
	}
	return 0;
}

int fcp_mounts_read(struct fcp_mounts *t)
{
	int fd = fcp_sys_openat(AT_FDCWD, "/proc/self/mountinfo", O_RDONLY | O_CLOEXEC, 0);
	size_t cap = 0, len = 0;
	char *buf = NULL, *b;
	ssize_t n = 0;
	int r;

	if (fd < 0)
		return fd;
	/* Its size is not known before it is read (a stat says 0). */
	do {
		len += n;
		if (!(b = fcp_grow(buf, &cap, len + 4096 + 1, 1, 16384))) {
			n = -ENOMEM;
			break;
		}
		buf = b;
	} while ((n = fcp_sys_read_full(fd, buf + len, cap - len - 1)) > 0);
	close(fd);
	if (n < 0) {
		free(buf);
		return (int)n;
	}
	buf[len] = 0;
	r = fcp_mounts_parse(buf, t);
	free(buf);
	return r;
}

const struct fcp_mount *fcp_mounts_find(const struct fcp_mounts *t, uint64_t id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].id == id)
			return &t->v[i];
	return NULL;
}

char *fcp_mount_fs_path(const struct fcp_mount *m, const char *path)
{
	const char *below = fcp_path_under(path, m->point);
	size_t n = strlen(m->root);
	char *out;

	if (!below)
		return NULL;
	if (!*below)
		return strdup(m->root);
	while (n > 1 && m->root[n - 1] == '/')
		n--;
	if (!(out = malloc(n + strlen(below) + 2)))
		return NULL;
	sprintf(out, "%.*s%s%s", (int)n, m->root, n == 1 ? "" : "/", below);
	return out;
}
