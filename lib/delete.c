/*
 * delete.c - --delete (delete.h).
 */
#include "check.h"
#include "delete.h"
#include "grow.h"
#include "plan.h"
#include "sys.h"
#include "observe.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fcp_names {
	char **v;
	size_t n, cap;
};

/* Is d in a stopped run's hidden copy, taken up? What its source lacks
 * there is that run's (its source removed since, perhaps while it was
 * written): it goes before the copy gets its name, --delete or not. */
static bool taken_up(const struct fcp_dir *d)
{
	return d->root && d->root->adopted;
}

void fcp_delete_prepare(struct fcp_job *job, struct fcp_dir *d)
{
	/* The top pseudo-directory is DEST's parent: never ours to tidy. */
	if (!(job->o->delete_extra || taken_up(d)) || !fcp_dir_existed(d) || d->is_top ||
	    d->dst_fd < 0)
		return;
	d->seen = calloc(1, sizeof(*d->seen));
	if (!d->seen)
		fcp_report_failed_in(job, "out of memory in", d, NULL, false, -ENOMEM);
}

static int names_push(struct fcp_names *s, const char *name)
{
	char **v, *copy;

	if (!(v = fcp_grow(s->v, &s->cap, s->n + 1, sizeof(*v), 64)))
		return -ENOMEM;
	s->v = v;
	if (!(copy = strdup(name)))
		return -ENOMEM;
	s->v[s->n++] = copy;
	return 0;
}

static void names_clear(struct fcp_names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void fcp_names_add(struct fcp_job *job, struct fcp_dir *d, const char *name)
{
	/* A name not kept could be deleted: hold the directory back. */
	if (names_push(d->seen, name) < 0)
		fcp_report_failed_in(job, "out of memory in", d, NULL, false, -ENOMEM);
}

void fcp_names_free(struct fcp_dir *d)
{
	if (d->seen)
		names_clear(d->seen);
	free(d->seen);
	d->seen = NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool seen(const struct fcp_names *s, const char *name)
{
	return s->n && bsearch(&name, s->v, s->n, sizeof(*s->v), by_name) != NULL;
}

/* Every name of directory fd but . and .. (fd stays open). */
static int list_names(int fd, struct fcp_names *out)
{
	int dfd = fcp_sys_openat(fd, ".", O_RDONLY | O_DIRECTORY, 0), r;
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;

	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		return dfd < 0 ? dfd : -ENOMEM;
	}
	while ((r = fcp_sys_readdir(dir, &de)) > 0) {
		const char *n = de->d_name;
		if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
			continue;
		if ((r = names_push(out, n)) < 0)
			break;
	}
	closedir(dir);
	return r;
}

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (p) {
		memcpy(p, dir, a);
		p[a] = '/';
		memcpy(p + a + 1, name, b + 1);
	}
	return p;
}

struct sweep {
	struct fcp_job *job;
	uint64_t dev;   /* the destination's filesystem: never left */
	bool dry;
	int depth;      /* levels below the directory being tidied */
	/* Extras of d (messages name them dpath/...; skip is its length and
	 * the '/'): what an exclude rule protects inside them stays. NULL
	 * when an entry must go whole (a type change). */
	struct fcp_dir *d;
	size_t skip;
};

/* One deletion from the --max-delete budget; false once it is spent. */
static bool take(struct fcp_job *job, const char *path)
{
	long long max = job->o->max_delete;

	if (atomic_load(&job->delete_stopped))
		return false;
	if (max < 0 || atomic_fetch_add(&job->delete_taken, 1) < max)
		return true;
	if (!atomic_exchange(&job->delete_stopped, true)) {
		char why[96];
		snprintf(why, sizeof(why), "--max-delete %lld reached: not deleting", max);
		fcp_report_error(job, why, path, 0);
		atomic_fetch_add(&job->c.failed, 1);
	}
	return false;
}

/* Levels of a tree being deleted that keep their descriptor: below, a
 * directory gives its parent's back and finds it again through "..", so
 * that a tree deeper than the descriptor limit can go. */
#define DELETE_KEEP_FDS 16

static int remove_at(struct sweep *x, int *dirfd, const struct statx *dir_st, bool owned,
		     const char *name, const char *path);

/* The parent of directory fd, which must be the directory want: ".." is
 * never a symlink, and a tree moved meanwhile is not followed. */
