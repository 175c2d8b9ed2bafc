/*
 * links.c - the map that keeps two names of one inode one inode in the
 * copy (a symlink's target is judged in base/path.c).
 */
#include "tree/links.h"
#include "dest/manifest.h"
#include "dest/dest.h"
#include "core/node.h"
#include "base/sys.h"
#include "core/observe.h"
#include "core/worker.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the hard-link map ---- */

#define HL_BUCKETS 4096 /* grows by chaining; lookups are rare (nlink > 1) */

struct hl_waiter {
	struct hl_waiter *next;
	struct fcp_dir *dir;
	char *dst_name;         /* points into name[] */
	char name[];            /* source name, then destination name */
};

struct fcp_hl_entry {
	struct fcp_hl_entry *next;
	uint64_t dev, ino;
	uint64_t dst_fs;        /* the filesystem of the first copy (dst_fs()) */
	int state;              /* 0 copying, 1 copied */
	int base_fd;            /* held open by the job until its end */
	char *rel_dir;          /* directory of the first copy, relative to root */
	char *name;             /* its destination name */
	uint64_t copy_ino;      /* found up to date there, or 0 (made) */
	bool has_hash;          /* h is the first copy's (--manifest) */
	struct fcp_hash h;
	struct hl_waiter *waiters;
};

struct fcp_hlmap {
	pthread_mutex_t lock;
	unsigned first_delay_us; /* a test hook: see fcp_hl_init */
	struct fcp_hl_entry *b[HL_BUCKETS];
};

static size_t hl_bucket(uint64_t dev, uint64_t ino)
{
	return (ino * 0x9e3779b97f4a7c15ULL + dev) % HL_BUCKETS;
}

int fcp_hl_init(struct fcp_job *job)
{
	job->hl = calloc(1, sizeof(*job->hl));
	if (!job->hl)
		return -ENOMEM;
	pthread_mutex_init(&job->hl->lock, NULL);
	/* For the tests: FCP_TEST_HL_FIRST_DELAY=US holds each first name
	 * that long after its claim, so that other names of its inode are
	 * claimed meanwhile, as a busy machine does now and then. Read once
	 * here; only inodes of several names pay a test of it. */
	const char *delay = getenv("FCP_TEST_HL_FIRST_DELAY");
	job->hl->first_delay_us = delay ? (unsigned)strtoul(delay, NULL, 10) : 0;
	return 0;
}

void fcp_hl_free(struct fcp_job *job)
{
	if (!job->hl)
		return;
	for (int i = 0; i < HL_BUCKETS; i++) {
		struct fcp_hl_entry *e = job->hl->b[i], *n;
		for (; e; e = n) {
			n = e->next;
			free(e->rel_dir);
			free(e->name);
			free(e);
		}
	}
	free(job->hl);
	job->hl = NULL;
}

/* Under -K, a directory of the copy may be on another filesystem than
 * DEST, reached through a symlink the copy followed (dirlink.h): names of
 * one inode are linked within each filesystem, each has a first copy of
 * its own (a link cannot cross). Else 0: DEST is one tree. */
static uint64_t dst_fs(const struct fcp_job *job, const struct fcp_dir *d)
{
	return job->o->keep_dirlinks ? d->dst_dev : 0;
}

/* state: of a new entry, 0 (its first name is being copied) or 1 (done:
 * found up to date as copy_ino, or a dry run's "would copy"). Set in the
 * same critical section that makes the entry, so no later name can queue
 * behind a first name that needs no copy: it would be linked again. */
