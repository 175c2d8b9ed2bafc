/*
 * dist_wait.c - what waits for every rank, because another rank may still
 * be at work below it, and the phases of a round (fcp_dist_run):
 *  - the metadata of a directory above work given away is recorded when
 *    the directory is finished, and set after the tree, deepest
 *    directories first, one level at a time on every rank (a parent made
 *    read-only, or given its times, before its children are done would
 *    stop them or have its times moved); a directory whose whole subtree
 *    stayed on its rank is finished there post-order, as alone;
 *  - a file with several names: each name goes to the rank that owns its
 *    inode number, which copies the inode once and links the other names
 *    to it (links.c's map, as in one process);
 *  - a root copy: rank 0 holds it, and gives it its name (dest.c) only
 *    when no rank failed in it or was stopped.
 */
#include "dist/dist_int.h"
#include "tree/entry.h"
#include "base/grow.h"
#include "core/node.h"
#include "base/sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The rank that copies the inode ino: every rank sends its names there. */
static int owner(uint64_t ino, int size)
{
	return (int)(((ino * 0x9e3779b97f4a7c15ull) >> 32) % (uint64_t)size);
}

bool fcp_dist_defer_link(struct fcp_entry *e)
{
	struct fcp_dist_state *ds = e->job->dist;
	char *rel;
	int err;

	/* A command-line operand is rank 0's; under -L a path below the
	 * root may pass symlinks, which the owner would not follow. */
	if (!ds || ds->phase != PHASE_TREE || e->d->is_top || !e->d->root->dist ||
	    e->job->o->symlinks == FCP_SYMLINKS_FOLLOW)
		return false;
	if (!(rel = fcp_dir_rel_path(e->d)))
		return false;
	pthread_mutex_lock(&ds->lock);
	err = fcp_unit_pack(&ds->links[owner(e->st.stx_ino, ds->t->size)], UNIT_NAMES, e->d, rel,
			    e->name, strlen(e->name) + 1, 1);
	pthread_mutex_unlock(&ds->lock);
	free(rel);
	if (err == 0)
		fcp_dist_wait_for_all(e->d);
	return err == 0;
}

void fcp_dist_dir_done(struct fcp_job *job, struct fcp_dir *d, struct fcp_at dst)
{
	struct fcp_dist_state *ds = job->dist;
	struct meta_rec m = { .root = d->root->id, .st = d->st, .inherited = dst.inherited,
			      .existed = dst.existed, .exact = dst.exact_xattrs,
			      .created = d->created, .gives_acl = d->gives_acl };
	struct meta_rec *v;
	bool added;

	if (!(m.rel = fcp_dir_rel_path(d))) {
		fcp_report_failed_in(job, "out of memory at", d, NULL, true, -ENOMEM);
		return;
	}
	m.depth = 1;
	for (const char *p = m.rel; *p; p++)
		m.depth += *p == '/';
	pthread_mutex_lock(&ds->lock);
	v = fcp_grow(ds->meta, &ds->cap_meta, ds->nmeta + 1, sizeof(*v), 256);
	if (v)
		ds->meta = v;
	added = v != NULL;
	if (added)
		ds->meta[ds->nmeta++] = m;
	pthread_mutex_unlock(&ds->lock);
	if (!added) {
		fcp_report_failed_in(job, "out of memory at", d, NULL, true, -ENOMEM);
		free(m.rel);
	}
}

/* Set one recorded directory's metadata, through descriptors opened
 * beneath its root copy. */
static void meta_apply(struct fcp_job *job, const struct meta_rec *m)
{
	struct droot *r = m->root < job->dist->nroots ? job->dist->roots[m->root] : NULL;
	struct statx st;
	struct fcp_dir d = { 0 };
	int sfd, dfd, e;

	if (!r || r->broken)
		return; /* its root could not be opened here: reported then */
	d.parent = &r->top;
	d.root = r->root;
	d.name = d.dst_name = m->rel;
	d.depth = 1;
	d.created = m->created;
	d.gives_acl = m->gives_acl;
	sfd = fcp_dist_open_rel(r->top.src_fd, m->rel, m->st.stx_ino, &st);
	dfd = sfd >= 0 ? fcp_dist_open_rel(r->top.dst_fd, m->rel, 0, &st) : -1;
	if (sfd < 0 || dfd < 0) {
		fcp_report_failed_in(job, "cannot set the metadata of", &r->top, m->rel, sfd >= 0,
				     sfd < 0 ? sfd : dfd);
	} else {
		struct fcp_at dst = FCP_AT_FD(dfd);
		dst.inherited = m->inherited;
		dst.existed = m->existed;
		dst.exact_xattrs = m->exact;
		if ((e = fcp_meta_copy(job, FCP_AT_FD(sfd), dst, &m->st, &d, NULL)) < 0) {
			fcp_move_keep(job, &m->st);
			fcp_report_failed_in(job, "cannot read the extended attributes of", &r->top,
					     m->rel, false, e);
		}
		if (job->o->fsync && (e = fcp_sys_fsync(dfd)) < 0)
			fcp_report_failed_in(job, "cannot sync directory", &r->top, m->rel, true, e);
	}
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
}

/* Collective: the recorded metadata, the deepest level first on every
 * rank, each level done everywhere before the next begins. */
