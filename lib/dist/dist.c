/*
 * dist.c - one copy made by several processes (ranks), each running this
 * engine on its share of the tree: the rank's state, its root copies, and
 * the units of work given away and taken while the tree is copied.
 *
 * Rank 0 places each copy and makes its root (cp's rules, job.c); then
 * every rank copies what it is given. What moves between ranks is a unit
 * (dist_unit.c): a directory to read, or a batch of files of one
 * directory, named by its path below the root copy, with where that root's
 * source and copy are. Descriptors cannot travel: the rank that takes a
 * unit opens it beneath the root (openat2 RESOLVE_BENEATH|
 * RESOLVE_NO_SYMLINKS, source and copy) and checks that it reached the
 * very inodes the giver saw. What waits for every rank (directory
 * metadata above work given away, files with several names, the root
 * copies' names) is in dist_wait.c.
 */
#include "dist/dist_int.h"
#include "base/grow.h"
#include "core/node.h"
#include "base/sys.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The tree's calls into a run of several ranks. */
static const struct fcp_hooks hooks = {
	.root_made = fcp_dist_root_made,
	.dir_done = fcp_dist_dir_done,
	.defer_link = fcp_dist_defer_link,
	.may_share = fcp_dist_may_share,
	.chunk_add = fcp_dist_chunk_add,
	.chunk_remove = fcp_dist_chunk_remove,
	.chunk_result = fcp_dist_chunk_result,
};

int fcp_dist_init(struct fcp_job *job)
{
	const struct fcp_dist *t = job->o->dist;
	struct fcp_dist_state *ds;

	if (!t || t->size < 2)
		return 0;
	ds = calloc(1, sizeof(*ds));
	if (!ds || !(ds->links = calloc(t->size, sizeof(*ds->links)))) {
		free(ds);
		return -ENOMEM;
	}
	ds->t = t;
	pthread_mutex_init(&ds->lock, NULL);
	/* Reading a directory needs the .gitignore files of every directory
	 * above it, and -L's loop check its ancestors' inodes: both are on
	 * the rank that found it, so under those options none moves. */
	ds->may_give = !job->o->gitignore && job->o->symlinks != FCP_SYMLINKS_FOLLOW;
	/* One prefix for every rank (a source name with it is refused
	 * everywhere); the rank in each name keeps them apart. */
	t->ops->bcast(t->ctx, &job->tmp_random, sizeof(job->tmp_random));
	fcp_tmpname_prefix(job->tmp_random, job->tmp_prefix);
	job->tmp_rank = t->rank;
	job->dist = ds;
	job->hooks = &hooks;
	return 0;
}

static void droot_free(struct droot *r)
{
	if (!r)
		return;
	if (r->top.src_fd >= 0)
		close(r->top.src_fd);
	if (r->top.dst_fd >= 0)
		close(r->top.dst_fd);
	free(r->top.rel);
	free(r->at.src_at);
	free(r->at.dst_at);
	free(r->at.disp_src);
	free(r->at.disp_dst);
	free(r->own.src_abs);
	free(r->own.dst_abs);
	free(r->own.name);
	free((char *)r->own.rel_top);
	free(r);
}

void fcp_dist_free(struct fcp_job *job)
{
	struct fcp_dist_state *ds = job->dist;

	if (!ds)
		return;
	for (int i = 0; i < ds->nroots; i++)
		droot_free(ds->roots[i]);
	for (size_t i = 0; i < ds->nmeta; i++)
		free(ds->meta[i].rel);
	for (int i = 0; i < ds->t->size; i++)
		free(ds->links[i].p);
	free(ds->links);
	free(ds->roots);
	free(ds->meta);
	free(ds->held);
	fcp_dist_chunk_free(ds);
	pthread_mutex_destroy(&ds->lock);
	free(ds);
	job->dist = NULL;
	job->hooks = NULL;
}

bool fcp_dist_leader(const struct fcp_job *job)
{
	return !job->dist || job->dist->t->rank == 0;
}