static enum fcp_hl_state claim(struct fcp_job *job, const struct statx *st, struct fcp_dir *d,
			       const char *name, const char *dst_name, int state,
			       uint64_t copy_ino, struct fcp_hl_entry **out)
{
	uint64_t dev = fcp_statx_dev(st);
	size_t h = hl_bucket(dev, st->stx_ino);
	struct fcp_hlmap *m = job->hl;
	struct fcp_hl_entry *e;
	enum fcp_hl_state s = FCP_HL_FIRST;
	uint64_t fs = dst_fs(job, d);

	pthread_mutex_lock(&m->lock);
	for (e = m->b[h]; e; e = e->next)
		if (e->ino == st->stx_ino && e->dev == dev && e->dst_fs == fs)
			break;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (e) {
			e->dev = dev;
			e->ino = st->stx_ino;
			e->dst_fs = fs;
			e->base_fd = d->is_top ? d->dst_fd : d->root->dst_fd;
			e->rel_dir = fcp_dir_rel_path(d);
			e->name = strdup(dst_name);
			e->state = state;
			e->copy_ino = copy_ino;
			e->next = m->b[h];
			m->b[h] = e;
		}
	} else if (e->state == 0) {
		size_t n = strlen(name) + 1;
		struct hl_waiter *wt = malloc(sizeof(*wt) + n + strlen(dst_name) + 1);
		if (!wt) {
			e = NULL; /* copied on its own, as an independent file */
		} else {
			wt->dir = d;
			memcpy(wt->name, name, n);
			wt->dst_name = strcpy(wt->name + n, dst_name);
			wt->next = e->waiters;
			e->waiters = wt;
			atomic_fetch_add(&d->pending, 1);
			s = FCP_HL_QUEUED;
		}
	} else {
		s = FCP_HL_LINK;
	}
	pthread_mutex_unlock(&m->lock);
	if (s == FCP_HL_FIRST && m->first_delay_us)
		usleep(m->first_delay_us);
	*out = e;
	return s;
}

/* The first name could not be copied: forget the inode, so that the
 * names queued behind it (and any found later) get their own chance, the
 * first of them becoming the new first copy. */
static void hl_forget(struct fcp_worker *w, struct fcp_hl_entry *e, struct hl_waiter *wt)
{
	free(e->rel_dir);
	free(e->name);
	free(e);
	for (struct hl_waiter *next; wt; wt = next) {
		next = wt->next;
		fcp_entry_requeue(w, wt->dir, wt->name, wt->dst_name, DT_UNKNOWN);
		free(wt);
	}
}

void fcp_hl_set_hash(struct fcp_hl_entry *e, const struct fcp_hash *h)
{
	if (e) {
		e->h = *h;
		e->has_hash = true;
	}
}

void fcp_hl_done(struct fcp_worker *w, struct fcp_hl_entry *e, bool ok)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct hl_waiter *wt, *next;

	if (!e)
		return;
	pthread_mutex_lock(&job->hl->lock);
	e->state = ok;
	wt = e->waiters;
	e->waiters = NULL;
	/* Out of the map in the same critical section, or a name queued
	 * in between would be lost. */
	for (struct fcp_hl_entry **p = &job->hl->b[hl_bucket(e->dev, e->ino)]; !ok && *p;
	     p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			break;
		}
	pthread_mutex_unlock(&job->hl->lock);
	if (!ok) {
		hl_forget(w, e, wt);
		return;
	}
	for (; wt; wt = next) {
		/* A dry run says what it would link. */
		int r = job->o->dry_run ? -1 : fcp_dir_pin(job, wt->dir);

		next = wt->next;
		if (job->o->dry_run) {
			char *p = fcp_dir_dst_path(wt->dir, wt->dst_name);
			fcp_report_plan(job, "link", p);
			free(p);
		} else if (r == 0) {
			r = fcp_hl_link(w, e, wt->dir, wt->dst_name);
			/* --move: the file stays with all its names (entry.h). */
			if (r < 0 && job->o->move && wt->dir->src_fd >= 0)
				fcp_move_left_out(job, wt->dir->src_fd, wt->name);
			fcp_dir_unpin(job, wt->dir);
			if (r < 0)
				fcp_report_failed_in(job, "cannot create hard link", wt->dir,
						     wt->dst_name, true, r);
		}
		fcp_dir_release(w, wt->dir);
		free(wt);
	}
}

enum fcp_hl_state fcp_hl_claim(struct fcp_job *job, const struct statx *st, struct fcp_dir *d,
			       const char *name, const char *dst_name, struct fcp_hl_entry **out)
{
	return claim(job, st, d, name, dst_name, 0, 0, out);
}

