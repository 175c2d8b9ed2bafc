/*
 * dedup.c - the content map of --dedup (dedup.h).
 *
 * (size, XXH3-128) -> the first copy of that content: where it lives
 * under its root copy (as links.c keeps a hard link's first copy, and
 * re-opened the same way, beneath the root without following symlinks)
 * and whether it is still being copied.
 *
 * The source is hashed before anything is decided, by an extra read of
 * it ahead of the copy: the copy's own read then comes from the page
 * cache for every file that fits there (all of the `dupes` workload), so
 * the cost is one pass of XXH3 over cached bytes (many GB/s) and, for a
 * duplicate, one read of the first copy to compare; a file larger than
 * the cache is read twice from storage. Hashing while copying instead
 * would write every duplicate before knowing it was one.
 *
 * A file whose content's first copy is still in flight waits in a queue
 * behind it, as links.c's names do, rather than being copied on its own:
 * in a tree of duplicates the first copy of a content is often still
 * being written by another worker when its twin is reached, and copying
 * those twins would give away much of the saving. A waiter is started
 * again as a fresh entry when the first copy is done (hashed once more,
 * from the page cache) and then finds it in place; if the first copy
 * failed, the first of its waiters becomes the new first copy.
 */
#include "tree/dedup.h"
#include "dest/dest.h"
#include "engine/engine.h"
#include "core/hash.h"
#include "tree/links.h"
#include "dest/manifest.h"
#include "core/node.h"
#include "core/observe.h"
#include "dest/resume.h"
#include "base/sys.h"
#include "core/worker.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DD_BUCKETS 4096

struct dd_waiter {
	struct dd_waiter *next;
	struct fcp_dir *dir;
	char *dst_name;         /* points into name[] */
	char name[];            /* source name, then destination name */
};

struct fcp_dd_entry {
	struct fcp_dd_entry *next;
	uint64_t size;
	struct fcp_hash h;
	bool done;              /* the first copy is in place */
	int base_fd;            /* held open by the job until its end */
	char *rel_dir;          /* directory of the first copy, relative to root */
	char *name;             /* its destination name */
	struct dd_waiter *waiters;
};

struct fcp_ddmap {
	pthread_mutex_t lock;
	bool collide;           /* test hook: every hash is 0 (see fcp_dd_init) */
	atomic_ullong refused_dev; /* 1 + the destination that cannot clone */
	struct fcp_dd_entry *b[DD_BUCKETS];
};

static size_t dd_bucket(uint64_t size, const struct fcp_hash *h)
{
	return (h->lo ^ size * 0x9e3779b97f4a7c15ULL) % DD_BUCKETS;
}

int fcp_dd_init(struct fcp_job *job)
{
	if (job->o->dedup == FCP_DEDUP_OFF)
		return 0;
	job->dd = calloc(1, sizeof(*job->dd));
	if (!job->dd)
		return -ENOMEM;
	pthread_mutex_init(&job->dd->lock, NULL);
	/* For the tests: FCP_TEST_DEDUP_COLLIDE=1 makes files of one size
	 * collide in the hash, so that the byte comparison, the only guard
	 * then, is seen at work end to end. Read once here: one test per
	 * file, none in the data path. */
	job->dd->collide = getenv("FCP_TEST_DEDUP_COLLIDE") != NULL;
	return 0;
}

static void entry_free(struct fcp_dd_entry *e)
{
	free(e->rel_dir);
	free(e->name);
	free(e);
}

void fcp_dd_free(struct fcp_job *job)
{
	if (!job->dd)
		return;
	for (int i = 0; i < DD_BUCKETS; i++)
		for (struct fcp_dd_entry *e = job->dd->b[i], *n; e; e = n) {
			n = e->next;
			entry_free(e);
		}
	pthread_mutex_destroy(&job->dd->lock);
	free(job->dd);
	job->dd = NULL;
}

