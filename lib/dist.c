/*
 * dist.c - one copy made by several processes (ranks), each running this
 * engine on its share of the tree.
 *
 * Rank 0 places each copy and makes its root (cp's rules, job.c); then
 * every rank copies what it is given. What moves between ranks is a unit:
 * a directory to read, or a batch of files of one directory, named by its
 * path below the root copy, with where that root's source and copy are.
 * Descriptors cannot travel: the rank that takes a unit opens it beneath
 * the root (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, source and copy)
 * and checks that it reached the very inodes the giver saw.
 *
 * Three things wait for every rank, because another rank may still be at
 * work below them:
 *  - a directory's metadata is recorded when the directory is finished and
 *    set after the tree, deepest directories first, one level at a time
 *    on every rank (a parent made read-only, or given its times, before a
 *    child is done would stop the child or move the times);
 *  - a file with several names: each name goes to the rank that owns its
 *    inode number, which copies the inode once and links the other names
 *    to it (links.c's map, as in one process);
 *  - a root copy: rank 0 holds it, and gives it its name (dest.c) only
 *    when no rank failed in it.
 *
 * The units are packed in the host's byte order: the ranks of one copy
 * run one build on one architecture.
 */
#include "dist.h"
#include "entry.h"
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum unit_kind { UNIT_SCAN, UNIT_BATCH, UNIT_NAMES };
enum phase { PHASE_TREE, PHASE_LINKS, PHASE_AFTER };

/* What a directory was made as, for the rank that goes on in it. */
enum {
	F_MADE = 1 << 0, F_CREATED = 1 << 1, F_HIDDEN = 1 << 2, F_GIVES_ACL = 1 << 3,
	F_ROTATIONAL = 1 << 4, F_NO_SPECIAL = 1 << 5, F_ADOPTED = 1 << 6,
};

/* Where another rank opens a root copy, and how messages name it. */
struct fcp_dist_root {
	char *src_at, *dst_at;     /* absolute: the source, and its copy now
				      (under its temporary name) */
	char *disp_src, *disp_dst; /* as the command line's paths say them */
};

/* A unit: this head, then NUL-terminated strings (the root's, then the
 * directory's path below it), then count names; padded to 8 bytes. */
struct unit_head {
	uint32_t len;
	uint8_t kind, flags;
	int32_t root;
	uint32_t count;
	uint64_t dst_ino;
	struct statx st;           /* the directory's, as its giver saw it */
};

enum { S_SRC_AT, S_DST_AT, S_SRC_ABS, S_DST_ABS, S_DISP_SRC, S_DISP_DST, S_REL_TOP, S_NAME,
       S_REL, S_COUNT };

struct unit {
	struct unit_head h;
	const char *s[S_COUNT];
	const char *names;         /* count of them, one after another */
	size_t names_len;
};

struct buf {
	char *p;
	size_t len, cap;
};

/* A root copy as this rank has it open. Rank 0 has its own roots' real
 * fcp_root (job.c); the others one of their own. */
struct droot {
	struct fcp_root *root;
	struct fcp_root own;
	struct fcp_dist_root at;
	struct fcp_dir top;        /* stands for the root copy: depth 0, never
				      finished, the parent of what is taken */
	bool broken;               /* could not be opened here (reported once):
				      each unit of it counts as failed in it */
};

struct meta_rec {
	int root, depth;
	char *rel;
	struct statx st;
	bool inherited, existed, exact, created, gives_acl;
};

struct fcp_dist_state {
	const struct fcp_dist *t;
	enum phase phase;
	bool may_give;
	pthread_mutex_t lock;      /* everything below */
	struct droot **roots;      /* by root id */
	int nroots;
	struct meta_rec *meta;
	size_t nmeta, cap_meta;
	struct buf *links;         /* NAMES units for each rank */
	struct fcp_dir **held;     /* rank 0's root copies */
	int nheld, cap_held;
};

static int buf_put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		char *q;

		while (cap < b->len + n)
			cap *= 2;
		if (!(q = realloc(b->p, cap)))
			return -ENOMEM;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static int put_str(struct buf *b, const char *s)
{
	return buf_put(b, s ? s : "", strlen(s ? s : "") + 1);
}

static unsigned dir_flags(const struct fcp_dir *d)
{
	return (d->made ? F_MADE : 0) | (d->created ? F_CREATED : 0) | (d->hidden ? F_HIDDEN : 0) |
	       (d->gives_acl ? F_GIVES_ACL : 0) | (d->rotational ? F_ROTATIONAL : 0) |
	       (d->no_special ? F_NO_SPECIAL : 0) | (d->root->adopted ? F_ADOPTED : 0);
}

/* Append a unit of d (at rel below its root copy) to b; the names are
 * names_len bytes of count NUL-terminated names. */
