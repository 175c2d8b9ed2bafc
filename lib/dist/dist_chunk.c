/*
 * dist_chunk.c - chunks of one large file copied by several ranks.
 *
 * A lopsided tree's one huge file would otherwise be one rank's work while
 * the others wait. Its owner (the rank that opened it, chunk.c) lists it
 * here while chunks are left; a rank asked for work with no directory or
 * batch to give splits off the last half of a listed file's chunks nobody
 * took yet, as a RANGE unit: the file's directory below the root copy,
 * its source's name and inode, the copy's temporary name and inode. The
 * taker opens both beneath the root (no symlink followed, the inodes
 * checked), copies the range with its own workers, and sends the result
 * (bytes written, first error, where the source ended) back to the owner,
 * which counts busy until then and lands the file after its last range:
 * its metadata and name are set by one rank, as for any file.
 */
#include "tree/chunk.h"
#include "dist/dist_int.h"
#include "engine/engine.h"
#include "base/grow.h"
#include "core/node.h"
#include "base/sys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct shared_file {
	struct fcp_bigfile *b;
	uint64_t id;
	struct fcp_chunk_share s;
};

/* A range's result, as it travels back (host order: one build). */
struct range_result {
	int32_t to, err;
	uint64_t id, bytes;
	int64_t eof;
};

bool fcp_dist_may_share(const struct fcp_job *job, uint64_t size)
{
	return job->dist && job->dist->may_give && size >= (uint64_t)FCP_LARGE_MIN &&
	       !job->o->verify;
}

void fcp_dist_chunk_add(struct fcp_job *job, struct fcp_bigfile *b)
{
	struct fcp_dist_state *ds = job->dist;
	struct shared_file *files;
	struct fcp_chunk_share s;

	if (!ds || !ds->may_give || !fcp_chunk_shareable(b, &s) || !s.d->root->dist)
		return;
	pthread_mutex_lock(&ds->lock);
	/* Out of memory it is simply not shared. */
	if ((files = fcp_grow(ds->files, &ds->cap_files, (size_t)ds->nfiles + 1, sizeof(*files), 8))) {
		ds->files = files;
		ds->files[ds->nfiles++] = (struct shared_file){ b, ++ds->next_id, s };
	}
	pthread_mutex_unlock(&ds->lock);
}

void fcp_dist_chunk_remove(struct fcp_job *job, struct fcp_bigfile *b)
{
	struct fcp_dist_state *ds = job->dist;

	if (!ds)
		return;
	pthread_mutex_lock(&ds->lock);
	for (int i = 0; i < ds->nfiles; i++)
		if (ds->files[i].b == b) {
			ds->files[i] = ds->files[--ds->nfiles];
			break;
		}
	pthread_mutex_unlock(&ds->lock);
}

/* One range of f packed into out: 1, or 0 when none was split off. The
 * unit is packed first and its chunks filled in after the split, so that
 * nothing can fail once they are taken off the file. */
static int give_range(struct fcp_job *job, struct shared_file *f, struct buf *out)
{
	const struct fcp_chunk_share *s = &f->s;
	size_t n1 = strlen(s->name) + 1, n2 = strlen(s->tmp_name) + 1, at = out->len;
	char *rel = fcp_dir_rel_path(s->d), *names = malloc(n1 + n2);
	struct unit_range r = { .id = f->id, .src_ino = s->src_ino, .tmp_ino = s->tmp_ino,
				.size = s->size, .allocated = s->allocated,
				.owner = job->dist->t->rank };
	bool given = false;

	if (rel && names) {
		memcpy(names, s->name, n1);
		memcpy(names + n1, s->tmp_name, n2);
		given = !fcp_unit_pack_range(out, s->d, rel, names, n1 + n2, &r);
	}
	if (given && (given = fcp_chunk_split(job, f->b, &r.first, &r.end)))
		fcp_unit_set_range(out, at, r.first, r.end);
	else
		out->len = at;
	free(rel);
	free(names);
	return given;
}

int fcp_dist_chunk_give(struct fcp_job *job, int max, struct buf *b)
{
	struct fcp_dist_state *ds = job->dist;
	int n = 0;

	pthread_mutex_lock(&ds->lock); /* keeps every listed file alive */
	for (int i = 0; i < ds->nfiles && n < max; i++)
		n += give_range(job, &ds->files[i], b);
	pthread_mutex_unlock(&ds->lock);
	return n;
}

void fcp_dist_chunk_result(struct fcp_job *job, int owner, uint64_t id, uint64_t bytes, int err,
			   int64_t eof)
{
	struct fcp_dist_state *ds = job->dist;
	struct range_result *results;

	pthread_mutex_lock(&ds->lock);
	results = fcp_grow(ds->results, &ds->cap_results, (size_t)ds->nresults + 1,
			   sizeof(*results), 8);
	if (!results)
		abort(); /* the owner would wait for it forever */
	ds->results = results;
	ds->results[ds->nresults++] =
		(struct range_result){ .to = owner, .err = err, .id = id, .bytes = bytes, .eof = eof };
	pthread_mutex_unlock(&ds->lock);
}