int fcp_dedup_same_bytes(int a, int b, uint64_t len, void *buf, size_t cap)
{
	char *pa = buf, *pb = pa + cap / 2;
	size_t half = cap / 2;

	for (uint64_t off = 0; off < len;) {
		size_t want = len - off < half ? (size_t)(len - off) : half;
		ssize_t na = fcp_sys_pread_full(a, pa, want, (off_t)off);
		ssize_t nb = fcp_sys_pread_full(b, pb, want, (off_t)off);

		if (na < 0 || nb < 0)
			return (int)(na < 0 ? na : nb);
		if ((size_t)na != want || (size_t)nb != want)
			return 0; /* one of them is shorter */
		if (memcmp(pa, pb, want))
			return 0;
		off += want;
	}
	return 1;
}

/* Look (size, h) up; a new content is entered as being copied by e (or,
 * in a dry run, as done: nothing is in flight there). Under the lock. */
static struct fcp_dd_entry *lookup(struct fcp_ddmap *m, uint64_t size, const struct fcp_hash *h,
				   struct fcp_entry *e, bool *found)
{
	size_t k = dd_bucket(size, h);
	struct fcp_dd_entry *x;

	for (x = m->b[k]; x; x = x->next)
		if (x->size == size && fcp_hash_equal(&x->h, h)) {
			*found = true;
			return x;
		}
	*found = false;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->size = size;
	x->h = *h;
	x->done = e->job->o->dry_run;
	x->base_fd = e->d->is_top ? e->d->dst_fd : e->d->root->dst_fd;
	x->rel_dir = fcp_dir_rel_path(e->d);
	x->name = strdup(e->dst_name);
	if (!x->rel_dir || !x->name) {
		entry_free(x);
		return NULL;
	}
	x->next = m->b[k];
	m->b[k] = x;
	return x;
}

static bool queue(struct fcp_dd_entry *x, struct fcp_entry *e)
{
	size_t n = strlen(e->name) + 1;
	struct dd_waiter *wt = malloc(sizeof(*wt) + n + strlen(e->dst_name) + 1);

	if (!wt)
		return false;
	wt->dir = e->d;
	memcpy(wt->name, e->name, n);
	wt->dst_name = strcpy(wt->name + n, e->dst_name);
	wt->next = x->waiters;
	x->waiters = wt;
	/* Held until the waiter, started again, is done (fcp_entry_copy). */
	atomic_fetch_add(&e->d->pending, 1);
	return true;
}

/* The first copy of x, opened for reading beneath its root copy. Its
 * fields are fixed once it is done, and a done entry stays in the map
 * until the job ends: read without the lock. */
static int open_first(const struct fcp_dd_entry *x)
{
	char *p = *x->rel_dir ? fcp_path_join(x->rel_dir, x->name) : NULL;
	int fd = fcp_sys_open_beneath(x->base_fd, p ? p : x->name,
				      O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0);

	free(p);
	return fd;
}

struct link_from {
	const struct fcp_job *job;
	int fd;
};

static int make_link(int dirfd, const char *tmp, void *arg)
{
	const struct link_from *l = arg;
	int olddir, flags;
	char buf[32];

	/* The very inode compared, not a name that could have changed. */
	fcp_dest_unnamed_link_args(l->job, l->fd, buf, &olddir, &flags);
	return fcp_sys_linkat(olddir, buf, dirfd, tmp, flags);
}

/* --dedup=hardlink: e's name becomes another name of its first copy. */
static int link_to(struct fcp_entry *e, int from)
{
	struct link_from l = { e->job, from };
	char tmp[FCP_TMPNAME_MAX];
	const char *at;
	int r = fcp_dest_make_for(e->w, e->d, e->dst_name, tmp, &at, make_link, &l);

	if (r == 0 && at == tmp)
		r = fcp_dest_commit(e->job, e->d, tmp, e->dst_name);
	/* Where the name was this very inode already, the rename did
	 * nothing and tmp stays (as in links.c). */
	if (r == 0 && at == tmp)
		fcp_dest_discard(e->job, e->d, tmp);
	return r;
}

