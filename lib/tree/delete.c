/*
 * delete.c - --delete (delete.h).
 */
#include "dest/backup.h"
#include "policy/check.h"
#include "tree/delete.h"
#include "base/grow.h"
#include "dest/manifest.h"
#include "tree/merge.h"
#include "core/node.h"
#include "dest/own.h"
#include "policy/pick.h"
#include "base/sys.h"
#include "core/upcalls.h"
#include "core/observe.h"
#include "core/worker.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fcp_names {
	char **v;
	size_t n, cap;
};

/* The job's deletions (job->del), made before the workers start. */
struct fcp_delete_state {
	atomic_llong taken;     /* begun, against --max-delete */
	atomic_bool stopped;    /* --max-delete reached: no more */
	/* A dry run's deletions (and metadata lines) said where SOURCEs
	 * merge: each once. Under the job's err_lock. */
	struct fcp_names dry_said;
};

/* The mount that holds name in dirfd (its statx st, if asked already
 * with STATX_MNT_ID), as a key: the mount id, or where no way to ask for
 * one works, the device with the top bit set (mount ids are small). */
static uint64_t mount_key(int dirfd, const char *name, int flags, const struct statx *st,
			  uint64_t dev)
{
	uint64_t id;

	if (st && (st->stx_mask & STATX_MNT_ID))
		return st->stx_mnt_id;
	return fcp_sys_mount_id(dirfd, name, flags, &id) == 0 ? id : dev | 1ull << 63;
}

