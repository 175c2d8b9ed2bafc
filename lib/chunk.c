/*
 * chunk.c - a large file copied by several workers at once.
 *
 * The file is cut into CHUNK_SIZE pieces, each a work item that any worker
 * may steal; each copies the data extents of its range at their offsets
 * (copy_file_range or pread/pwrite, as the engine table decides), so holes
 * stay holes. The size is set first, so a trailing hole is already right.
 * The worker that lands the last chunk finishes the file through the same
 * fcp_file_finish() as every other file: metadata, rename into place.
 */
#include "dest.h"
#include "engine.h"
#include "entry.h"
#include "sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK_SIZE ((off_t)32 << 20)
#define CHUNK_MIN_FILE (2 * CHUNK_SIZE)

struct fcp_bigfile {
	struct fcp_entry e;     /* with its own copies of the names */
	struct fcp_xfer x;
	struct fcp_hl_entry *hl;
	atomic_int left;        /* chunks not landed yet */
	atomic_int err;         /* first error, 0 if none */
	atomic_llong eof;       /* where the source ended, if early */
	atomic_ullong bytes;
	char tmp[FCP_TMPNAME_MAX];
	char names[];
};

bool fcp_chunk_start(struct fcp_entry *e, const struct fcp_xfer *x, struct fcp_hl_entry *hl,
		     const char *tmp)
{
	const struct fcp_engine *list[3];
	size_t n1 = strlen(e->name) + 1, n2 = strlen(e->dst_name) + 1;
	struct fcp_bigfile *b;
	int chunks;

	if (x->size < CHUNK_MIN_FILE || fcp_sched_threads(e->job) < 2)
		return false;
	/* A clone is one call for the whole file: nothing to share out. */
	fcp_engine_plan(e->job, x->src_dev, x->dst_dev, list);
	if (list[0]->whole_file || fcp_sys_ftruncate(x->out, x->size) < 0)
		return false;
	b = calloc(1, sizeof(*b) + n1 + n2);
	if (!b)
		return false;
	b->e = *e;
	b->e.name = memcpy(b->names, e->name, n1);
	b->e.dst_name = memcpy(b->names + n1, e->dst_name, n2);
	b->x = *x;
	b->hl = hl;
	strcpy(b->tmp, tmp);
	chunks = (int)((x->size + CHUNK_SIZE - 1) / CHUNK_SIZE);
	atomic_init(&b->left, chunks);
	atomic_init(&b->eof, x->size);
	/* The directory stays open until the last chunk lands. */
	atomic_fetch_add(&e->d->pending, 1);
	for (int i = 0; i < chunks; i++) {
		struct fcp_item *it = calloc(1, sizeof(*it));
		if (!it)
			abort(); /* a few bytes per chunk: nothing sane to do without */
		it->kind = FCP_ITEM_CHUNK;
		it->dir = e->d;
		it->ctx = b;
		it->off = i * CHUNK_SIZE;
		it->len = i + 1 < chunks ? CHUNK_SIZE : x->size - it->off;
		fcp_sched_push(e->w, it);
	}
	return true;
}

static void land_last(struct fcp_worker *w, struct fcp_bigfile *b)
{
	struct fcp_dir *d = b->e.d;
	int err = atomic_load(&b->err);
	off_t eof = atomic_load(&b->eof);

	if (!err && eof < b->x.size)
		err = fcp_sys_ftruncate(b->x.out, eof);
	atomic_fetch_add(&b->e.job->c.bytes, atomic_load(&b->bytes));
	b->e.w = w;
	fcp_file_finish(&b->e, b->hl, b->x.out, b->tmp, err, "cannot copy");
	free(b);
	fcp_dir_release(w, d);
}

void fcp_chunk_copy(struct fcp_worker *w, struct fcp_item *it)
{
	struct fcp_bigfile *b = it->ctx;
	struct fcp_xfer x = b->x;
	off_t eof = b->x.size; /* lowered only if the source ends early */

	x.w = w;
	if (!atomic_load(&b->err) && !atomic_load(&b->e.job->stop)) {
		ssize_t r = fcp_data_copy_chunk(&x, it->off, it->off + it->len, &eof);
		int none = 0;

		if (r < 0)
			atomic_compare_exchange_strong(&b->err, &none, (int)r);
		else
			atomic_fetch_add(&b->bytes, (unsigned long long)r);
		for (long long cur = atomic_load(&b->eof); eof < cur &&
		     !atomic_compare_exchange_weak(&b->eof, &cur, eof);)
			;
	} else {
		/* A skipped chunk fails the file, whatever else happened. */
		int none = 0, why = atomic_load(&b->e.job->stop_errno);
		atomic_compare_exchange_strong(&b->err, &none, why ? why : -ECANCELED);
	}
	free(it);
	if (atomic_fetch_sub(&b->left, 1) == 1)
		land_last(w, b);
}