static void saved(struct fcp_job *job, uint64_t size)
{
	atomic_fetch_add(&job->c.dedup_files, 1);
	atomic_fetch_add(&job->c.dedup_bytes, size);
}

static bool refused_here(const struct fcp_entry *e)
{
	return atomic_load(&e->job->dd->refused_dev) == e->d->dst_dev + 1;
}

/* A duplicate of the done first copy x: the same bytes? Then link it
 * (hardlink: settled, true) or leave its first copy open to clone from.
 * Anything else: copied on its own. */
static bool duplicate(struct fcp_entry *e, struct fcp_hl_entry *hl, const struct fcp_dd_entry *x,
		      const struct fcp_hash *h)
{
	uint64_t size = e->st.stx_size;
	struct statx st;
	size_t cap;
	void *buf = fcp_worker_buf(e->w, &cap);
	int from, r;

	if (e->job->o->dedup == FCP_DEDUP_REFLINK && refused_here(e)) {
		atomic_fetch_add(&e->job->c.dedup_uncloned, 1);
		return false; /* this destination cannot clone: no need to compare */
	}
	if ((from = open_first(x)) < 0)
		return false;
	if (fcp_sys_fstatx(from, &st) < 0 || !S_ISREG(st.stx_mode) || st.stx_size != size ||
	    fcp_dedup_same_bytes(e->src_fd, from, size, buf, cap) != 1) {
		close(from);
		return false;
	}
	if (e->job->o->dedup == FCP_DEDUP_REFLINK) {
		e->dd_from = from;
		return false;
	}
	r = link_to(e, from);
	close(from);
	if (r < 0)
		return false; /* EMLINK and the like: a copy of its own */
	saved(e->job, size);
	/* A hard link made: counted and said as one, as links.c's are. */
	atomic_fetch_add(&e->job->c.hardlinks, 1);
	fcp_obs_item(e->job, FCP_OBS_LINK, S_IFREG, e->d, e->name, e->dst_name, 0, NULL, 0);
	/* Its bytes were compared equal to the source's, whose hash is h. */
	fcp_manifest_copied(e->job, e->d, e->dst_name, h);
	if (hl)
		fcp_hl_set_hash(hl, h);
	fcp_move_found(e->job, fcp_statx_dev(&e->st), e->st.stx_ino, e->d->dst_fd, e->dst_name);
	close(e->src_fd);
	fcp_hl_done(e->w, hl, true);
	return true;
}

bool fcp_dedup_settled(struct fcp_entry *e, struct fcp_hl_entry *hl)
{
	struct fcp_ddmap *m = e->job->dd;
	struct fcp_dd_entry *x;
	struct fcp_hash h, real;
	size_t cap;
	void *buf;
	bool found;

	e->dd_first = NULL;
	e->dd_from = -1;
	if (!m || e->st.stx_size == 0 || fcp_resume_wanted(e))
		return false;
	buf = fcp_worker_buf(e->w, &cap);
	if (fcp_hash_fd(e->job, e->src_fd, e->st.stx_size, buf, cap, false, &h) < 0)
		return false; /* the copy meets the error and reports it */
	real = h;
	if (m->collide)
		h = (struct fcp_hash){ 0, 0 };
	pthread_mutex_lock(&m->lock);
	x = lookup(m, e->st.stx_size, &h, e, &found);
	if (found && !x->done) {
		if (!queue(x, e)) {
			pthread_mutex_unlock(&m->lock);
			return false; /* without memory: copied on its own */
		}
		pthread_mutex_unlock(&m->lock);
		close(e->src_fd);
		/* The first name of a source hard link: its other names queued
		 * in the hard-link map are started again now (links.c), wait
		 * here in turn, and the first of them back is its first name. */
		fcp_hl_done(e->w, hl, false);
		return true;
	}
	pthread_mutex_unlock(&m->lock);
	if (!found) {
		e->dd_first = x; /* NULL without memory: copied on its own */
		return false;
	}
	return duplicate(e, hl, x, &real);
}

