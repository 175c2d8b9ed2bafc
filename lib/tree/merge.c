/*
 * merge.c - SOURCEs whose copies meet in DEST, for --delete (merge.h).
 */
#include "base/grow.h"
#include "tree/merge.h"
#include "core/node.h"
#include "base/sys.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct merge_op {
	char *dest;   /* its copy's path below DEST ("": DEST), or NULL */
	char *src;    /* the SOURCE, resolved, if a directory; else NULL */
	int *rel;     /* the operands whose copies meet its copy */
	size_t n, cap;
};

struct fcp_merge {
	int n;
	struct merge_op op[];
};

/* Does path a hold path b (or is it b)? Paths below DEST, "" for DEST. */
static bool holds(const char *a, const char *b)
{
	size_t n = strlen(a);

	return !n || (!strncmp(a, b, n) && (b[n] == '/' || !b[n]));
}

/* name without "." components or trailing slashes ("." is ""). */
static char *dest_path(const char *name)
{
	char *out = name ? calloc(1, strlen(name) + 1) : NULL, *copy, *rest, *tok;

	if (!out || !(copy = rest = strdup(name))) {
		free(out);
		return NULL;
	}
	while ((tok = strsep(&rest, "/")))
		if (*tok && strcmp(tok, "."))
			strcat(strcat(out, *out ? "/" : ""), tok);
	free(copy);
	return out;
}

static bool source_dir(struct fcp_job *job, const char *src)
{
	struct statx st;

	return fcp_sys_statx(AT_FDCWD, src, fcp_job_follows_args(job) ? 0 : AT_SYMLINK_NOFOLLOW,
			     STATX_TYPE, &st) == 0 && S_ISDIR(st.stx_mode);
}

static int relate(struct merge_op *a, int j)
{
	int *v = fcp_grow(a->rel, &a->cap, a->n + 1, sizeof(*v), 4);

	if (!v)
		return -ENOMEM;
	a->rel = v;
	a->rel[a->n++] = j;
	return 0;
}

static int by_dest(const void *a, const void *b, void *arg)
{
	const struct merge_op *op = arg;
	const char *x = op[*(const int *)a].dest, *y = op[*(const int *)b].dest;

	return !x || !y ? (!x) - (!y) : strcmp(x, y);
}

/* The operands (idx sorted by dest) whose dest is exactly path: [*lo, hi). */
static int same_dest(const struct fcp_merge *m, const int *idx, const char *path, int *lo)
{
	int a = 0, b = m->n, hi;

	while (a < b) { /* the first dest >= path (NULLs sort last) */
		int mid = (a + b) / 2;
		const char *d = m->op[idx[mid]].dest;
		if (d && strcmp(d, path) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	for (hi = a; hi < m->n && m->op[idx[hi]].dest && !strcmp(m->op[idx[hi]].dest, path); hi++)
		;
	*lo = a;
	return hi;
}

/* Relate operand i to those of the same dest after it, and to those whose
 * dest holds its own: n log n for a command line of distinct names. */
static int relate_op(struct fcp_merge *m, const int *idx, int i)
{
	char *path = strdup(m->op[i].dest), *cut = path;
	bool self = true;
	int r = path ? 0 : -ENOMEM;

	while (r == 0) {
		int lo, hi = same_dest(m, idx, path, &lo);
		for (int k = lo; k < hi && r == 0; k++)
			if (self ? idx[k] > i : true)
				r = relate(&m->op[i], idx[k]) ? -ENOMEM
							  : relate(&m->op[idx[k]], i);
		if (!*path)
			break;
		cut = strrchr(path, '/');
		*(cut ? cut : path) = 0;
		self = false;
	}
	free(path);
	return r;
}

int fcp_merge_init(struct fcp_job *job, const struct fcp_operand *ops, int n)
{
	struct fcp_merge *m;
	int *idx, r = 0;

	if (!job->o->delete_extra || n < 2)
		return 0;
	m = calloc(1, sizeof(*m) + n * sizeof(*m->op));
	idx = malloc(n * sizeof(*idx));
	if (!m || !idx) {
		free(m);
		free(idx);
		return -ENOMEM;
	}
	m->n = n;
	job->merge = m;
	for (int i = 0; i < n && r == 0; i++) {
		idx[i] = i;
		if (ops[i].name && !(m->op[i].dest = dest_path(ops[i].name)))
			r = -ENOMEM;
	}
	if (r == 0)
		qsort_r(idx, n, sizeof(*idx), by_dest, m->op);
	for (int i = 0; i < n && r == 0; i++)
		if (m->op[i].dest)
			r = relate_op(m, idx, i);
	/* Only a SOURCE that meets another is asked, and resolved. */
	for (int i = 0; i < n && r == 0; i++) {
		char real[PATH_MAX];

		if (m->op[i].n && source_dir(job, ops[i].src) &&
		    !(m->op[i].src = strdup(realpath(ops[i].src, real) ? real : ops[i].src)))
			r = -ENOMEM;
	}
	free(idx);
	return r;
}

void fcp_merge_free(struct fcp_job *job)
{
	struct fcp_merge *m = job->merge;

	for (int i = 0; m && i < m->n; i++) {
		free(m->op[i].dest);
		free(m->op[i].src);
		free(m->op[i].rel);
	}
	free(m);
	job->merge = NULL;
}

/* The directory rel of the SOURCE directory src, as the walk would reach
 * it: through no symlink, unless -L follows them all. */
static int other_dir(struct fcp_job *job, const char *src, const char *rel)
{
	int root = fcp_sys_openat(AT_FDCWD, src, O_PATH | O_DIRECTORY, 0), fd;

	if (root < 0 || !*rel)
		return root;
	fd = job->o->symlinks == FCP_SYMLINKS_FOLLOW
		     ? fcp_sys_openat(root, rel, O_PATH | O_DIRECTORY, 0)
		     : fcp_sys_open_beneath(root, rel, O_PATH | O_DIRECTORY, 0);
	close(root);
	return fd;
}

void fcp_others_close(struct fcp_others *o)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->fd[i] >= 0)
			close(o->fd[i]);
	for (size_t i = 0; i < o->nnames; i++)
		free(o->names[i]);
	free(o->fd);
	free(o->names);
	memset(o, 0, sizeof(*o));
}