int fcp_dist_share(struct fcp_job *job, int v)
{
	int32_t x = v;

	if (job->dist)
		job->dist->t->ops->bcast(job->dist->t->ctx, &x, sizeof(x));
	return x;
}

/* Room for root id in the table (under the lock). */
static struct droot **root_slot(struct fcp_dist_state *ds, int id)
{
	if (id < 0 || id > (1 << 24))
		return NULL;
	if (id >= ds->nroots) {
		struct droot **v = realloc(ds->roots, (id + 1) * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + ds->nroots, 0, (id + 1 - ds->nroots) * sizeof(*v));
		ds->roots = v;
		ds->nroots = id + 1;
	}
	return &ds->roots[id];
}

/* The top that stands for a root copy whose source and copy are open at
 * sfd and dfd (taken). */
static void top_init(struct droot *r, int sfd, int dfd)
{
	struct statx st;

	r->top.root = r->root;
	r->top.is_top = true;
	r->top.depth = 0;
	r->top.name = r->at.disp_src;
	r->top.dst_name = r->at.disp_dst;
	r->top.src_fd = sfd;
	r->top.dst_fd = dfd;
	r->top.rel = strdup("");
	if (fcp_sys_fstatx(sfd, &r->top.st) < 0)
		memset(&r->top.st, 0, sizeof(r->top.st));
	if (fcp_sys_fstatx(dfd, &st) == 0) {
		r->top.dst_dev = fcp_statx_dev(&st);
		r->top.dst_ino = st.stx_ino;
	}
	atomic_init(&r->top.pending, 1); /* never finished: fcp_dist_free */
	pthread_mutex_init(&r->top.fd_lock, NULL);
}

static char *dir_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? strndup(path, slash - path) : NULL;
}

void fcp_dist_root_made(struct fcp_job *job, struct fcp_dir *d)
{
	struct fcp_dist_state *ds = job->dist;
	struct fcp_root *root = d->root;
	struct droot *r = calloc(1, sizeof(*r)), **slot;
	struct fcp_dir **held;
	char *parent = dir_of(root->dst_abs);
	int sfd = fcp_sys_dup(d->src_fd), dfd = fcp_sys_dup(d->dst_fd);

	/* Held: its finish (metadata, name) waits for every rank. */
	atomic_fetch_add(&d->pending, 1);
	pthread_mutex_lock(&ds->lock);
	held = fcp_grow(ds->held, &ds->cap_held, (size_t)ds->nheld + 1, sizeof(*held), 8);
	if (!held)
		abort(); /* a few pointers: nothing sane to do without them */
	ds->held = held;
	ds->held[ds->nheld++] = d;
	slot = r ? root_slot(ds, root->id) : NULL;
	if (slot && !*slot && sfd >= 0 && dfd >= 0 && root->src_abs && parent) {
		r->root = root;
		r->at.src_at = strdup(root->src_abs);
		r->at.dst_at = d->hidden_name ? fcp_path_join(parent, d->hidden_name)
					      : strdup(root->dst_abs);
		r->at.disp_src = fcp_dir_src_path(d, NULL);
		r->at.disp_dst = fcp_dir_dst_path(d, NULL);
		top_init(r, sfd, dfd);
		*slot = r;
		/* Only a root others can open is ever given away. */
		if (r->at.src_at && r->at.dst_at && r->at.disp_src && r->at.disp_dst)
			root->dist = &r->at;
		r = NULL;
	}
	pthread_mutex_unlock(&ds->lock);
	free(parent);
	if (r) { /* not shared: copied by rank 0 alone */
		if (sfd >= 0)
			close(sfd);
		if (dfd >= 0)
			close(dfd);
		free(r);
	}
}