ssize_t fcp_dedup_clone(struct fcp_entry *e, int out, bool *cloned)
{
	int r = fcp_sys_ficlone(out, e->dd_from);

	close(e->dd_from);
	/* -2: cloned from it, counted as saved when the clone is in place. */
	e->dd_from = r == 0 ? -2 : -1;
	*cloned = r == 0;
	if (r == 0) {
		/* A clone is data in the copy, as the clone engine's are
		 * (engine.h): counted in bytes, and by the caller in
		 * bytes_cloned, which must never exceed it. */
		atomic_fetch_add(&e->job->c.bytes, (unsigned long long)e->st.stx_size);
		return (ssize_t)e->st.stx_size;
	}
	if (!fcp_engine_fallback_err(r))
		return r;
	/* EXDEV: the first copy is on another filesystem (a mount inside
	 * the destination), which says nothing of this one. */
	if (r != -EXDEV)
		atomic_store(&e->job->dd->refused_dev, e->d->dst_dev + 1);
	atomic_fetch_add(&e->job->c.dedup_uncloned, 1);
	return 0;
}

static void restart(struct fcp_worker *w, struct dd_waiter *wt)
{
	for (struct dd_waiter *next; wt; wt = next) {
		next = wt->next;
		fcp_entry_requeue(w, wt->dir, wt->name, wt->dst_name, DT_REG);
		free(wt);
	}
}

void fcp_dedup_done(struct fcp_worker *w, struct fcp_entry *e, bool ok)
{
	struct fcp_ddmap *m = e->job->dd;
	struct fcp_dd_entry *x = e->dd_first;
	struct dd_waiter *wt;

	if (e->dd_from >= 0)
		close(e->dd_from);
	if (e->dd_from == -2 && ok)
		saved(e->job, e->st.stx_size);
	e->dd_from = -1;
	if (!x)
		return;
	e->dd_first = NULL;
	pthread_mutex_lock(&m->lock);
	x->done = ok;
	wt = x->waiters;
	x->waiters = NULL;
	/* Out of the map in the same critical section, or a file queued in
	 * between would wait for nothing. */
	for (struct fcp_dd_entry **p = &m->b[dd_bucket(x->size, &x->h)]; !ok && *p; p = &(*p)->next)
		if (*p == x) {
			*p = x->next;
			break;
		}
	pthread_mutex_unlock(&m->lock);
	if (!ok)
		entry_free(x);
	restart(w, wt);
}

const char *fcp_dedup_dry_verb(struct fcp_entry *e)
{
	struct fcp_ddmap *m = e->job->dd;
	int fd = e->src_fd, flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
	struct fcp_hash h;
	struct statx now;
	size_t cap;
	void *buf;
	bool found = false;

	if (!m || !S_ISREG(e->st.stx_mode) || e->st.stx_size == 0)
		return NULL;
	/* A FIFO or device swapped in since the listing is not opened. */
	if (fd < 0 && (fd = fcp_sys_open_regular(e->d->src_fd, e->name, flags, STATX_TYPE, &now)) < 0)
		return NULL;
	buf = fcp_worker_buf(e->w, &cap);
	/* Size and hash only: no first copy exists to compare bytes with. */
	if (fcp_hash_fd(e->job, fd, e->st.stx_size, buf, cap, false, &h) == 0) {
		pthread_mutex_lock(&m->lock);
		lookup(m, e->st.stx_size, &h, e, &found);
		pthread_mutex_unlock(&m->lock);
	}
	if (fd != e->src_fd)
		close(fd);
	return !found ? NULL : e->job->o->dedup == FCP_DEDUP_HARDLINK ? "link" : "clone";
}