static int open_parent(int fd, const struct statx *want)
{
	struct statx st;
	int up = fcp_sys_openat(fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0), r;

	if (up < 0)
		return up;
	if ((r = fcp_sys_fstatx(up, &st)) < 0 || !fcp_statx_same_inode(&st, want)) {
		close(up);
		return r < 0 ? r : -ESTALE;
	}
	return up;
}

/* Empty the directory name of *dirfd (the directory dir_st; *dirfd is
 * ours to close and find again when owned), which was st when stat'ed.
 * What an exclude rule protects stays: -ENOTEMPTY when some of its own
 * entries did, 1 when only something deeper did. */
static int remove_children(struct sweep *x, int *dirfd, const struct statx *dir_st, bool owned,
			   const char *name, const char *path, const struct statx *st)
{
	struct fcp_names kids = { 0 };
	struct statx now;
	bool kept = false, below = false;
	int fd = fcp_sys_openat(*dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0), r;

	if (fd < 0)
		return fd;
	/* Swapped since the stat (for a symlink, O_NOFOLLOW said no). */
	if ((r = fcp_sys_fstatx(fd, &now)) < 0 || !fcp_statx_same_inode(&now, st)) {
		close(fd);
		return r < 0 ? r : -ESTALE;
	}
	if (owned && x->depth >= DELETE_KEEP_FDS) {
		close(*dirfd);
		*dirfd = -1;
	}
	x->depth++;
	r = list_names(fd, &kids);
	for (size_t i = 0; r >= 0 && i < kids.n; i++) {
		char *p = join(path, kids.v[i]);
		int k;

		if (p && x->d && fcp_plan_keeps_extra(x->job, x->d, p + x->skip, fd, kids.v[i])) {
			kept = true;
			free(p);
			continue;
		}
		k = p ? remove_at(x, &fd, st, true, kids.v[i], p) : -ENOMEM;
		free(p);
		if (k == 1) { /* something kept below */
			below = true;
			continue;
		}
		/* A failure is reported where it happened; the budget spent
		 * stops everything. */
		if (k == -ECANCELED || (k < 0 && r >= 0))
			r = k;
		if (k == -ECANCELED || fd < 0)
			break;
	}
	x->depth--;
	names_clear(&kids);
	if (*dirfd < 0) {
		int up = fd >= 0 ? open_parent(fd, dir_st) : -EBADF;
		if (up < 0 && r >= 0)
			r = up;
		*dirfd = up;
	}
	if (fd >= 0)
		close(fd);
	if (r >= 0 && (kept || below))
		return kept ? -ENOTEMPTY : 1;
	return r;
}

/* Remove name of *dirfd (path for messages), a directory with everything
 * in it. Returns 0, 1 when excluded entries in it were kept (said), and
 * it with them, -ECANCELED when the budget is spent, or another -errno
 * after reporting it; *dirfd may be -1 then (not found again). */
static int remove_at(struct sweep *x, int *dirfd, const struct statx *dir_st, bool owned,
		     const char *name, const char *path)
{
	struct statx st;
	bool dir;
	int r = fcp_sys_statx(*dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &st);

	if (r == -ENOENT)
		return 0;
	if (x->job->o->check) { /* said, not removed, and not gone into */
		fcp_check_say(x->job, path, "extra in DEST");
		return 0;
	}
	dir = r == 0 && S_ISDIR(st.stx_mode);
	if (dir && fcp_statx_dev(&st) != x->dev)
		r = -EXDEV; /* a mount point: what is mounted there is not ours */
	if (r == 0 && dir)
		r = remove_children(x, dirfd, dir_st, owned, name, path, &st);
	if (r == -ECANCELED)
		return r;
	/* As rsync, a directory holding excluded entries stays, with them
	 * (said once, where they are), and so do those above it. */
	if (r == -ENOTEMPTY)
		fcp_report_held(x->job, path, "it holds excluded entries (--delete-excluded "
						"deletes them)");
	if (r == -ENOTEMPTY || r == 1)
		return 1;
	if (r == 0 && !take(x->job, path))
		return -ECANCELED;
	if (r == 0 && x->dry)
		fcp_report_plan(x->job, "delete", path);
	else if (r == 0)
		r = fcp_sys_unlinkat(*dirfd, name, dir ? AT_REMOVEDIR : 0);
	if (r < 0) {
		fcp_report_failed(x->job, r == -EXDEV ? "not deleting a mount point," : "cannot delete",
				  path, r == -EXDEV ? 0 : r);
		return r;
	}
	atomic_fetch_add(&x->job->c.deleted, 1);
	if (x->job->obs_items)
		fcp_obs_record(x->job, FCP_OBS_DELETE, dir ? S_IFDIR : 0, path, 0, NULL, NULL);
	return 0;
}