/* Fill r from unit u; false out of memory. */
static bool root_fill(struct droot *r, const struct unit *u)
{
	r->root = &r->own;
	r->own.id = u->h.root;
	r->own.src_abs = *u->s[S_SRC_ABS] ? strdup(u->s[S_SRC_ABS]) : NULL;
	r->own.dst_abs = *u->s[S_DST_ABS] ? strdup(u->s[S_DST_ABS]) : NULL;
	r->own.name = strdup(u->s[S_NAME]);
	r->own.rel_top = strdup(u->s[S_REL_TOP]);
	r->own.adopt_fd = -1;
	r->own.adopted = u->h.flags & F_ADOPTED;
	r->own.dist = &r->at;
	r->at.src_at = strdup(u->s[S_SRC_AT]);
	r->at.dst_at = strdup(u->s[S_DST_AT]);
	r->at.disp_src = strdup(u->s[S_DISP_SRC]);
	r->at.disp_dst = strdup(u->s[S_DISP_DST]);
	r->own.src_arg = r->at.disp_src;
	return r->own.name && r->own.rel_top && r->at.src_at && r->at.dst_at && r->at.disp_src &&
	       r->at.disp_dst;
}

/* The root copy of unit u, opened here the first time a unit names it
 * (under the lock). One that cannot be opened is reported once and kept
 * as broken; NULL only out of memory. */
struct droot *fcp_dist_root_open(struct fcp_job *job, const struct unit *u)
{
	struct fcp_dist_state *ds = job->dist;
	struct droot **slot = root_slot(ds, u->h.root), *r;
	int sfd, dfd = -1;

	if (!slot)
		return NULL;
	if (*slot)
		return *slot;
	if ((r = calloc(1, sizeof(*r))))
		r->top.src_fd = r->top.dst_fd = -1;
	if (!r || !root_fill(r, u)) {
		droot_free(r);
		fcp_report_failed(job, "out of memory at", u->s[S_DISP_SRC], -ENOMEM);
		return NULL;
	}
	sfd = fcp_sys_openat(AT_FDCWD, u->s[S_SRC_AT], O_RDONLY | O_DIRECTORY, 0);
	if (sfd < 0)
		fcp_report_failed(job, "cannot open the source on this rank", u->s[S_SRC_AT], sfd);
	else if ((dfd = fcp_sys_openat(AT_FDCWD, u->s[S_DST_AT], O_RDONLY | O_DIRECTORY, 0)) < 0)
		fcp_report_failed(job, "cannot open the copy on this rank", u->s[S_DST_AT], dfd);
	if (sfd < 0 || dfd < 0) {
		if (sfd >= 0)
			close(sfd);
		/* Its units are not copied, nor known item by item: the
		 * copy keeps its temporary name (fcp_dest_unhide). */
		r->broken = true;
		atomic_store(&r->root->stale, true);
		r->top.src_fd = r->top.dst_fd = -1;
	} else {
		top_init(r, sfd, dfd);
		r->own.dst_fd = dfd;
	}
	*slot = r;
	return r;
}

/* Open rel beneath top's fd (side: source or copy), as the inode ino. */
int fcp_dist_open_rel(int fd, const char *rel, uint64_t ino, struct statx *st)
{
	int r = *rel ? fcp_sys_open_beneath(fd, rel, O_RDONLY | O_DIRECTORY, 0) : fcp_sys_dup(fd);

	if (r >= 0 && (fcp_sys_fstatx(r, st) < 0 || (ino && st->stx_ino != ino))) {
		close(r);
		return -ESTALE;
	}
	return r;
}

/* The directory of unit u, opened below its root copy r, with pending
 * counts. Inode numbers are compared, not devices: a device number is
 * one host's name for a filesystem another host may number otherwise. */
