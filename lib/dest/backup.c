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
#include "dest/backup.h"
#include "base/sys.h"
#include "core/worker.h"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
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

/*
 * The backup names this run made, by directory (its device and inode),
 * and the backup-like names its copies write there: a backup is never
 * renamed over one. Two files replaced in one directory may want one
 * simple name ("a" wants "a~~" where the source has "a~", and so does
 * "a~" replaced itself): the second takes the next one. A SOURCE merging
 * into the copy after another (each in its round), or another operand
 * copied into one directory, has no "a~" of its own where the other wrote
 * one: noted when walked, that name is not taken either.
 */
struct made {
	uint64_t dev, ino;
	char *name;
};

struct fcp_backups {
	struct made *slot; /* open addressing, cap a power of two */
	size_t n, cap;
};

/* Choosing a name and taking it is one step for all the workers: else two
 * choose one name, and the second rename replaces the first's backup. */
static pthread_mutex_t made_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t made_slot(const struct fcp_backups *s, const struct made *m)
{
	uint64_t h = m->dev * 0x9e3779b97f4a7c15ull ^ m->ino;
	size_t i;

	for (const unsigned char *p = (const unsigned char *)m->name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	for (i = h & (s->cap - 1); s->slot[i].name; i = (i + 1) & (s->cap - 1))
		if (s->slot[i].dev == m->dev && s->slot[i].ino == m->ino &&
		    !strcmp(s->slot[i].name, m->name))
			break;
	return i;
}

static bool made(const struct fcp_backups *s, const struct made *m)
{
	return s && s->cap && s->slot[made_slot(s, m)].name;
}

static int made_grow(struct fcp_backups *s)
{
	struct fcp_backups n = { calloc(s->cap ? s->cap * 2 : 64, sizeof(*n.slot)), s->n,
				 s->cap ? s->cap * 2 : 64 };

	if (!n.slot)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slot[i].name)
			n.slot[made_slot(&n, &s->slot[i])] = s->slot[i];
	free(s->slot);
	*s = n;
	return 0;
}

/* Note m (its name copied) among the names no backup takes. */
static int remember(struct fcp_job *job, struct made m)
{
	struct fcp_backups *s = job->backups;
	size_t i;

	if (!s && !(s = job->backups = calloc(1, sizeof(*s))))
		return -ENOMEM;
	if ((s->n + 1) * 2 > s->cap && made_grow(s) < 0)
		return -ENOMEM;
	if (s->slot[i = made_slot(s, &m)].name) /* noted already */
		return 0;
	if (!(m.name = strdup(m.name)))
		return -ENOMEM;
	s->slot[i] = m;
	s->n++;
	return 0;
}

int fcp_backup_note_copy(struct fcp_job *job, uint64_t dev, uint64_t ino, const char *name)
{
	int r;

	/* Only a name a simple backup could take needs noting. */
	if (!fcp_backup_name_like(job->o, name))
		return 0;
	pthread_mutex_lock(&made_lock);
	r = remember(job, (struct made){ dev, ino, (char *)name });
	pthread_mutex_unlock(&made_lock);
	return r;
}

void fcp_backup_free(struct fcp_job *job)
{
	struct fcp_backups *s = job->backups;

	for (size_t i = 0; s && i < s->cap; i++)
		free(s->slot[i].name);
	if (s)
		free(s->slot);
	free(s);
	job->backups = NULL;
}

/* Where a backup is made: the directory dirfd (its device and inode) and
 * the source directory whose entries are copied into it (srcfd, or -1). */
struct place {
	int dirfd, srcfd;
	uint64_t dev, ino;
};

static int place_of(struct place *at, int dirfd, int srcfd)
{
	struct statx st;
	int r = fcp_sys_fstatx(dirfd, &st);

	*at = (struct place){ dirfd, srcfd, fcp_statx_dev(&st), st.stx_ino };
	return r;
}

/* Is name one the copy writes here (the source directory has it, or a
 * SOURCE walked so far had it: fcp_backup_note_copy) or a backup this run
 * made here? Neither is an older backup to replace. A source name that
 * cannot be asked counts as the copy's. */
static bool taken(const struct fcp_job *job, const struct place *at, const char *name)
{
	struct statx st;

	if (made(job->backups, &(struct made){ at->dev, at->ino, (char *)name }))
		return true;
	return at->srcfd >= 0 &&
	       fcp_sys_statx(at->srcfd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) != -ENOENT;
}

/* NAME~, or NAME~~ (and so on) past the names that are taken(), as cp
 * run in order would name them. */
static int simple_name(const struct fcp_job *job, const struct place *at, const char *name,
		       char **out)
{
	const char *suffix = suffix_of(job->o);
	size_t len = strlen(name), n = strlen(suffix);
	char *b = malloc(NAME_MAX + 1);

	if (!b)
		return -ENOMEM;
	memcpy(b, name, len + 1);
	do {
		if (len + n > NAME_MAX) {
			free(b);
			return -ENAMETOOLONG;
		}
		memcpy(b + len, suffix, n + 1);
		len += n;
	} while (taken(job, at, b));
	*out = b;
	return 0;
}

/* The backup name of name at at (malloc'd in *out): 0 or -errno. A
 * numbered one is one past the highest of the destination's and of the
 * source's (whose names the copy writes). */