int fcp_delete_entry(struct fcp_job *job, struct fcp_dir *d, const char *name)
{
	struct sweep x = { job, d->dst_dev, job->o->dry_run, 0, NULL, 0 };
	char *p = fcp_dir_dst_path(d, name);
	int dfd = d->dst_fd; /* d's own: never closed here */
	int r = remove_at(&x, &dfd, NULL, false, name, p ? p : name);

	free(p);
	return r;
}

/* Why d's extras must stay, or NULL. */
static const char *held(struct fcp_job *job, struct fcp_dir *d)
{
	struct statx st;

	if (atomic_load(&job->stop))
		return "the copy was stopped";
	/* (A failed item of a taken-up copy was removed from it: what is
	 * left are names its source lacks, none of them the user's.) */
	if (atomic_load(&d->failed_in) && !taken_up(d))
		return "an item in it failed";
	/* Removed whole while it was read: what its scan missed was not
	 * taken away from the source by anyone's choice. */
	if (fcp_sys_fstatx(d->src_fd, &st) < 0 || st.stx_nlink == 0)
		return "its source directory vanished";
	return NULL;
}

/* Say that d's n extras stay, and why (vanished: a failure). */
static void hold(struct fcp_job *job, const char *dpath, const char *why, size_t n)
{
	char text[160];

	snprintf(text, sizeof(text), "%s (%zu entr%s the source lacks kept)", why, n,
		 n == 1 ? "y" : "ies");
	fcp_report_held(job, dpath, text);
	if (!strcmp(why, "its source directory vanished"))
		atomic_fetch_add(&job->c.failed, 1);
}

/* The names of d's copy that its source's scan did not meet. .fcp-*
 * names are temporary files of this or an interrupted run: named as
 * leftovers (leftover.c), never taken for user data. */
static int extras(struct fcp_job *job, struct fcp_dir *d, const char *dpath,
		  struct fcp_names *extra)
{
	struct fcp_names all = { 0 };
	int r;

	if (d->seen->n)
		qsort(d->seen->v, d->seen->n, sizeof(*d->seen->v), by_name);
	if ((r = list_names(d->dst_fd, &all)) < 0)
		fcp_report_failed(job, "cannot read directory", dpath, r);
	for (size_t i = 0; r >= 0 && i < all.n; i++)
		if (strncmp(all.v[i], ".fcp-", 5) && !seen(d->seen, all.v[i]) &&
		    !fcp_plan_keeps_extra(job, d, all.v[i], d->dst_fd, all.v[i]) &&
		    (r = names_push(extra, all.v[i])) < 0)
			fcp_report_failed(job, "out of memory in", dpath, r);
	names_clear(&all);
	return r;
}

void fcp_delete_extras(struct fcp_worker *w, struct fcp_dir *d)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct sweep x = { job, d->dst_dev, job->o->dry_run, 0, d, 0 };
	struct fcp_names extra = { 0 };
	int dfd = d->dst_fd; /* d's own: never closed here */
	const char *why;
	char *dpath;

	if (!d->seen)
		return;
	/* --max-delete spent: a taken-up copy keeps what it cannot check. */
	if (atomic_load(&job->delete_stopped)) {
		if (taken_up(d))
			atomic_store(&d->root->stale, true);
		return;
	}
	dpath = fcp_dir_dst_path(d, NULL);
	x.skip = strlen(dpath ? dpath : "?") + 1;
	if (extras(job, d, dpath, &extra) >= 0 && extra.n) {
		/* --check says every extra: it deletes nothing. */
		why = job->o->check ? NULL : held(job, d);
		/* Unasked (a taken-up copy): said only by the copy keeping
		 * its hidden name. */
		if (why && taken_up(d) && !atomic_load(&job->stop))
			atomic_store(&d->root->stale, true);
		if (why && job->o->delete_extra)
			hold(job, dpath, why, extra.n);
		for (size_t i = 0; !why && i < extra.n; i++) {
			char *p = join(dpath ? dpath : "?", extra.v[i]);
			int k = p ? remove_at(&x, &dfd, NULL, false, extra.v[i], p) : -ENOMEM;
			free(p);
			if (k < 0 && taken_up(d))
				atomic_store(&d->root->stale, true);
			if (k == -ECANCELED)
				break;
		}
	}
	names_clear(&extra);
	free(dpath);
}
