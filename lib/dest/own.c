/*
 * own.c - the files this job writes itself (own.h).
 */
#include "dest/own.h"
#include "base/sys.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct own_file {
	uint64_t dev, ino; /* the directory that holds it */
	char *name;
};

struct fcp_own {
	struct own_file *v;
	size_t n;
};

/* SQLite's names beside a database: a file of either may appear at any
 * time while the job runs. */
static const char *const db_suffixes[] = { "", "-wal", "-shm", "-journal", NULL };
static const char *const plain[] = { "", NULL };

/* Split path into its directory (statx'd, followed) and last name. */
static int split(const char *path, struct statx *dir, char **name)
{
	char *copy = strdup(path), *slash;
	size_t n = copy ? strlen(copy) : 0;
	int r;

	if (!copy)
		return -ENOMEM;
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = 0;
	slash = strrchr(copy, '/');
	*name = strdup(slash ? slash + 1 : copy);
	if (slash)
		slash[slash == copy] = 0; /* "/x": the directory is "/" */
	r = *name ? fcp_sys_statx(AT_FDCWD, slash ? copy : ".", 0, STATX_BASIC_STATS, dir)
		  : -ENOMEM;
	free(copy);
	if (r < 0) {
		free(*name);
		*name = NULL;
	}
	return r;
}

static int add(struct fcp_own *own, const struct statx *dir, const char *name,
	       const char *suffix)
{
	struct own_file *v = realloc(own->v, (own->n + 1) * sizeof(*v));
	size_t a = strlen(name), b = strlen(suffix);

	if (!v)
		return -ENOMEM;
	own->v = v;
	if (!(v[own->n].name = malloc(a + b + 1)))
		return -ENOMEM;
	memcpy(v[own->n].name, name, a);
	memcpy(v[own->n].name + a, suffix, b + 1);
	v[own->n].dev = fcp_statx_dev(dir);
	v[own->n].ino = dir->stx_ino;
	own->n++;
	return 0;
}

/* path as given and as resolved, with each suffix. A directory that
 * cannot be found holds nothing this job writes. */
static int add_path(struct fcp_own *own, const char *path, const char *const *suffixes)
{
	char real[PATH_MAX], *name;
	const char *ways[2] = { path, realpath(path, real) ? real : NULL };
	struct statx dir;
	int r = 0;

	for (int w = 0; w < 2 && r >= 0; w++) {
		if (!ways[w] || split(ways[w], &dir, &name) < 0)
			continue;
		for (int s = 0; suffixes[s] && r >= 0; s++)
			r = add(own, &dir, name, suffixes[s]);
		free(name);
	}
	return r;
}

int fcp_own_init(struct fcp_job *job)
{
	const struct fcp_options *o = job->o;
	struct fcp_own *own = calloc(1, sizeof(*own));
	int r = own ? 0 : -ENOMEM;

	job->own = own;
	if (r == 0 && o->manifest)
		r = add_path(own, o->manifest, db_suffixes);
	/* "-" is standard output: no file of ours. */
	if (r == 0 && o->log && strcmp(o->log, "-"))
		r = add_path(own, o->log, plain);
	if (r == 0 && o->events && strcmp(o->events, "-"))
		r = add_path(own, o->events, plain);
	return r;
}

void fcp_own_free(struct fcp_job *job)
{
	struct fcp_own *own = job->own;

	for (size_t i = 0; own && i < own->n; i++)
		free(own->v[i].name);
	if (own)
		free(own->v);
	free(own);
	job->own = NULL;
}

bool fcp_own_dir(const struct fcp_job *job, uint64_t dev, uint64_t ino)
{
	const struct fcp_own *own = job->own;

	for (size_t i = 0; own && i < own->n; i++)
		if (own->v[i].dev == dev && own->v[i].ino == ino)
			return true;
	return false;
}

bool fcp_own_name(const struct fcp_job *job, uint64_t dev, uint64_t ino, const char *name)
{
	const struct fcp_own *own = job->own;

	for (size_t i = 0; own && i < own->n; i++)
		if (own->v[i].dev == dev && own->v[i].ino == ino && !strcmp(own->v[i].name, name))
			return true;
	return false;
}

bool fcp_own_path(const struct fcp_job *job, const char *path)
{
	char real[PATH_MAX], *name;
	const char *ways[2] = { path, job->own && job->own->n && realpath(path, real) ? real : NULL };
	struct statx dir;
	bool mine = false;

	for (int w = 0; w < 2 && !mine && job->own && job->own->n; w++) {
		if (!ways[w] || split(ways[w], &dir, &name) < 0)
			continue;
		mine = fcp_own_name(job, fcp_statx_dev(&dir), dir.stx_ino, name);
		free(name);
	}
	return mine;
}