/* What operand j has at D, d's path below DEST: its SOURCE's directory
 * there when its copy holds D, the name below D that leads to its copy
 * when D holds that. -errno after reporting it. */
static int other_at(struct fcp_job *job, const struct merge_op *j, const char *D,
		    struct fcp_others *o)
{
	size_t n = strlen(j->dest);
	int fd;

	if (holds(j->dest, D)) {
		if (!j->src)
			return 0;
		fd = other_dir(job, j->src, D + n + (n && D[n] == '/'));
		/* Not there, or not reached by the walk: it has nothing here. */
		if (fd < 0 && fd != -ENOENT && fd != -ENOTDIR && fd != -ELOOP) {
			char *p = fcp_path_join(j->src, D + n + (n && D[n] == '/'));
			fcp_report_failed(job, "cannot read", p ? p : j->src, fd);
			free(p);
			return fd;
		}
		o->fd[o->n++] = fd < 0 ? -1 : fd;
	} else if (holds(D, j->dest)) {
		const char *name = j->dest + strlen(D) + (*D != 0);
		const char *slash = strchr(name, '/');
		if (!(o->names[o->nnames] = strndup(name, slash ? (size_t)(slash - name) : strlen(name))))
			return -ENOMEM;
		o->nnames++;
	}
	return 0;
}

/* Open the others of d (none: both counts 0). -errno after reporting it
 * when one cannot be looked at: d's extras cannot be judged then. */
int fcp_others_open(struct fcp_job *job, const struct fcp_dir *d, struct fcp_others *o)
{
	const struct merge_op *me = job->merge && d->root->id >= 0 && d->root->id < job->merge->n
					    ? &job->merge->op[d->root->id] : NULL;
	char *rel = NULL, *D = NULL;
	int r = 0;

	memset(o, 0, sizeof(*o));
	if (!me || !me->n)
		return 0;
	if (!(rel = fcp_dir_rel_path(d)) || !(D = fcp_path_join(me->dest, rel)) ||
	    !(o->fd = malloc(me->n * sizeof(*o->fd))) ||
	    !(o->names = malloc(me->n * sizeof(*o->names))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < me->n; i++)
		r = other_at(job, &job->merge->op[me->rel[i]], D, o);
	if (r == -ENOMEM)
		fcp_report_failed_in(job, "out of memory in", d, NULL, true, r);
	free(rel);
	free(D);
	if (r < 0)
		fcp_others_close(o);
	return r;
}

/* Has another SOURCE name, or does another copy lie there? One that
 * cannot be asked may: kept. */
bool fcp_others_have(const struct fcp_others *o, const char *name)
{
	struct statx st;

	for (size_t i = 0; i < o->nnames; i++)
		if (!strcmp(o->names[i], name))
			return true;
	for (size_t i = 0; i < o->n; i++) {
		int r = o->fd[i] < 0 ? -ENOENT
				     : fcp_sys_statx(o->fd[i], name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st);
		if (r != -ENOENT && r != -ENOTDIR)
			return true;
	}
	return false;
}