struct fcp_dir *fcp_dist_dir_open(struct fcp_job *job, struct droot *r, const struct unit *u,
				int pending)
{
	const char *rel = u->s[S_REL];
	struct fcp_dir *nd;
	struct statx st, dst;
	int sfd, dfd = -1;

	sfd = fcp_dist_open_rel(r->top.src_fd, rel, u->h.st.stx_ino, &st);
	if (sfd >= 0)
		dfd = fcp_dist_open_rel(r->top.dst_fd, rel, u->h.dst_ino, &dst);
	if (sfd < 0 || dfd < 0) {
		if (sfd >= 0)
			close(sfd);
		fcp_report_failed_in(job, sfd == -ESTALE || dfd == -ESTALE
				     ? "directory was replaced during the copy, not followed:"
				     : "cannot open directory", &r->top, rel, sfd >= 0, sfd < 0 ? sfd : dfd);
		return NULL;
	}
	if (!(nd = calloc(1, sizeof(*nd))) || !(nd->name = strdup(rel))) {
		free(nd);
		close(sfd);
		close(dfd);
		fcp_report_failed_in(job, "out of memory at", &r->top, rel, false, -ENOMEM);
		return NULL;
	}
	nd->dst_name = nd->name;
	nd->parent = &r->top;
	nd->root = r->root;
	nd->src_fd = sfd;
	nd->dst_fd = dfd;
	nd->depth = 1;
	nd->st = st;
	nd->dst_dev = fcp_statx_dev(&dst);
	nd->dst_ino = dst.stx_ino;
	nd->made = u->h.flags & F_MADE;
	nd->created = u->h.flags & F_CREATED;
	nd->hidden = u->h.flags & F_HIDDEN;
	nd->gives_acl = u->h.flags & F_GIVES_ACL;
	nd->rotational = u->h.flags & F_ROTATIONAL;
	nd->no_special = u->h.flags & F_NO_SPECIAL;
	/* A batch's or a name's directory is read and finished by its giver. */
	nd->elsewhere = u->h.kind != UNIT_SCAN;
	atomic_init(&nd->pending, pending);
	fcp_dir_fds_init(job, nd);
	atomic_fetch_add(&r->top.pending, 1);
	return nd;
}

static void push(struct fcp_job *job, struct fcp_item *it, struct fcp_dir *d, const char *name)
{
	if (it) {
		fcp_sched_push_initial(job, it);
		return;
	}
	fcp_report_failed_in(job, "out of memory at", d, name, false, -ENOMEM);
	/* Nothing of it done here: finishing it only closes it (and so
	 * needs no worker of its own: this may be the balancing thread). */
	d->elsewhere = true;
	fcp_dir_release(fcp_sched_worker(job, 0), d);
}

/* Queue unit u's work on directory d (its pending counts taken). */
void fcp_dist_queue(struct fcp_job *job, struct fcp_dir *d, const struct unit *u)
{
	struct fcp_item *it;

	switch (u->h.kind) {
	case UNIT_SCAN:
		push(job, fcp_item_new(FCP_ITEM_SCAN, d, "", NULL, DT_DIR), d, NULL);
		break;
	case UNIT_BATCH:
		it = calloc(1, sizeof(*it) + u->names_len);
		if (it) {
			it->kind = FCP_ITEM_BATCH;
			it->dir = d;
			it->d_type = DT_REG;
			it->count = u->h.count;
			memcpy(it->name, u->names, u->names_len);
		}
		push(job, it, d, NULL);
		break;
	case UNIT_NAMES:
		for (const char *p = u->names; p < u->names + u->names_len; p += strlen(p) + 1)
			push(job, fcp_item_new(FCP_ITEM_ENTRY, d, p, NULL, DT_UNKNOWN), d, p);
		break;
	}
}


/* A unit's work of pending items not done here: its root copy is not
 * whole (counted in it, so that rank 0 keeps the temporary name). */
void fcp_dist_lost(struct fcp_job *job, struct droot *r, int items)
{
	if (r && r->broken)
		atomic_fetch_add(&r->own.failed, 1);
	atomic_fetch_add(&job->c.not_copied, items);
}