static int pack(struct buf *b, enum unit_kind kind, const struct fcp_dir *d, const char *rel,
		const char *names, size_t names_len, uint32_t count)
{
	const struct fcp_root *r = d->root;
	const struct fcp_dist_root *at = r->dist;
	struct unit_head h = { .kind = kind, .flags = dir_flags(d), .root = r->id,
			       .count = count, .dst_ino = d->dst_ino, .st = d->st };
	const char *s[S_COUNT] = { at->src_at, at->dst_at, r->src_abs, r->dst_abs,
				   at->disp_src, at->disp_dst, r->rel_top, r->name, rel };
	size_t start = b->len;
	static const char pad[8];
	int e = buf_put(b, &h, sizeof(h));

	for (int i = 0; i < S_COUNT && !e; i++)
		e = put_str(b, s[i]);
	if (!e && names_len)
		e = buf_put(b, names, names_len);
	if (!e && (b->len - start) % 8)
		e = buf_put(b, pad, 8 - (b->len - start) % 8);
	if (e) {
		b->len = start;
		return e;
	}
	h.len = b->len - start;
	memcpy(b->p + start, &h, sizeof(h));
	return 0;
}

/* The unit at *off in buf, checked to lie within it; advances *off. */
static bool unpack(const char *buf, size_t len, size_t *off, struct unit *u)
{
	const char *p, *end;

	if (len - *off < sizeof(u->h))
		return false;
	memcpy(&u->h, buf + *off, sizeof(u->h));
	if (u->h.len < sizeof(u->h) || u->h.len > len - *off)
		return false;
	p = buf + *off + sizeof(u->h);
	end = buf + *off + u->h.len;
	for (int i = 0; i < S_COUNT; i++) {
		const char *z = memchr(p, 0, end - p);
		if (!z)
			return false;
		u->s[i] = p;
		p = z + 1;
	}
	u->names = p;
	for (uint32_t i = 0; i < u->h.count; i++) {
		const char *z = memchr(p, 0, end - p);
		if (!z)
			return false;
		p = z + 1;
	}
	u->names_len = p - u->names;
	*off += u->h.len;
	return true;
}

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
	t->ops->bcast(t->ctx, job->tmp_prefix, sizeof(job->tmp_prefix));
	job->tmp_rank = t->rank;
	job->dist = ds;
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
	pthread_mutex_destroy(&ds->lock);
	free(ds);
	job->dist = NULL;
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
	char *parent = dir_of(root->dst_abs);
	int sfd = fcp_sys_dup(d->src_fd), dfd = fcp_sys_dup(d->dst_fd);

	/* Held: its finish (metadata, name) waits for every rank. */
	atomic_fetch_add(&d->pending, 1);
	pthread_mutex_lock(&ds->lock);
	if (ds->nheld == ds->cap_held) {
		int cap = ds->cap_held ? 2 * ds->cap_held : 8;
		struct fcp_dir **v = realloc(ds->held, cap * sizeof(*v));
		if (!v)
			abort(); /* a few pointers: nothing sane to do without them */
		ds->held = v;
		ds->cap_held = cap;
	}
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
static struct droot *root_open(struct fcp_job *job, const struct unit *u)
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
		r->broken = true;
		r->top.src_fd = r->top.dst_fd = -1;
	} else {
		top_init(r, sfd, dfd);
		r->own.dst_fd = dfd;
	}
	*slot = r;
	return r;
}