static void meta_phase(struct fcp_job *job)
{
	struct fcp_dist_state *ds = job->dist;
	uint64_t depth = 0, sync;

	for (size_t i = 0; i < ds->nmeta; i++)
		depth = (uint64_t)ds->meta[i].depth > depth ? (uint64_t)ds->meta[i].depth : depth;
	ds->t->ops->reduce(ds->t->ctx, &depth, 1, true);
	for (uint64_t k = depth; k >= 1; k--) {
		for (size_t i = 0; i < ds->nmeta; i++)
			if ((uint64_t)ds->meta[i].depth == k)
				meta_apply(job, &ds->meta[i]);
		sync = 0;
		ds->t->ops->reduce(ds->t->ctx, &sync, 1, true); /* the level's barrier */
	}
	for (size_t i = 0; i < ds->nmeta; i++)
		free(ds->meta[i].rel);
	ds->nmeta = 0;
}

static int by_dir(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	if (x->h.root != y->h.root)
		return x->h.root < y->h.root ? -1 : 1;
	return strcmp(x->s[S_REL], y->s[S_REL]);
}

/* The names sent to this rank, one directory node for all the names of
 * one directory: the names of one inode meet in links.c's map. */
static void take_names(struct fcp_job *job, const char *buf, size_t len)
{
	struct unit *v = NULL, *nv;
	size_t n = 0, cap = 0, off = 0;

	while (off < len) {
		if (!(nv = fcp_grow(v, &cap, n + 1, sizeof(*v), 256)))
			abort(); /* names would be lost without a word */
		v = nv;
		if (!fcp_unit_unpack(buf, len, &off, &v[n]))
			break; /* not from this build: nothing to trust */
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), by_dir);
	for (size_t i = 0, j; i < n; i = j) {
		struct droot *r;
		struct fcp_dir *d;
		int count = 0;

		for (j = i; j < n && by_dir(&v[i], &v[j]) == 0; j++)
			count++;
		pthread_mutex_lock(&job->dist->lock);
		r = fcp_dist_root_open(job, &v[i]);
		pthread_mutex_unlock(&job->dist->lock);
		if (!r || r->broken || !(d = fcp_dist_dir_open(job, r, &v[i], count))) {
			fcp_dist_lost(job, r, count);
			continue;
		}
		for (size_t k = i; k < j; k++)
			fcp_dist_queue(job, d, &v[k]);
	}
	free(v);
}

/* Collective: every rank's deferred names to their owners, copied there. */
static int links_phase(struct fcp_job *job)
{
	struct fcp_dist_state *ds = job->dist;
	int size = ds->t->size, used;
	char **send = calloc(size, sizeof(*send)), *recv = NULL;
	size_t *slen = calloc(size, sizeof(*slen)), rlen = 0;
	int r;

	if (!send || !slen)
		abort(); /* every rank must take part: nothing sane to do */
	for (int i = 0; i < size; i++) {
		send[i] = ds->links[i].p;
		slen[i] = ds->links[i].len;
	}
	r = ds->t->ops->exchange(ds->t->ctx, send, slen, &recv, &rlen);
	free(send);
	free(slen);
	for (int i = 0; i < size; i++) {
		free(ds->links[i].p);
		ds->links[i] = (struct buf){ 0 };
	}
	if (r < 0) {
		fcp_report_errorf(job, "cannot exchange hard links between ranks: %s", strerror(-r));
		atomic_fetch_add(&job->c.failed, 1);
	}
	ds->phase = PHASE_LINKS;
	take_names(job, recv, rlen);
	free(recv);
	used = fcp_sched_run(job);
	return used;
}

#define STALE_UNIT (1ull << 40)

/* Collective: what every rank failed in each root copy, and whether any
 * stopped; then rank 0 finishes its root copies (metadata, name). */
static void roots_phase(struct fcp_job *job, int nroots)
{
	struct fcp_dist_state *ds = job->dist;
	uint64_t *v = calloc(nroots + 1, sizeof(*v));

	if (!v)
		abort(); /* every rank must take part: nothing sane to do */
	/* A stale taken-up copy (dest.h) rides above the failed count. */
	for (int i = 0; i < nroots && i < ds->nroots; i++)
		if (ds->roots[i])
			v[i] = atomic_load(&ds->roots[i]->root->failed) +
			       (atomic_load(&ds->roots[i]->root->stale) ? STALE_UNIT : 0);
	v[nroots] = atomic_load(&job->stop);
	ds->t->ops->reduce(ds->t->ctx, v, nroots + 1, false);
	/* Another rank stopped (a signal, a full destination): the copies
	 * are not whole; they keep their temporary names. */
	if (v[nroots] && !atomic_load(&job->stop))
		fcp_job_stop(job, -ECANCELED);
	for (int i = 0; i < ds->nheld; i++) {
		struct fcp_dir *d = ds->held[i];

		if (d->root->id < nroots && d->root->dist) {
			atomic_store(&d->root->failed, v[d->root->id] % STALE_UNIT);
			if (v[d->root->id] >= STALE_UNIT)
				atomic_store(&d->root->stale, true);
		}
		fcp_dir_release(fcp_sched_worker(job, 0), d);
	}
	ds->nheld = 0;
	free(v);
}

int fcp_dist_run(struct fcp_job *job, int nroots)
{
	struct fcp_dist_state *ds = job->dist;
	int used, more;

	ds->phase = PHASE_TREE;
	fcp_sched_hold(job);
	ds->t->ops->balance(ds->t->ctx, job);
	used = fcp_sched_run(job);
	ds->t->ops->balance_join(ds->t->ctx);
	more = links_phase(job);
	ds->phase = PHASE_AFTER;
	meta_phase(job);
	roots_phase(job, nroots);
	return used > more ? used : more;
}
