/*
 * chunk.c - a large file copied by several workers at once.
 *
 * The file is cut into CHUNK_SIZE pieces; each copies the data extents of
 * its range at their offsets (copy_file_range or pread/pwrite, as the
 * engine table decides), so holes stay holes. The size is set first, so a
 * trailing hole is already right.
 *
 * The workers on a file are runners: each takes the next chunk not yet
 * taken until none is left. The worker that opened the file is the first
 * runner; helpers, work items any idle worker may steal, are added only
 * while the job has fewer runners than CPUs: on cached data a copy is CPU
 * work, and more writers than CPUs were measured to cost several times the
 * system time (they contend in the kernel), while on a cold cache a runner
 * per CPU keeps the device as busy as more did (BENCHMARKS.md). Their
 * reads run in parallel, their writes one at a time (struct fcp_xfer).
 * Each chunk written is handed to an idle worker to start its writeback.
 * The last runner out finishes the file through the same fcp_file_finish()
 * as every other file: metadata, rename into place.
 *
 * --resume (resume.c): the chunks a killed run recorded as done are not
 * taken again, and the prefix of chunks done is recorded as it grows,
 * each time after an fdatasync of the file.
 */
#include "tree/chunk.h"
#include "dest/dest.h"
#include "engine/engine.h"
#include "tree/entry.h"
#include "tree/hooks.h"
#include "tree/links.h"
#include "core/node.h"
#include "dest/resume.h"
#include "base/sys.h"
#include "engine/verify.h"
#include "core/worker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK_SIZE FCP_CHUNK_SIZE

/* The job's large files (job->chunk, made before the workers start). */
struct fcp_chunk_state {
	atomic_int runners; /* workers copying chunks right now */
};

int fcp_chunk_init(struct fcp_job *job)
{
	job->chunk = calloc(1, sizeof(*job->chunk));
	return job->chunk ? 0 : -ENOMEM;
}

void fcp_chunk_free(struct fcp_job *job)
{
	free(job->chunk);
	job->chunk = NULL;
}
_Static_assert(FCP_LARGE_MIN >= 2 * CHUNK_SIZE, "a large file has two chunks at least");
_Static_assert(FCP_RESUME_MIN >= FCP_LARGE_MIN, "a resumable file is copied in chunks");

/*
 * --resume records the done prefix once it grew by this many chunks (128
 * MiB): at most that much, and the chunks in flight, is copied again after
 * a crash. Each record costs an fdatasync, but the chunks are already
 * being written back as they are done (push_writeback), so it mostly waits
 * for writes under way; one runner waits, the others copy on. Eight per
 * GiB. Every chunk would be 32 syncs per GiB, each waiting for the device,
 * to save at most 96 MiB of copying on the rare crash.
 */
#define RECORD_EVERY 4
_Static_assert(CHUNK_SIZE == FCP_VERIFY_WINDOW, "--verify, --manifest hash a window per chunk");

struct fcp_bigfile {
	struct fcp_entry e;     /* with its own copies of the names */
	struct fcp_xfer x;
	struct fcp_hl_entry *hl;
	pthread_mutex_t wlock;  /* x.wlock: one runner writes at a time */
	int chunks;
	/* The chunks nobody took yet: [next, end), next in the low 32 bits.
	 * One word, so that a range split off for another rank (the top
	 * of it) can never also be taken here. */
	atomic_ullong span;
	atomic_bool err_remote; /* err came from a range another rank copied */
	int owner;              /* -1; on a rank copying a range for another:
				   that rank, and id, its name for the file */
	uint64_t id;
	atomic_int runners;     /* runners not finished yet */
	atomic_int err;         /* first error, 0 if none */
	atomic_llong eof;       /* where the source ended, if early: it shrank */
	atomic_ullong bytes;
	const struct fcp_engine *_Atomic used; /* an engine that moved data (--debug) */
	atomic_bool ahead;      /* a chunk was read with reads in flight (--debug) */
	struct fcp_tmp tmp;
	/* --resume: per chunk, copied; NULL when nothing is recorded. */
	atomic_bool *done;
	pthread_mutex_t rlock;  /* one runner records at a time */
	int prefix, recorded;   /* under rlock: chunks done from the start,
				   and as many as the record on the file says */
	bool has_record;        /* a record is on the file (found or made) */
	off_t resumed;          /* bytes a killed run copied, not written again */
	struct fcp_vsum sum;    /* --verify, --manifest: window i is chunk i's (verify.h) */
	char names[];
};