/* Is directory fd the root of a mount (false where no kernel says)? */
static bool mount_root(int fd)
{
	struct statx st;

	return fcp_sys_statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &st) == 0 &&
	       (st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (st.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/*
 * Where d's copy lies (FCP_MOUNT_*), with its mount in *mnt: on the mount
 * of its parent's copy, or of DEST for a root copy; a mount point itself;
 * or below one. st_dev alone cannot tell a bind mount of a directory of
 * the same filesystem (a container's volume, a chroot's /home), which
 * holds what lies outside DEST: the mount ids can. DEST itself may be a
 * mount point: a disk mounted there is the tree the user named.
 */
static unsigned char mount_of(const struct fcp_dir *d, uint64_t *mnt)
{
	const struct fcp_dir *p = d->parent;
	uint64_t up;

	if (d->dst_fd < 0)
		return FCP_MOUNT_ROOT; /* not open: not known, not touched */
	*mnt = mount_key(d->dst_fd, "", AT_EMPTY_PATH, NULL, d->dst_dev);
	if (d->depth == 0 && !d->root->rel_top[0])
		return FCP_MOUNT_SAME;
	if (p && !p->is_top && p->dst_mount)
		return p->dst_mount != FCP_MOUNT_SAME ? FCP_MOUNT_BELOW
		       : *mnt == p->dst_mnt ? FCP_MOUNT_SAME : FCP_MOUNT_ROOT;
	/* A top (DEST, or the directory --parents made in it; on another
	 * rank, the root copy itself: dist.c), or a parent not asked: its
	 * mount is read now. */
	if (!p || p->dst_fd < 0)
		return FCP_MOUNT_ROOT;
	up = mount_key(p->dst_fd, "", AT_EMPTY_PATH, NULL, p->dst_dev);
	if (up != *mnt)
		return FCP_MOUNT_ROOT;
	if (p->is_top && p->depth == 0 && p->root->rel_top[0] && mount_root(p->dst_fd))
		return FCP_MOUNT_BELOW;
	return FCP_MOUNT_SAME;
}

/* Is d in a stopped run's hidden copy, taken up? What its source lacks
 * there is that run's (its source removed since, perhaps while it was
 * written): it goes before the copy gets its name, --delete or not. */
static bool taken_up(const struct fcp_dir *d)
{
	return d->root && d->root->adopted;
}

/* Do backup names stay in d's copy (fcp_backup_name_like)? With -b, as
 * rsync: else a run deletes the backups it just made. Not in a taken-up
 * copy, which holds no backup (nothing was replaced in it) but perhaps a
 * killed run's partial file of such a name; --check names them: they are
 * no part of the copy. */
static bool keeps_backups(const struct fcp_job *job, const struct fcp_dir *d)
{
	return job->o->backup != FCP_BACKUP_NONE && !job->o->check && !taken_up(d);
}

/* The worse of the FCP_MOVED_MARKERs of the directories above the
 * directory fd, on its mount, up to the filesystem's root: a --delete
 * given a directory inside a move's copy (or a SOURCE of one) must keep
 * what that move took too. */
static unsigned char moved_above(int fd)
{
	unsigned char worst = 0, m;
	struct statx st, up;
	int cur = fd, next;

	if (fcp_sys_fstatx(fd, &st) < 0)
		return 0;
	for (int depth = 0; depth < 256; depth++) {
		next = fcp_sys_openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
		if (cur != fd)
			close(cur);
		if (next < 0)
			return worst;
		if (fcp_sys_fstatx(next, &up) < 0 || fcp_statx_same_inode(&up, &st) ||
		    fcp_statx_dev(&up) != fcp_statx_dev(&st)) {
			close(next);
			return worst;
		}
		if ((m = fcp_move_moved_at(next)) > worst)
			worst = m;
		st = up;
		cur = next;
	}
	close(cur);
	return worst;
}

void fcp_delete_prepare(struct fcp_job *job, struct fcp_dir *d)
{
	/* The top pseudo-directory is DEST's parent: never ours to tidy. */
	if (!(job->o->delete_extra || taken_up(d)) || !fcp_dir_existed(d) || d->is_top ||
	    d->dst_fd < 0)
		return;
	/* Asked before its children are: they ask their parent's. The
	 * source's names are kept on another mount too, to say how many
	 * extras stay there. */
	d->dst_mount = mount_of(d, &d->dst_mnt);
	/* A move's copy not finished, here or above (the parent was asked
	 * first; the root asks its own parents). */
	d->moved = fcp_move_moved_at(d->dst_fd);
	if (d->parent && !d->parent->is_top && fcp_dir_existed(d->parent)) {
		if (d->parent->moved > d->moved)
			d->moved = d->parent->moved;
	} else {
		unsigned char above = moved_above(d->dst_fd);

		if (above > d->moved)
			d->moved = above;
	}
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
	uint64_t mnt;   /* the mount of the directory tidied: never left */
	bool dry;
	int depth;      /* levels below the directory being tidied */
	/* Extras of d (messages name them dpath/...; skip is its length and
	 * the '/'): what an exclude rule protects inside them stays. NULL
	 * when an entry must go whole (a type change). */
	struct fcp_dir *d;
	size_t skip;
	bool backups;   /* backup names stay (keeps_backups), and a
			   non-directory gets one instead of going */
	int src_fd;     /* the source of the directory tidied (-1: none):
			   no backup there takes a name it has */
	/* The directory whose entries are removed, for their records in the
	 * manifest (path + mskip is an entry's path below it); NULL: none
	 * (a hidden copy's leftover, recorded under no name of its own). */
	const struct fcp_dir *md;
	size_t mskip;
	/* --max-delete: what is left of the deletions the entry being
	 * removed (with everything in it) took from the budget (reserve). */
	long long left;
};

/* path, removed from DEST (tree: a directory) or renamed to its backup
 * name: its records go from the manifest. */
static void forget(struct sweep *x, const char *path, bool tree)
{
	if (x->md && !x->md->is_top && strlen(path) > x->mskip)
		fcp_manifest_forget(x->job, x->md, path + x->mskip, tree);
}

/* --max-delete reached at path: said once, as one failed item; nothing
 * more is deleted. */
static void refuse(struct fcp_job *job, const char *path)
{
	if (!atomic_exchange(&job->del->stopped, true)) {
		char why[96];
		snprintf(why, sizeof(why), "--max-delete %lld reached: not deleting",
			 job->o->max_delete);
		fcp_report_error(job, why, path, 0);
		atomic_fetch_add(&job->c.failed, 1);
	}
}

/* One deletion, from what reserve() took for the entry it is part of;
 * false when that is spent (the tree grew since it was counted). */
static bool take(struct sweep *x, const char *path)
{
	if (x->job->o->max_delete < 0)
		return true;
	if (x->left > 0) {
		x->left--;
		return true;
	}
	refuse(x->job, path);
	return false;
}

/* Entries below the directory name of dirfd (st, as stat'ed), on the
 * mount mnt: a mount point below counts one, and is not entered. One
 * descriptor a level. Returns the count or -errno. */
static long long count_below(int dirfd, const char *name, const struct statx *st, uint64_t mnt)
{
	struct fcp_names kids = { 0 };
	struct statx now, kst;
	long long n = 0, k;
	int fd = fcp_sys_openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0), r;

	if (fd < 0)
		return fd;
	if ((r = fcp_sys_fstatx(fd, &now)) < 0 || !fcp_statx_same_inode(&now, st)) {
		close(fd);
		return r < 0 ? r : -ESTALE;
	}
	r = list_names(fd, &kids);
	for (size_t i = 0; r >= 0 && i < kids.n; i++) {
		n++;
		if (fcp_sys_statx(fd, kids.v[i], AT_SYMLINK_NOFOLLOW,
				  STATX_BASIC_STATS | STATX_MNT_ID, &kst) < 0 ||
		    !S_ISDIR(kst.stx_mode) ||
		    mount_key(fd, kids.v[i], AT_SYMLINK_NOFOLLOW, &kst, fcp_statx_dev(&kst)) != mnt)
			continue;
		if ((k = count_below(fd, kids.v[i], &kst, mnt)) < 0)
			r = (int)k;
		else
			n += k;
	}
	names_clear(&kids);
	close(fd);
	return r < 0 ? r : n;
}

/*
 * --max-delete: the entry name of dirfd (path; st, a directory when dir)
 * is about to be removed, with everything in it: take all of that from
 * the budget at once, or nothing. A directory is never emptied and then
 * refused, and which entries go does not depend on how far another
 * deletion got (the run has one worker then: job.c). Returns 0,
 * -ECANCELED when refused (said), or another -errno after reporting it.
 */
static int reserve(struct sweep *x, int dirfd, const char *name, const char *path,
		   const struct statx *st, bool dir)
{
	struct fcp_delete_state *del = x->job->del;
	long long max = x->job->o->max_delete, n = 1, below, t;
	char *key;
	bool said;

	if (max < 0)
		return 0;
	if (atomic_load(&del->stopped))
		return -ECANCELED;
	/* A dry run where SOURCEs merge says it once (fcp_dry_said_before):
	 * the others find it gone, taking nothing. */
	if (x->dry && x->job->merge) {
		key = fcp_path_join("reserve\t", path);
		said = key && fcp_dry_said_before(x->job, key);
		free(key);
		if (said) {
			x->left = 0;
			return 0;
		}
	}
	if (dir && (below = count_below(dirfd, name, st, x->mnt)) < 0) {
		fcp_report_failed(x->job, "cannot delete", path, (int)below);
		return (int)below;
	}
	n += dir ? below : 0;
	t = atomic_load(&del->taken);
	do {
		if (t + n > max) {
			refuse(x->job, path);
			return -ECANCELED;
		}
	} while (!atomic_compare_exchange_weak(&del->taken, &t, t + n));
	x->left = n;
	return 0;
}

/* Each SOURCE merging into one copy finds the same extras there, which
 * the run deletes once (the first to finish takes them; the others find
 * them gone): a dry run says them once too. Under err_lock: few lines
 * are said, and only where SOURCEs merge. */
bool fcp_dry_said_before(struct fcp_job *job, const char *key)
{
	struct fcp_names *done = &job->del->dry_said;
	bool said = false;

	if (!job->merge)
		return false;
	pthread_mutex_lock(&job->err_lock);
	for (size_t i = 0; i < done->n && !said; i++)
		said = !strcmp(done->v[i], key);
	if (!said)
		names_push(done, key);
	pthread_mutex_unlock(&job->err_lock);
	return said;
}

int fcp_delete_init(struct fcp_job *job)
{
	job->del = calloc(1, sizeof(*job->del));
	return job->del ? 0 : -ENOMEM;
}

void fcp_delete_free(struct fcp_job *job)
{
	if (job->del)
		names_clear(&job->del->dry_said);
	free(job->del);
	job->del = NULL;
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

/* A backup in the directory path stays (fcp_backup_name_like), and the
 * directory with it: said once. Where the directory had to go whole (a
 * source of another type takes its place), that item fails. */
static void keep_backup(struct sweep *x, const char *path, bool *told)
{
	if (*told)
		return;
	*told = true;
	if (x->d)
		fcp_report_held(x->job, path, "it holds backups, which -b keeps");
	else
		fcp_report_failed(x->job, "not replaced, a directory holding backups (-b keeps them):",
				  path, 0);
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
	bool kept = false, below = false, said = false, told = false;
	bool own = fcp_own_dir(x->job, fcp_statx_dev(st), st->stx_ino);
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
		if (own && fcp_own_name(x->job, fcp_statx_dev(st), st->stx_ino, kids.v[i])) {
			if (!said) /* once: the manifest comes with its -wal and -shm */
				fcp_report_held(x->job, path, "it holds a file this job writes "
							      "(--manifest, --log, --events)");
			said = below = true;
			free(p);
			continue;
		}
		if (x->backups && fcp_backup_name_like(x->job->o, kids.v[i])) {
			keep_backup(x, path, &told);
			below = true;
			free(p);
			continue;
		}
		k = p ? remove_at(x, &fd, st, true, kids.v[i], p) : -ENOMEM;
		free(p);
		if (k == 1) { /* something kept below */
			below = true;
			continue;
		}
		if (k == 2) { /* renamed to its backup name, here */
			keep_backup(x, path, &told);
			below = true;
			continue;
		}
		/* A failure is reported where it happened (and counted): above
		 * it, the directory only stays, as for something kept below,
		 * and is not said again as held for an exclude rule. The
		 * budget spent stops everything. */
		if (k < 0 && k != -ECANCELED)
			below = true;
		if (k == -ECANCELED)
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

/* -b: the non-directory name of dirfd (path) is renamed to its backup
 * name, as rsync -b --delete does: a file --delete takes, or one a
 * directory of the source replaces, keeps its bytes. */
static int back_up(struct sweep *x, int dirfd, const char *name, const char *path, mode_t mode)
{
	char *b = NULL, *bp;
	/* Below the directory tidied, all is extra: no source names. */
	int r = fcp_backup_rename(x->job, dirfd, x->depth ? -1 : x->src_fd, name, &b);

	if (r == 0 && x->job->obs_items) {
		const char *slash = strrchr(path, '/');
		int n = slash ? (int)(slash - path + 1) : 0;

		if (asprintf(&bp, "%.*s%s", n, path, b) >= 0) {
			fcp_obs_backup(x->job, mode, path, bp);
			free(bp);
		}
	}
	free(b);
	return r;
}

/* A dry run meets the refusal the run's unlink or rename would: an
 * immutable or append-only entry, or one in such a directory (dir_st
 * where the caller has it), cannot go (EPERM, also as root). */
static int would_go(int dirfd, const struct statx *dir_st, const struct statx *st)
{
	struct statx p;

	if (fcp_statx_locked(st))
		return -EPERM;
	if (!dir_st && fcp_sys_statx(dirfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &p) == 0)
		dir_st = &p;
	return dir_st && fcp_statx_locked(dir_st) ? -EPERM : 0;
}

/* Remove name of *dirfd (path for messages), a directory with everything
 * in it. Returns 0, 1 when excluded entries in it were kept (said), and
 * it with them, 2 when a non-directory got its backup name instead (-b),
 * -ECANCELED when the budget is spent, or another -errno after reporting
 * it; *dirfd may be -1 then (not found again). */
static int remove_at(struct sweep *x, int *dirfd, const struct statx *dir_st, bool owned,
		     const char *name, const char *path)
{
	struct statx st;
	bool dir, kept;
	int r = fcp_sys_statx(*dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_MNT_ID,
			      &st);

	if (r == -ENOENT)
		return 0;
	if (x->job->o->check) { /* said, not removed, and not gone into */
		fcp_check_say(x->job, path, "extra in DEST");
		return 0;
	}
	dir = r == 0 && S_ISDIR(st.stx_mode);
	/* A mount point (a directory or a file bind-mounted there): what is
	 * mounted is not ours, nor is anything below it. Kept, and the
	 * directories above it with it. */
	if (r == 0 && mount_key(*dirfd, name, AT_SYMLINK_NOFOLLOW, &st, fcp_statx_dev(&st)) != x->mnt) {
		fcp_report_held(x->job, path, "it is a mount point (neither deleted nor entered)");
		atomic_fetch_add(&x->job->c.failed, 1);
		return 1;
	}
	/* (The entry asked to go: what is below is part of its whole.) */
	if (r == 0 && x->depth == 0 && (r = reserve(x, *dirfd, name, path, &st, dir)) < 0)
		return r;
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
	if (r == 0 && x->dry && fcp_dry_said_before(x->job, path))
		return 0;
	if (r == 0 && !take(x, path))
		return -ECANCELED;
	kept = r == 0 && !dir && x->backups;
	if (r == 0 && x->dry)
		r = would_go(*dirfd, dir_st, &st);
	if (r == 0 && kept && x->dry)
		r = fcp_backup_would(x->job, *dirfd, x->depth ? -1 : x->src_fd, name);
	if (r == 0 && x->dry)
		fcp_report_plan_item(x->job, kept ? "backup" : "delete", dir ? S_IFDIR : 0, path, 0, 0);
	else if (kept)
		r = back_up(x, *dirfd, name, path, st.stx_mode & S_IFMT);
	else if (r == 0)
		r = fcp_sys_unlinkat(*dirfd, name, dir ? AT_REMOVEDIR : 0);
	if (r < 0) {
		fcp_report_failed(x->job, kept ? "cannot back up" : "cannot delete", path, r);
		return r;
	}
	/* Gone from its name: a backup is no part of the copy, but it is
	 * counted apart, for it is not deleted. */
	if (!x->dry)
		forget(x, path, dir);
	atomic_fetch_add(kept ? &x->job->c.backed_up : &x->job->c.deleted, 1);
	if (dir)
		atomic_fetch_add(&x->job->c.deleted_dirs, 1);
	if (x->job->obs_items && !(kept && !x->dry))
		fcp_obs_record(x->job, FCP_OBS_DELETE, dir ? S_IFDIR : 0, path, 0, NULL, NULL);
	return kept ? 2 : 0;
}

/* Why nothing is deleted in d's copy for its mount, or NULL. */
static const char *mount_why(unsigned char where)
{
	return where == FCP_MOUNT_ROOT    ? "it is a mount point"
	       : where == FCP_MOUNT_BELOW ? "it is below a mount point"
					  : NULL;
}

int fcp_delete_entry(struct fcp_job *job, struct fcp_dir *d, const char *name)
{
	uint64_t mnt = d->dst_mnt;
	/* (Asked here only where d was scanned elsewhere: not stored.) */
	unsigned char where = d->dst_mount ? d->dst_mount : mount_of(d, &mnt);
	struct sweep x = { job, mnt, job->o->dry_run, 0, NULL, 0, keeps_backups(job, d),
			   d->src_fd, d, 0, 0 };
	struct fcp_others o;
	char *p = fcp_dir_dst_path(d, name);
	int dfd = d->dst_fd; /* d's own: never closed here */
	int r = 1;

	x.mskip = p ? strlen(p) - strlen(name) : 0;
	if (where != FCP_MOUNT_SAME) {
		fcp_report_held(job, p ? p : name, where == FCP_MOUNT_ROOT
							   ? "its directory is a mount point"
							   : "it is below a mount point");
		atomic_fetch_add(&job->c.failed, 1);
	} else if ((r = fcp_others_open(job, d, &o)) >= 0) {
		/* Another SOURCE's entry of another type: theirs stays, as
		 * without --delete, and this one fails. */
		if (fcp_others_have(&o, name)) {
			fcp_report_failed(job, "not replacing an entry another SOURCE has:",
					  p ? p : name, 0);
			r = 1;
		} else {
			r = remove_at(&x, &dfd, NULL, false, name, p ? p : name);
			r = r == 2 ? 0 : r; /* its backup name taken: the name is free */
		}
		fcp_others_close(&o);
	}
	free(p);
	return r;
}

int fcp_delete_leftover(struct fcp_job *job, int dirfd, const char *name, const char *path)
{
	/* Nothing in it is kept for an exclude rule or a backup name: it is
	 * fastcp's own copy, not a tree of the destination. */
	struct sweep x = { job, 0, false, 0, NULL, 0, false, -1, NULL, 0, 0 };
	struct statx st;
	int r = fcp_sys_fstatx(dirfd, &st);

	if (r < 0)
		return r;
	x.mnt = mount_key(dirfd, "", AT_EMPTY_PATH, NULL, fcp_statx_dev(&st));
	return remove_at(&x, &dirfd, &st, false, name, path);
}

/* Why d's extras must stay, or NULL; *fails: the reason is a failure
 * not counted yet. */
static const char *held(struct fcp_job *job, struct fcp_dir *d, bool *fails)
{
	struct statx st;

	*fails = false;
	if (atomic_load(&job->stop))
		return "the copy was stopped";
	/* (A failed item of a taken-up copy was removed from it: what is
	 * left are names its source lacks, none of them the user's.) */
	if (atomic_load(&d->failed_in) && !taken_up(d))
		return "an item in it failed";
	/* What a move took from the source is in its copy only (move.c):
	 * the same --move again keeps it quietly, unless that run held
	 * deletions back; any other command was asked for what it cannot
	 * do here. */
	if (d->moved) {
		*fails = d->moved == 2 || !job->o->move;
		return "a --move into it has removed part of its source: what it moved is "
		       "there only, and cannot be told from an extra";
	}
	*fails = true;
	/* Removed whole while it was read: what its scan missed was not
	 * taken away from the source by anyone's choice. */
	if (fcp_sys_fstatx(d->src_fd, &st) < 0 || st.stx_nlink == 0)
		return "its source directory vanished";
	/* Copied into, as cp would, but not tidied: what is mounted there
	 * lives outside DEST. DEST is then no exact copy: exit 1. */
	return mount_why(d->dst_mount);
}

/* Say that d's n extras stay, and why (fails: count a failure). */
static void hold(struct fcp_job *job, const char *dpath, const char *why, bool fails, size_t n)
{
	char text[160];

	snprintf(text, sizeof(text), "%s (%zu entr%s the source lacks kept)", why, n,
		 n == 1 ? "y" : "ies");
	fcp_report_held(job, dpath, text);
	if (fails)
		atomic_fetch_add(&job->c.failed, 1);
}

/* Is name of d's copy one the job itself writes (own.h)? */
static bool own(struct fcp_job *job, const struct fcp_dir *d, bool here, const char *name)
{
	return here && fcp_own_name(job, d->dst_dev, d->dst_ino, name);
}

/* Is name one --delete leaves to leftover.c? Names fastcp provably made
 * (fcp_leftover_mine: its tag, a resumable file's record) may be
 * temporary files of a run going on or of an interrupted one: leftover.c
 * removes or names them. Any other name, whatever its shape, may be a
 * user's: an extra like any other. --check, which writes none, says
 * every one as an extra: only this job's own are not the copy's. */
static bool temp_name(const struct fcp_job *job, const struct fcp_dir *d, const char *name)
{
	return job->o->check ? fcp_tmpname_of_job(job, name) : fcp_leftover_mine(job, d->dst_fd, name);
}

/* Is name of dirfd a directory holding the copy of a move not finished
 * (FCP_MOVED_MARKER)? It is no extra to delete: the move's source may be
 * gone by other hands, and the copy is then the only one. */
static bool moved_copy(int dirfd, const char *name)
{
	int fd = fcp_sys_openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	bool is = fd >= 0 && fcp_move_moved_at(fd);

	if (fd >= 0)
		close(fd);
	return is;
}

/* The names of d's copy that neither its source's scan nor another
 * SOURCE merging into it met (temporary names: temp_name); the files the
 * job writes are not the copy's. */
static int extras(struct fcp_job *job, struct fcp_dir *d, const char *dpath,
		  struct fcp_names *extra, bool *stays)
{
	struct fcp_names all = { 0 };
	struct fcp_others o;
	bool here = fcp_own_dir(job, d->dst_dev, d->dst_ino), keep = keeps_backups(job, d);
	int r;

	if (d->seen->n)
		qsort(d->seen->v, d->seen->n, sizeof(*d->seen->v), by_name);
	if ((r = fcp_others_open(job, d, &o)) < 0) {
		fcp_report_held(job, dpath, "another SOURCE of its name cannot be read");
		return r;
	}
	if ((r = list_names(d->dst_fd, &all)) < 0)
		fcp_report_failed(job, "cannot read directory", dpath, r);
	for (size_t i = 0; r >= 0 && i < all.n; i++) {
		if (seen(d->seen, all.v[i]))
			continue;
		/* What stays is something -m finds in the directory. */
		if (temp_name(job, d, all.v[i]) || own(job, d, here, all.v[i]) ||
		    (keep && fcp_backup_name_like(job->o, all.v[i])) ||
		    fcp_plan_keeps_extra(job, d, all.v[i], d->dst_fd, all.v[i]) ||
		    fcp_others_have(&o, all.v[i]))
			*stays = true;
		else if (job->o->delete_extra && !job->o->check && moved_copy(d->dst_fd, all.v[i])) {
			char *p = join(dpath ? dpath : "?", all.v[i]);

			fcp_report_held(job, p, "it holds what a --move not finished has moved, "
						"whose source is gone: the only copy (an extra kept)");
			atomic_fetch_add(&job->c.failed, 1);
			free(p);
			*stays = true;
		} else if ((r = names_push(extra, all.v[i])) < 0)
			fcp_report_failed(job, "out of memory in", dpath, r);
	}
	names_clear(&all);
	fcp_others_close(&o);
	/* In name order, not the filesystem's: --max-delete takes them in an
	 * order every run and every filesystem agrees on. */
	if (extra->n)
		qsort(extra->v, extra->n, sizeof(*extra->v), by_name);
	return r;
}

/* An extra of a taken-up copy whose source is there was left out by the
 * filters now: its removal is said, a copy of a file the source has. */
static void say_left_out(struct fcp_job *job, const struct fcp_dir *d, const char *name,
			 const char *path)
{
	struct statx st;

	if (fcp_sys_statx(d->src_fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) < 0)
		return;
	pthread_mutex_lock(&job->err_lock);
	fcp_up_clear_line(job);
	fprintf(job->err, "fastcp: removed '%s', left by an interrupted run, left out by the "
			  "filters now\n", path ? path : name);
	pthread_mutex_unlock(&job->err_lock);
}

void fcp_delete_extras(struct fcp_worker *w, struct fcp_dir *d)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct sweep x = { job, d->dst_mnt, job->o->dry_run, 0, d, 0, keeps_backups(job, d),
			   d->src_fd, d, 0, 0 };
	struct fcp_names extra = { 0 };
	int dfd = d->dst_fd; /* d's own: never closed here */
	const char *why;
	bool fails;
	char *dpath;

	if (!d->seen)
		return;
	/* --max-delete spent: a taken-up copy keeps what it cannot check. */
	if (atomic_load(&job->del->stopped)) {
		if (d->root)
			atomic_store(&d->root->del_held, true);
		if (taken_up(d))
			atomic_store(&d->root->stale, true);
		return;
	}
	dpath = fcp_dir_dst_path(d, NULL);
	x.skip = x.mskip = strlen(dpath ? dpath : "?") + 1;
	bool stays = false;
	if (extras(job, d, dpath, &extra, &stays) < 0)
		stays = true;
	else if (extra.n && job->o->check && atomic_load(&d->unlisted)) {
		/* Its source was not listed whole: a name DEST holds may be
		 * one the source has too. Not called extra (the read error
		 * said already makes the check fail). */
		fcp_report_unchecked(job, dpath, "its source directory could not be read");
	} else if (extra.n) {
		/* --check says every extra: it deletes nothing. */
		why = job->o->check ? NULL : held(job, d, &fails);
		/* Unasked (a taken-up copy): said only by the copy keeping
		 * its hidden name. */
		if (why && taken_up(d) && !atomic_load(&job->stop))
			atomic_store(&d->root->stale, true);
		if (why && job->o->delete_extra) {
			hold(job, dpath, why, fails, extra.n);
			if (d->root)
				atomic_store(&d->root->del_held, true);
		}
		if (why)
			stays = true;
		for (size_t i = 0; !why && i < extra.n; i++) {
			char *p = join(dpath ? dpath : "?", extra.v[i]);
			int k = p ? remove_at(&x, &dfd, NULL, false, extra.v[i], p) : -ENOMEM;
			if (k == 0 && taken_up(d))
				say_left_out(job, d, extra.v[i], p);
			free(p);
			if (k != 0)
				stays = true;
			/* A taken-up copy with a partial file or a mount point
			 * left in it keeps its hidden name. */
			if (k != 0 && taken_up(d))
				atomic_store(&d->root->stale, true);
			if (k == -ECANCELED)
				break;
		}
	}
	/* (A dry run's -m asks: the run would find them there.) */
	if (stays)
		atomic_store(&d->holds, true);
	names_clear(&extra);
	free(dpath);
}

/* A directory that was there, taken by -m: a deletion, said as one. */
static void pruned_existing(struct fcp_job *job, struct fcp_dir *d)
{
	char *p = fcp_dir_dst_path(d->parent, d->dst_name);

	if (job->o->dry_run)
		fcp_report_plan_item(job, "delete", S_IFDIR, p ? p : d->dst_name, 0, 0);
	atomic_fetch_add(&job->c.deleted, 1);
	atomic_fetch_add(&job->c.deleted_dirs, 1);
	if (job->obs_items)
		fcp_obs_record(job, FCP_OBS_DELETE, S_IFDIR, p ? p : d->dst_name, 0, NULL, NULL);
	free(p);
}

bool fcp_delete_pruned(struct fcp_job *job, struct fcp_dir *d)
{
	const struct fcp_options *o = job->o;
	struct fcp_dir *p = d->parent;
	struct statx st;
	int r;

	if (!o->prune_empty_dirs || o->check || d->depth <= 0 || d->is_top ||
	    atomic_load(&d->failed_in) || atomic_load(&job->stop))
		return false;
	/* One that was there before goes only as --delete takes what the
	 * source lacks (rsync's --delete takes a pruned directory), and never
	 * past a --max-delete. */
	if (!d->made && !(o->delete_extra && o->max_delete < 0))
		return false;
	/* A dry run says what the run would find: nothing would be left in
	 * it (settle.c and fcp_delete_extras mark what would). */
	if (o->dry_run) {
		if (atomic_load(&d->holds))
			return false;
		if (!d->made)
			pruned_existing(job, d);
		return true;
	}
	if (fcp_dir_pin(job, p) < 0)
		return false;
	/* Still the directory made or met under its name: rmdir takes it
	 * only empty, so nothing in it can go with it. */
	r = fcp_sys_statx(p->dst_fd, d->dst_name, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_INO, &st);
	if (r == 0 && S_ISDIR(st.stx_mode) && st.stx_ino == d->dst_ino &&
	    fcp_statx_dev(&st) == d->dst_dev)
		r = fcp_sys_unlinkat(p->dst_fd, d->dst_name, AT_REMOVEDIR);
	else if (r == 0)
		r = -ESTALE;
	fcp_dir_unpin(job, p);
	/* Made and taken back: not a directory copied, and not said as one
	 * (its line waited for this: said_at_end). */
	if (r == 0 && !d->made) {
		fcp_manifest_forget(job, p, d->dst_name, true);
		pruned_existing(job, d);
	}
	return r == 0;
}