/* Open rel beneath top's fd (side: source or copy), as the inode ino. */
static int open_rel(int fd, const char *rel, uint64_t ino, struct statx *st)
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
static struct fcp_dir *dir_open(struct fcp_job *job, struct droot *r, const struct unit *u,
				int pending)
{
	const char *rel = u->s[S_REL];
	struct fcp_dir *nd;
	struct statx st, dst;
	int sfd, dfd = -1;

	sfd = open_rel(r->top.src_fd, rel, u->h.st.stx_ino, &st);
	if (sfd >= 0)
		dfd = open_rel(r->top.dst_fd, rel, u->h.dst_ino, &dst);
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
static void queue_unit(struct fcp_job *job, struct fcp_dir *d, const struct unit *u)
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

static int unit_pending(const struct unit *u)
{
	return u->h.kind == UNIT_SCAN ? 1 : (int)u->h.count;
}

/* A unit's work of pending items not done here: its root copy is not
 * whole (counted in it, so that rank 0 keeps the temporary name). */
static void lost(struct fcp_job *job, struct droot *r, int pending)
{
	if (r && r->broken)
		atomic_fetch_add(&r->own.failed, 1);
	atomic_fetch_add(&job->c.not_copied, pending);
}

int fcp_dist_take(struct fcp_job *job, const char *buf, size_t len)
{
	struct fcp_dist_state *ds = job->dist;
	size_t off = 0;
	struct unit u;

	while (off < len) {
		struct droot *r;
		struct fcp_dir *d;

		if (!unpack(buf, len, &off, &u))
			return -EINVAL; /* not from this build: nothing to trust */
		if (unit_pending(&u) < 1)
			continue;
		pthread_mutex_lock(&ds->lock);
		r = root_open(job, &u);
		pthread_mutex_unlock(&ds->lock);
		if (r && !r->broken && (d = dir_open(job, r, &u, unit_pending(&u))))
			queue_unit(job, d, &u);
		else
			lost(job, r, unit_pending(&u));
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
static void wait_for_all(struct fcp_dir *d)
{
	for (; d && !d->is_top && !atomic_load(&d->meta_later); d = d->parent)
		atomic_store(&d->meta_later, true);
}

/* fcp_sched_give's callback: pack a queued SCAN or BATCH, mark it moved. */
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
	g->err = pack(&g->b, it->kind == FCP_ITEM_SCAN ? UNIT_SCAN : UNIT_BATCH, d, rel,
		      it->name, names_len, it->kind == FCP_ITEM_BATCH ? it->count : 0);
	free(rel);
	if (g->err)
		return false;
	/* Read, tidied and finished over there; here it is only closed. */
	if (it->kind == FCP_ITEM_SCAN)
		d->elsewhere = true;
	it->moved = true;
	wait_for_all(it->kind == FCP_ITEM_SCAN ? d->parent : d);
	return true;
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
	err = pack(&ds->links[owner(e->st.stx_ino, ds->t->size)], UNIT_NAMES, e->d, rel, e->name,
		   strlen(e->name) + 1, 1);
	pthread_mutex_unlock(&ds->lock);
	free(rel);
	if (err == 0)
		wait_for_all(e->d);
	return err == 0;
}

void fcp_dist_dir_done(struct fcp_job *job, struct fcp_dir *d, struct fcp_at dst)
{
	struct fcp_dist_state *ds = job->dist;
	struct meta_rec m = { .root = d->root->id, .st = d->st, .inherited = dst.inherited,
			      .existed = dst.existed, .exact = dst.exact_xattrs,
			      .created = d->created, .gives_acl = d->gives_acl };
	bool added;

	if (!(m.rel = fcp_dir_rel_path(d))) {
		fcp_report_failed_in(job, "out of memory at", d, NULL, true, -ENOMEM);
		return;
	}
	m.depth = 1;
	for (const char *p = m.rel; *p; p++)
		m.depth += *p == '/';
	pthread_mutex_lock(&ds->lock);
	if (ds->nmeta == ds->cap_meta) {
		size_t cap = ds->cap_meta ? 2 * ds->cap_meta : 256;
		struct meta_rec *v = realloc(ds->meta, cap * sizeof(*v));
		if (v) {
			ds->meta = v;
			ds->cap_meta = cap;
		}
	}
	added = ds->nmeta < ds->cap_meta;
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
	sfd = open_rel(r->top.src_fd, m->rel, m->st.stx_ino, &st);
	dfd = sfd >= 0 ? open_rel(r->top.dst_fd, m->rel, 0, &st) : -1;
	if (sfd < 0 || dfd < 0) {
		fcp_report_failed_in(job, "cannot set the metadata of", &r->top, m->rel, sfd >= 0,
				     sfd < 0 ? sfd : dfd);
	} else {
		struct fcp_at dst = FCP_AT_FD(dfd);
		dst.inherited = m->inherited;
		dst.existed = m->existed;
		dst.exact_xattrs = m->exact;
		fcp_meta_copy(job, FCP_AT_FD(sfd), dst, &m->st, &d, NULL);
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
		if (n == cap) {
			if (!(nv = realloc(v, (cap ? 2 * cap : 256) * sizeof(*v))))
				abort(); /* names would be lost without a word */
			v = nv;
			cap = cap ? 2 * cap : 256;
		}
		if (!unpack(buf, len, &off, &v[n]))
			break; /* not from this build: nothing to trust */
		n++;
	}
	qsort(v, n, sizeof(*v), by_dir);
	for (size_t i = 0, j; i < n; i = j) {
		struct droot *r;
		struct fcp_dir *d;
		int count = 0;

		for (j = i; j < n && by_dir(&v[i], &v[j]) == 0; j++)
			count++;
		pthread_mutex_lock(&job->dist->lock);
		r = root_open(job, &v[i]);
		pthread_mutex_unlock(&job->dist->lock);
		if (!r || r->broken || !(d = dir_open(job, r, &v[i], count))) {
			lost(job, r, count);
			continue;
		}
		for (size_t k = i; k < j; k++)
			queue_unit(job, d, &v[k]);
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

/* Collective: what every rank failed in each root copy, and whether any
 * stopped; then rank 0 finishes its root copies (metadata, name). */
static void roots_phase(struct fcp_job *job, int nroots)
{
	struct fcp_dist_state *ds = job->dist;
	uint64_t *v = calloc(nroots + 1, sizeof(*v));

	if (!v)
		abort(); /* every rank must take part: nothing sane to do */
	for (int i = 0; i < nroots && i < ds->nroots; i++)
		if (ds->roots[i])
			v[i] = atomic_load(&ds->roots[i]->root->failed);
	v[nroots] = atomic_load(&job->stop);
	ds->t->ops->reduce(ds->t->ctx, v, nroots + 1, false);
	/* Another rank stopped (a signal, a full destination): the copies
	 * are not whole; they keep their temporary names. */
	if (v[nroots] && !atomic_load(&job->stop))
		fcp_job_stop(job, -ECANCELED);
	for (int i = 0; i < ds->nheld; i++) {
		struct fcp_dir *d = ds->held[i];

		if (d->root->id < nroots && d->root->dist)
			atomic_store(&d->root->failed, v[d->root->id]);
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