static void run(struct fcp_worker *w, struct fcp_bigfile *b);
static void leave(struct fcp_worker *w, struct fcp_bigfile *b);

static unsigned long long span_of(int next, int end)
{
	return (unsigned long long)(unsigned)end << 32 | (unsigned)next;
}

static int span_next(unsigned long long v)
{
	return (int)(v & 0xffffffffu);
}

static int span_end(unsigned long long v)
{
	return (int)(v >> 32);
}

/* The next chunk nobody took, taken; -1 when none is left. */
static int take(struct fcp_bigfile *b)
{
	unsigned long long v = atomic_load(&b->span);

	while (span_next(v) < span_end(v))
		if (atomic_compare_exchange_weak(&b->span, &v, v + 1))
			return span_next(v);
	return -1;
}

static int untaken(struct fcp_bigfile *b)
{
	unsigned long long v = atomic_load(&b->span);

	return span_end(v) - span_next(v);
}

/* Runners for chunks chunks: one per CPU no runner uses yet, within the
 * workers; one at least (the worker that asks). */
static int runners_wanted(struct fcp_job *job, int chunks)
{
	int n = job->cpus - atomic_load(&job->chunk->runners);

	if (n > chunks)
		n = chunks;
	if (n > fcp_sched_threads(job))
		n = fcp_sched_threads(job);
	return n < 1 ? 1 : n;
}

/* --resume: start after the chunks the record found says are done, and
 * record from there on (if the file is to be recorded at all). */
/* --verify or --manifest of a resumed file: nobody in this run read the chunks done
 * before it (they are not copied again), so their source is read now to
 * hash them; an error fails the file. */
static void hash_done(struct fcp_bigfile *b, off_t end)
{
	struct fcp_vstream v;
	size_t cap;
	void *buf = fcp_worker_buf(b->e.w, &cap);
	int err = buf ? 0 : -ENOMEM;

	fcp_vstream_begin(&v, &b->sum, 0);
	for (off_t off = 0; !err && off < end;) {
		ssize_t n = fcp_sys_pread(b->x.in, buf, end - off < (off_t)cap ? end - off : cap, off);

		if (n <= 0)
			err = n < 0 ? (int)n : FCP_ESHRANK;
		else
			fcp_vstream_feed(&v, buf, n, off);
		off += n > 0 ? n : 0;
	}
	if (!err)
		err = fcp_vstream_end(&v, end);
	if (err)
		atomic_store(&b->err, err);
}

static void resume_from(struct fcp_bigfile *b, const struct fcp_resume *rs)
{
	int first = (int)(rs->done / CHUNK_SIZE);

	b->has_record = rs->found;
	if (!rs->record || !(b->done = calloc(b->chunks, sizeof(*b->done))))
		return;
	for (int i = 0; i < first && i < b->chunks; i++)
		atomic_init(&b->done[i], true);
	atomic_init(&b->span, span_of(first, b->chunks));
	b->prefix = b->recorded = first;
	b->resumed = (off_t)first * CHUNK_SIZE;
	pthread_mutex_init(&b->rlock, NULL);
	if (b->e.vsum && first > 0)
		hash_done(b, (off_t)first * CHUNK_SIZE);
}