int fcp_dist_take(struct fcp_job *job, const char *buf, size_t len)
{
	struct fcp_dist_state *ds = job->dist;
	size_t off = 0;
	struct unit u;

	while (off < len) {
		struct droot *r;
		struct fcp_dir *d;

		if (!fcp_unit_unpack(buf, len, &off, &u))
			return -EINVAL; /* not from this build: nothing to trust */
		if (fcp_unit_items(&u) < 1)
			continue;
		if (u.h.kind == UNIT_RANGE) {
			fcp_dist_chunk_take(job, &u);
			continue;
		}
		pthread_mutex_lock(&ds->lock);
		r = fcp_dist_root_open(job, &u);
		pthread_mutex_unlock(&ds->lock);
		if (r && !r->broken && (d = fcp_dist_dir_open(job, r, &u, fcp_unit_refs(&u))))
			fcp_dist_queue(job, d, &u);
		else
			fcp_dist_lost(job, r, fcp_unit_items(&u));
	}
	return 0;
}

struct give {
	struct fcp_job *job;
	struct buf b;
	int err;
};

/* Work below d goes to another rank or phase: the metadata of d and of
 * the directories above it waits until every rank is done (a directory
 * whose whole subtree stayed here is finished post-order, as alone).
 * They are alive: the work holds a count of each. */
void fcp_dist_wait_for_all(struct fcp_dir *d)
{
	for (; d && !d->is_top && !atomic_load(&d->meta_later); d = d->parent)
		atomic_store(&d->meta_later, true);
}

/* fcp_sched_give's callback: pack a queued SCAN or BATCH, make it a GIVEN
 * one. */
static bool give_one(struct fcp_item *it, void *arg)
{
	struct give *g = arg;
	struct fcp_dir *d = it->dir;
	size_t names_len = 0;
	char *rel;

	/* A root copy is read where it was made (its finish is rank 0's). */
	if (d->is_top || !d->root->dist || (it->kind == FCP_ITEM_SCAN && d->depth <= 0))
		return true;
	if (!(rel = fcp_dir_rel_path(d)))
		return false;
	if (it->kind == FCP_ITEM_BATCH)
		for (int i = 0; i < it->count; i++)
			names_len += strlen(it->name + names_len) + 1;
	g->err = fcp_unit_pack(&g->b, it->kind == FCP_ITEM_SCAN ? UNIT_SCAN : UNIT_BATCH, d, rel,
		      it->name, names_len, it->kind == FCP_ITEM_BATCH ? it->count : 0);
	free(rel);
	if (g->err)
		return false;
	/* Read, tidied and finished over there; here it is only closed. */
	if (it->kind == FCP_ITEM_SCAN)
		d->elsewhere = true;
	fcp_dist_wait_for_all(it->kind == FCP_ITEM_SCAN ? d->parent : d);
	it->kind = FCP_ITEM_GIVEN;
	return true;
}

void fcp_dist_given(struct fcp_worker *w, struct fcp_item *it)
{
	fcp_dir_release(w, it->dir);
	free(it);
}

int fcp_dist_give(struct fcp_job *job, int max, char **buf, size_t *len)
{
	struct give g = { .job = job };
	int n = 0;

	*buf = NULL;
	*len = 0;
	if (!job->dist || !job->dist->may_give || job->dist->phase != PHASE_TREE ||
	    atomic_load(&job->stop))
		return 0;
	/* Directories first: each is a whole subtree of work. */
	n = fcp_sched_give(job, FCP_ITEM_SCAN, max, give_one, &g);
	if (n == 0)
		n = fcp_sched_give(job, FCP_ITEM_BATCH, max, give_one, &g);
	/* Then parts of large files: a tree's last work is often one. */
	if (n == 0)
		n = fcp_dist_chunk_give(job, max, &g.b);
	*buf = g.b.p;
	*len = g.b.len;
	return n;
}

bool fcp_dist_idle(struct fcp_job *job)
{
	return fcp_sched_idle(job);
}

void fcp_dist_end(struct fcp_job *job)
{
	fcp_sched_unhold(job);
}