static int backup_name(const struct fcp_job *job, const struct place *at, const char *name,
		       char **out, bool *numbered)
{
	const struct fcp_options *o = job->o;
	long n = 0, m = 0;

	if (o->backup != FCP_BACKUP_SIMPLE && (n = highest_number(at->dirfd, name)) < 0)
		return (int)n;
	*numbered = o->backup == FCP_BACKUP_NUMBERED || (o->backup == FCP_BACKUP_EXISTING && n > 0);
	if (!*numbered)
		return simple_name(job, at, name, out);
	if (at->srcfd >= 0 && (m = highest_number(at->srcfd, name)) < 0)
		return (int)m;
	return asprintf(out, "%s.~%ld~", name, (n > m ? n : m) + 1) < 0 ? -ENOMEM : 0;
}

static bool no_hard_links(int err)
{
	return err == -EPERM || err == -EOPNOTSUPP || err == -EMLINK || err == -ENOSYS;
}

/* Rename from to the backup name b: a simple one replaces an older backup
 * of that name, as cp's does; a numbered one replaces nothing. Where the
 * filesystem takes no rename flags, the name is asked first (under
 * made_lock, no worker of this run takes it meanwhile). */
static int take_name(struct fcp_job *job, const struct place *at, const char *from,
		     const char *b, bool numbered)
{
	struct statx st;
	int r;

	if (!numbered)
		return fcp_sys_renameat(at->dirfd, from, at->dirfd, b, 0);
	if (!atomic_load(&job->rename_flags_refused)) {
		r = fcp_sys_renameat(at->dirfd, from, at->dirfd, b, RENAME_NOREPLACE);
		if (r != -EINVAL && r != -ENOSYS)
			return r;
		atomic_store(&job->rename_flags_refused, true);
	}
	r = fcp_sys_statx(at->dirfd, b, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st);
	if (r != -ENOENT)
		return r == 0 ? -EEXIST : r;
	return fcp_sys_renameat(at->dirfd, from, at->dirfd, b, 0);
}

/* Under made_lock: name (or, for fcp_backup_make, its hard link tmp)
 * gets its backup name, noted as this run's. *out: that name. */
static int back_up_locked(struct fcp_job *job, const struct place *at, const char *name,
			  const char *tmp, char **out)
{
	bool numbered;
	int r = backup_name(job, at, name, out, &numbered);

	if (r < 0)
		return r;
	r = take_name(job, at, tmp ? tmp : name, *out, numbered);
	if (r == 0)
		r = remember(job, (struct made){ at->dev, at->ino, *out });
	if (r < 0) {
		free(*out);
		*out = NULL;
	}
	return r;
}

static int back_up(struct fcp_job *job, int dirfd, int srcfd, const char *name, const char *tmp,
		   char **out)
{
	struct place at;
	int r = place_of(&at, dirfd, srcfd);

	if (r < 0)
		return r;
	pthread_mutex_lock(&made_lock);
	r = back_up_locked(job, &at, name, tmp, out);
	pthread_mutex_unlock(&made_lock);
	return r;
}

int fcp_backup_make(struct fcp_worker *w, int dirfd, int srcfd, const char *name)
{
	struct fcp_job *job = fcp_worker_job(w);
	char tmp[64], *b = NULL;
	int r;

	fcp_worker_tmpname(w, fcp_tmpname_key(dirfd), tmp, sizeof(tmp));
	r = fcp_sys_linkat(dirfd, name, dirfd, tmp, 0);
	/* Renamed onto another name of the same inode (a backup made of
	 * this very file), rename() does nothing: tmp goes either way. */
	if (r == 0) {
		r = back_up(job, dirfd, srcfd, name, tmp, &b);
		fcp_sys_unlinkat(dirfd, tmp, 0);
	} else if (no_hard_links(r)) {
		r = back_up(job, dirfd, srcfd, name, NULL, &b);
	}
	free(b);
	return r;
}

int fcp_backup_rename(struct fcp_job *job, int dirfd, int srcfd, const char *name,
		      char **backup)
{
	char *b = NULL;
	/* One rename: the data never lacks a name. */
	int r = back_up(job, dirfd, srcfd, name, NULL, &b);

	if (r == 0 && backup)
		*backup = b;
	else
		free(b);
	return r;
}

/* The backup name name in dirfd would get now (in *b, to free), as
 * fcp_backup_make would choose it; 0 or -errno. */
static int name_now(struct fcp_job *job, int dirfd, int srcfd, const char *name, char **b)
{
	struct place at;
	bool numbered;
	int r = place_of(&at, dirfd, srcfd);

	if (r == 0) {
		pthread_mutex_lock(&made_lock);
		r = backup_name(job, &at, name, b, &numbered);
		pthread_mutex_unlock(&made_lock);
	}
	return r;
}

int fcp_backup_would(struct fcp_job *job, int dirfd, int srcfd, const char *name)
{
	struct statx st;
	char *b = NULL;
	int r = name_now(job, dirfd, srcfd, name, &b);

	/* A rename onto a directory fails so (a numbered name is new). */
	if (r == 0 && fcp_sys_statx(dirfd, b, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) == 0 &&
	    S_ISDIR(st.stx_mode))
		r = -EISDIR;
	free(b);
	return r;
}

bool fcp_backup_is_source(struct fcp_worker *w, int dirfd, int srcfd, const char *name,
			  const struct statx *src)
{
	struct statx at;
	bool is = false;
	char *b = NULL;

	if (name_now(fcp_worker_job(w), dirfd, srcfd, name, &b) < 0)
		return false;
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