bool fcp_chunk_start(struct fcp_entry *e, const struct fcp_xfer *x, struct fcp_hl_entry *hl,
		     const struct fcp_tmp *tmp, const struct fcp_resume *rs)
{
	size_t n1 = strlen(e->name) + 1, n2 = strlen(e->dst_name) + 1;
	struct fcp_bigfile *b;
	int helpers;

	/* One worker copies a file whole, except one to record as it goes. */
	if (x->size < FCP_LARGE_MIN || (fcp_sched_threads(e->job) < 2 && !rs) ||
	    fcp_sys_ftruncate(x->out, x->size) < 0)
		return false;
	b = calloc(1, sizeof(*b) + n1 + n2);
	if (!b)
		return false;
	b->e = *e;
	b->e.name = memcpy(b->names, e->name, n1);
	b->e.dst_name = memcpy(b->names + n1, e->dst_name, n2);
	b->x = *x;
	pthread_mutex_init(&b->wlock, NULL);
	b->x.wlock = &b->wlock;
	b->x.direct = fcp_direct_decide(e->job, x->in, (uint64_t)x->size, x->allocated);
	b->hl = hl;
	b->tmp = *tmp;
	if (b->tmp.final) /* the entry's name goes away when it returns */
		b->tmp.final = b->e.dst_name;
	b->chunks = (int)((x->size + CHUNK_SIZE - 1) / CHUNK_SIZE);
	atomic_init(&b->span, span_of(0, b->chunks));
	b->owner = -1;
	b->e.vsum = NULL;
	if (fcp_copy_hashed(e->job)) {
		if (fcp_vsum_init(&b->sum, (uint64_t)x->size) < 0) {
			free(b);
			return false; /* one worker copies it */
		}
		/* Every window is there from the start: runners write only
		 * their own. */
		b->sum.n = b->chunks;
		b->e.vsum = &b->sum;
	}
	atomic_init(&b->eof, x->size);
	if (rs)
		resume_from(b, rs);
	/* This worker is one of the runners; helpers are the rest. */
	helpers = runners_wanted(e->job, untaken(b)) - 1;
	atomic_init(&b->runners, helpers + 1);
	/* The directory stays open until the file lands, its descriptors
	 * too (a nested pin of the caller's, so it cannot fail): the file
	 * in it, under a temporary or a final name, can always be named,
	 * finished or removed. A directory given back and then replaced
	 * could not be re-opened, and the file would be left in it. */
	atomic_fetch_add(&e->d->pending, 1);
	fcp_dir_pin(e->job, e->d);
	for (int i = 0; i < helpers; i++) {
		struct fcp_item *it = calloc(1, sizeof(*it));
		if (!it)
			abort(); /* a few bytes per helper: nothing sane to do without */
		it->kind = FCP_ITEM_CHUNK;
		it->dir = e->d;
		it->ctx = b;
		fcp_sched_push(e->w, it);
	}
	fcp_hook_chunk_add(e->job, b);
	run(e->w, b);
	return true;
}

/* Stopped (a signal, a full destination) with a record on it: the file
 * stays under its name for the next --sync --resume, and the job says
 * where (in a hidden root copy, the copy left is named instead). It
 * failed all the same. */
static void keep(struct fcp_bigfile *b, int err)
{
	struct fcp_entry *e = &b->e;

	fcp_entry_fail(e, "cannot copy", err);
	if (!b->tmp.final) {
		char *p = fcp_dir_dst_path(e->d, b->tmp.name);
		fcp_report_error(e->job, "the copy so far is kept for --sync --resume as", p, 0);
		free(p);
		atomic_fetch_add(&e->job->c.kept, 1);
	}
	close(b->x.out);
	close(e->src_fd);
	fcp_hl_done(e->w, b->hl, false);
}

/* A range copied here for another rank: its result goes back once its
 * data is where the owner sees it. A network filesystem's client writes
 * it out at the close (and reports what failed there); --fsync's sync
 * by the owner would not reach what another client holds. */
static void land_range(struct fcp_bigfile *b)
{
	int err = atomic_load(&b->err), r = 0, c;

	if (!err && b->e.job->o->fsync)
		r = fcp_sys_fdatasync(b->x.out);
	c = fcp_sys_close(b->x.out);
	err = err ? err : r < 0 ? r : c < 0 ? c : 0;
	fcp_hook_chunk_result(b->e.job, b->owner, b->id, atomic_load(&b->bytes), err,
			      atomic_load(&b->eof));
	close(b->x.in);
	pthread_mutex_destroy(&b->wlock);
	free(b);
}