/* Open name beneath dir fd as the regular file ino (flags: how). */
static int open_file(int dfd, const char *name, uint64_t ino, int flags)
{
	struct statx st;
	int fd = fcp_sys_openat(dfd, name, flags | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0);

	if (fd >= 0 && (fcp_sys_fstatx(fd, &st) < 0 || !S_ISREG(st.stx_mode) || st.stx_ino != ino)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* --debug: this rank copies part of another's file. */
static void debug_range(struct fcp_job *job, const struct unit *u)
{
	const struct unit_range *r = &u->h.range;
	char *dir = fcp_path_join(u->s[S_DISP_SRC], u->s[S_REL]);
	char *path = dir ? fcp_path_join(dir, u->names) : NULL;

	pthread_mutex_lock(&job->err_lock);
	fprintf(job->err, "fastcp: debug: '%s': chunks %d to %d of %llu, for rank %d\n",
		path ? path : u->names, r->first + 1, r->end,
		(unsigned long long)((r->size + FCP_CHUNK_SIZE - 1) / FCP_CHUNK_SIZE), r->owner);
	pthread_mutex_unlock(&job->err_lock);
	free(dir);
	free(path);
}

void fcp_dist_chunk_take(struct fcp_job *job, const struct unit *u)
{
	struct fcp_dist_state *ds = job->dist;
	const struct unit_range *r = &u->h.range;
	/* Two names, checked to lie within the message (dist_unit.c). */
	const char *name = u->names, *tmp_name = u->h.count == 2 ? name + strlen(name) + 1 : "";
	struct fcp_chunk_share s = { .name = name, .tmp_name = tmp_name, .src_ino = r->src_ino,
				     .tmp_ino = r->tmp_ino, .size = r->size,
				     .allocated = r->allocated };
	/* -ESTALE until opened: a root that cannot be opened here (reported
	 * once already), or a range that is not the file's. */
	int sdir = -ESTALE, ddir = -ESTALE, in = -ESTALE, out = -ESTALE;
	struct droot *root;
	struct statx st;

	pthread_mutex_lock(&ds->lock);
	root = fcp_dist_root_open(job, u);
	pthread_mutex_unlock(&ds->lock);
	if (root && !root->broken && u->h.count == 2 && r->first >= 0 && r->first < r->end &&
	    (uint64_t)r->end * FCP_CHUNK_SIZE < r->size + FCP_CHUNK_SIZE)
		sdir = fcp_dist_open_rel(root->top.src_fd, u->s[S_REL], u->h.st.stx_ino, &st);
	if (sdir >= 0)
		ddir = fcp_dist_open_rel(root->top.dst_fd, u->s[S_REL], u->h.dst_ino, &st);
	if (sdir >= 0 && ddir >= 0 && (in = open_file(sdir, name, r->src_ino, O_RDONLY)) >= 0)
		out = open_file(ddir, tmp_name, r->tmp_ino, O_WRONLY);
	if (sdir >= 0)
		close(sdir);
	if (ddir >= 0)
		close(ddir);
	if (in >= 0 && out >= 0) {
		if (job->o->debug)
			debug_range(job, u);
		fcp_chunk_take(job, in, out, &s, r->first, r->end, r->owner, r->id);
		return;
	}
	if (in >= 0)
		close(in);
	fcp_dist_chunk_result(job, r->owner, r->id, 0,
			      sdir < 0 ? sdir : ddir < 0 ? ddir : in < 0 ? in : out, (int64_t)r->size);
}

int fcp_dist_results(struct fcp_job *job, int *to, char **buf, size_t *len)
{
	struct fcp_dist_state *ds = job->dist;
	struct range_result *m;

	if (!ds)
		return 0;
	pthread_mutex_lock(&ds->lock);
	if (ds->nresults == 0 || !(m = malloc(sizeof(*m)))) {
		pthread_mutex_unlock(&ds->lock);
		return 0; /* out of memory: sent on a later call */
	}
	*m = ds->results[--ds->nresults];
	pthread_mutex_unlock(&ds->lock);
	*to = m->to;
	*buf = (char *)m;
	*len = sizeof(*m);
	return 1;
}

int fcp_dist_result(struct fcp_job *job, const char *buf, size_t len)
{
	struct fcp_dist_state *ds = job->dist;
	struct range_result m;
	struct fcp_bigfile *b = NULL;

	if (!ds || len != sizeof(m))
		return -EINVAL;
	memcpy(&m, buf, sizeof(m));
	pthread_mutex_lock(&ds->lock);
	for (int i = 0; i < ds->nfiles && !b; i++)
		if (ds->files[i].id == m.id)
			b = ds->files[i].b;
	pthread_mutex_unlock(&ds->lock);
	/* Listed until it lands, and it cannot land before this result. */
	if (!b)
		return -EINVAL;
	fcp_chunk_returned(job, b, m.bytes, m.err, m.eof);
	return 0;
}

void fcp_dist_chunk_free(struct fcp_dist_state *ds)
{
	free(ds->files);
	free(ds->results);
}