struct fcp_hl_entry *fcp_hl_claim_new(struct fcp_job *job, const struct statx *st,
				      struct fcp_dir *d, const char *dst_name)
{
	struct fcp_hlmap *m = job->hl;
	uint64_t dev = fcp_statx_dev(st);
	size_t h = hl_bucket(dev, st->stx_ino);
	struct fcp_hl_entry *e;
	uint64_t fs = dst_fs(job, d);

	pthread_mutex_lock(&m->lock);
	for (e = m->b[h]; e; e = e->next)
		if (e->ino == st->stx_ino && e->dev == dev && e->dst_fs == fs)
			break;
	if (e) {
		e = NULL; /* another name has it: the synchronous way links it */
	} else if ((e = calloc(1, sizeof(*e)))) {
		e->dev = dev;
		e->ino = st->stx_ino;
		e->dst_fs = fs;
		e->base_fd = d->is_top ? d->dst_fd : d->root->dst_fd;
		e->rel_dir = fcp_dir_rel_path(d);
		e->name = strdup(dst_name);
		e->next = m->b[h];
		m->b[h] = e;
	}
	pthread_mutex_unlock(&m->lock);
	return e;
}

enum fcp_hl_state fcp_hl_claim_found(struct fcp_job *job, const struct statx *st,
				     struct fcp_dir *d, const char *name, const char *dst_name,
				     uint64_t dst_ino, struct fcp_hl_entry **out)
{
	return claim(job, st, d, name, dst_name, 1, dst_ino, out);
}

uint64_t fcp_hl_copy_ino(const struct fcp_hl_entry *e)
{
	return e->copy_ino;
}

struct link_src {
	int dirfd;
	const char *name;
};

static int make_link(int dirfd, const char *tmp, void *arg)
{
	const struct link_src *s = arg;
	return fcp_sys_linkat(s->dirfd, s->name, dirfd, tmp, 0);
}

int fcp_hl_link(struct fcp_worker *w, struct fcp_hl_entry *e, struct fcp_dir *d,
		const char *dst_name)
{
	struct fcp_job *job = fcp_worker_job(w);
	char tmp[FCP_TMPNAME_MAX];
	const char *at;
	int from, r;

	if (!e->rel_dir || !e->name)
		return -ENOMEM;
	/* The first copy's directory may be finished and closed by now, so it
	 * is re-opened beneath the root copy without following any symlink. */
	from = *e->rel_dir ? fcp_sys_open_beneath(e->base_fd, e->rel_dir,
						  O_PATH | O_DIRECTORY, 0)
			   : fcp_sys_openat(e->base_fd, ".", O_PATH | O_DIRECTORY, 0);
	/* Under -K the copies' path may pass a symlink in DEST that the copy
	 * followed (dirlink.h), as the user asked: followed again. */
	if ((from == -ELOOP || from == -EXDEV) && job->o->keep_dirlinks)
		from = fcp_sys_openat(e->base_fd, e->rel_dir, O_PATH | O_DIRECTORY, 0);
	if (from < 0)
		return from;
	struct link_src src = { from, e->name };
	r = fcp_dest_make_for(w, d, dst_name, tmp, &at, make_link, &src);
	fcp_sys_close(from);
	if (r == 0 && at == tmp)
		r = fcp_dest_commit(job, d, tmp, dst_name);
	/* Where dst_name already was this very inode (two merged sources
	 * that share a hard link under the same name), rename(2) succeeds
	 * without doing anything and tmp stays: it is removed here. */
	if (r == 0 && at == tmp)
		fcp_dest_discard(job, d, tmp);
	if (r == 0) {
		atomic_fetch_add(&job->c.hardlinks, 1);
		fcp_obs_entry(job, FCP_OBS_LINK, S_IFREG, d, dst_name, 0, NULL);
		fcp_manifest_copied(job, d, dst_name, e->has_hash ? &e->h : NULL);
		fcp_move_found(job, e->dev, e->ino, d->dst_fd, dst_name);
	}
	return r;
}