static void land_last(struct fcp_worker *w, struct fcp_bigfile *b)
{
	struct fcp_dir *d = b->e.d;
	int err = atomic_load(&b->err);
	off_t eof = atomic_load(&b->eof);

	if (b->owner >= 0) {
		land_range(b);
		return;
	}
	fcp_hook_chunk_remove(b->e.job, b);

	if (!err && eof < b->x.size)
		err = FCP_ESHRANK;
	/* c.bytes grew as the engines wrote (engine.h). What a killed run
	 * copied is no hole. */
	if (!err && atomic_load(&b->bytes) + b->resumed < (unsigned long long)b->x.size)
		atomic_fetch_add(&b->e.job->c.holes,
				 b->x.size - b->resumed - atomic_load(&b->bytes));
	b->e.engine = "chunks";
	b->e.w = w;
	b->x.used = atomic_load(&b->used);
	b->x.ahead = atomic_load(&b->ahead);
	b->e.xfer = &b->x;
	/* Whole: the record goes before the metadata (and the name). */
	if (!err && b->has_record)
		fcp_resume_forget(b->x.out);
	if (err && b->has_record && atomic_load(&b->e.job->stop))
		keep(b, err);
	else
		fcp_file_finish(&b->e, b->hl, b->x.out, &b->tmp, err,
				atomic_load(&b->err_remote) ? "another rank could not copy its part of"
							    : "cannot copy");
	fcp_vsum_free(&b->sum);
	fcp_dir_unpin(b->e.job, d); /* pinned since fcp_chunk_start() */
	pthread_mutex_destroy(&b->wlock);
	if (b->done)
		pthread_mutex_destroy(&b->rlock);
	free(b->done);
	free(b);
	fcp_dir_release(w, d);
}

/*
 * The chunk just written goes to the device now, by another worker: the
 * device writes while the runners copy, instead of all at the final sync.
 * sync_file_range() waits while it queues that much, so a runner calling
 * it would stop copying (measured 2.5x slower); an idle worker blocks
 * instead. The item holds the file like a runner, so the file lands
 * after its last writeback was queued.
 */
static void push_writeback(struct fcp_worker *w, struct fcp_bigfile *b, int i)
{
	struct fcp_item *it = calloc(1, sizeof(*it));

	if (!it)
		return; /* the final sync writes it instead */
	atomic_fetch_add(&b->runners, 1);
	it->kind = FCP_ITEM_WRITEBACK;
	it->dir = b->e.d;
	it->ctx = b;
	it->count = i;
	fcp_sched_push(w, it);
}

/* A WRITEBACK item: chunk it->count's writeback, or (-1) a range another
 * rank copied came back; either way it leaves the file as a runner. */
void fcp_chunk_writeback(struct fcp_worker *w, struct fcp_item *it)
{
	struct fcp_bigfile *b = it->ctx;
	int i = it->count;

	free(it);
	if (i >= 0 && !atomic_load(&b->err))
		fcp_sys_writeback_start(b->x.out, (off_t)i * CHUNK_SIZE, CHUNK_SIZE);
	leave(w, b);
}

/*
 * --resume: chunk i is copied; record the done prefix if it grew by
 * RECORD_EVERY since the last record. The prefix is read before the
 * fdatasync, so every chunk it names was written before the sync began.
 * A runner that finds another one recording goes on copying; the one
 * recording looks again after each record, since the others copied on
 * meanwhile (a sync writes all that is dirty, so it can last as long as
 * they take for the rest of the file). Not for the whole file: it is
 * finished at once.
 */
static void chunk_done(struct fcp_bigfile *b, int i)
{
	int p, r;

	atomic_store(&b->done[i], true);
	if (pthread_mutex_trylock(&b->rlock))
		return;
	for (;;) {
		for (p = b->prefix; p < b->chunks && atomic_load(&b->done[p]); p++)
			;
		b->prefix = p;
		if (b->recorded < 0 || p == b->chunks || p - b->recorded < RECORD_EVERY ||
		    atomic_load(&b->err))
			break;
		r = fcp_sys_fdatasync(b->x.out);
		if (r == 0)
			r = fcp_resume_save(&b->e, b->x.out, (off_t)p * CHUNK_SIZE);
		b->has_record |= r == 0;
		b->recorded = r == 0 ? p : -1; /* -1: recording failed, no more */
	}
	pthread_mutex_unlock(&b->rlock);
}

/* Copy chunk i of b; a skipped chunk fails the file, whatever else happened. */
static void copy_one(struct fcp_worker *w, struct fcp_bigfile *b, int i)
{
	struct fcp_xfer x = b->x;
	off_t off = (off_t)i * CHUNK_SIZE;
	off_t end = i + 1 < b->chunks ? off + CHUNK_SIZE : b->x.size;
	off_t eof = b->x.size; /* lowered only if the source ends early */
	int none = 0;

	x.w = w;
	if (atomic_load(&b->err) || atomic_load(&b->e.job->stop)) {
		int why = atomic_load(&b->e.job->stop_errno);
		atomic_compare_exchange_strong(&b->err, &none, why ? why : -ECANCELED);
		return;
	}
	struct fcp_vstream v;
	if (b->e.vsum) {
		fcp_vstream_begin(&v, b->e.vsum, (uint64_t)off);
		x.vs = &v;
	}
	ssize_t r = fcp_data_copy_chunk(&x, off, end, &eof);
	if (x.vs) {
		int t = fcp_vstream_end(&v, (uint64_t)end);
		r = r >= 0 && t < 0 ? t : r;
	}
	if (r < 0)
		atomic_compare_exchange_strong(&b->err, &none, (int)r);
	else {
		atomic_fetch_add(&b->bytes, (unsigned long long)r);
	}
	if (r > 0)
		push_writeback(w, b, i);
	if (x.used)
		atomic_store(&b->used, x.used);
	if (x.ahead)
		atomic_store(&b->ahead, true);
	if (r >= 0 && b->done)
		chunk_done(b, i);
	for (long long cur = atomic_load(&b->eof);
	     eof < cur && !atomic_compare_exchange_weak(&b->eof, &cur, eof);)
		;
}

/* Take chunks until none is left; the last runner out lands the file
 * (every chunk taken was copied by a runner before it left). */
static void run(struct fcp_worker *w, struct fcp_bigfile *b)
{
	struct fcp_job *job = b->e.job;
	int i;

	atomic_fetch_add(&job->chunk->runners, 1);
	while ((i = take(b)) >= 0)
		copy_one(w, b, i);
	atomic_fetch_sub(&job->chunk->runners, 1);
	leave(w, b);
}

/* A runner or a writeback leaves the file; the last one lands it. */
static void leave(struct fcp_worker *w, struct fcp_bigfile *b)
{
	if (atomic_fetch_sub(&b->runners, 1) == 1)
		land_last(w, b);
}

void fcp_chunk_copy(struct fcp_worker *w, struct fcp_item *it)
{
	struct fcp_bigfile *b = it->ctx;

	free(it);
	run(w, b);
}

/*
 * Sharing with other ranks (chunk.h). A file is shared only under a name
 * another process can open (not an unnamed O_TMPFILE), and only when
 * nothing is kept per chunk here (--verify's windows, --resume's record).
 * A file copied again after a failure (--retries) stays with its owner:
 * the failure may have been another rank's part, whose view of the file
 * differs, and it would fail there again.
 */
bool fcp_chunk_shareable(struct fcp_bigfile *b, struct fcp_chunk_share *s)
{
	struct statx st;

	if (b->owner >= 0 || b->e.attempt || b->e.vsum || b->done || b->tmp.unnamed ||
	    (!b->tmp.final && !b->tmp.name[0]) || fcp_sys_fstatx(b->x.out, &st) < 0)
		return false;
	*s = (struct fcp_chunk_share){
		.d = b->e.d, .name = b->e.name,
		.tmp_name = b->tmp.final ? b->tmp.final : b->tmp.name,
		.src_ino = b->e.st.stx_ino, .tmp_ino = st.stx_ino,
		.size = (uint64_t)b->x.size, .allocated = b->x.allocated,
	};
	return true;
}

bool fcp_chunk_split(struct fcp_job *job, struct fcp_bigfile *b, int *first, int *end)
{
	unsigned long long v = atomic_load(&b->span);
	int r = atomic_load(&b->runners), k;

	/* Held like a runner first: while a runner of its own is left, the
	 * file cannot land under the range given away. Not for a file that
	 * failed already, nor while the job stops. */
	do {
		if (r == 0 || span_end(v) - span_next(v) < 2 || atomic_load(&b->err) ||
		    atomic_load(&job->stop))
			return false;
	} while (!atomic_compare_exchange_weak(&b->runners, &r, r + 1));
	fcp_sched_hold(job); /* until the range is back */
	do {
		k = (span_end(v) - span_next(v)) / 2;
		if (k < 1)
			break;
	} while (!atomic_compare_exchange_weak(&b->span, &v,
					       span_of(span_next(v), span_end(v) - k)));
	if (k < 1) { /* taken here meanwhile: let go, through a worker */
		fcp_chunk_returned(job, b, 0, 0, b->x.size);
		return false;
	}
	*first = span_end(v) - k;
	*end = span_end(v);
	return true;
}

void fcp_chunk_returned(struct fcp_job *job, struct fcp_bigfile *b, uint64_t bytes, int err,
			int64_t eof)
{
	struct fcp_item *it = calloc(1, sizeof(*it));
	int none = 0;

	if (!it)
		abort(); /* the file would never land: nothing sane to do */
	atomic_fetch_add(&b->bytes, bytes);
	if (err && atomic_compare_exchange_strong(&b->err, &none, err))
		atomic_store(&b->err_remote, true);
	for (long long cur = atomic_load(&b->eof);
	     eof < cur && !atomic_compare_exchange_weak(&b->eof, &cur, eof);)
		;
	it->kind = FCP_ITEM_WRITEBACK;
	it->dir = b->e.d;
	it->ctx = b;
	it->count = -1;
	fcp_sched_push_initial(job, it);
	fcp_sched_unhold(job); /* the item keeps the rank busy now */
}

void fcp_chunk_take(struct fcp_job *job, int in, int out, const struct fcp_chunk_share *s,
		    int first, int end, int owner, uint64_t id)
{
	struct fcp_bigfile *b = calloc(1, sizeof(*b) + 1); /* names: "" */
	int runners;
	struct statx st;

	if (!b) {
		close(in);
		close(out);
		fcp_hook_chunk_result(job, owner, id, 0, -ENOMEM, (int64_t)s->size);
		return;
	}
	b->e.job = job;
	b->e.name = b->e.dst_name = b->names;
	b->x = (struct fcp_xfer){ .in = in, .out = out, .size = (off_t)s->size,
				  .allocated = s->allocated,
				  .direct = fcp_direct_decide(job, in, s->size, s->allocated) };
	if (fcp_sys_fstatx(in, &st) == 0)
		b->x.src_dev = fcp_statx_dev(&st);
	if (fcp_sys_fstatx(out, &st) == 0)
		b->x.dst_dev = fcp_statx_dev(&st);
	pthread_mutex_init(&b->wlock, NULL);
	b->x.wlock = &b->wlock;
	b->chunks = (int)((s->size + CHUNK_SIZE - 1) / CHUNK_SIZE);
	atomic_init(&b->span, span_of(first, end));
	atomic_init(&b->eof, (long long)s->size);
	b->owner = owner;
	b->id = id;
	/* As for a file of its own (one message may carry parts of several
	 * files). */
	runners = runners_wanted(job, end - first);
	atomic_init(&b->runners, runners);
	for (int i = 0; i < runners; i++) {
		struct fcp_item *it = calloc(1, sizeof(*it));
		if (!it)
			abort(); /* as fcp_chunk_start's helpers */
		it->kind = FCP_ITEM_CHUNK;
		it->ctx = b;
		fcp_sched_push_initial(job, it);
	}
}
