/*
 * batch_uring.c - small regular files in batches through io_uring.
 *
 * A batch of up to FCP_BATCH_MAX files of one directory goes through these
 * rounds, each one kernel entry for the whole batch unless said otherwise:
 *   1. open every source
 *   2. (statx every opened source by its fd, synchronously: data and
 *      metadata of one inode; the inode is in memory once open, so the
 *      call never waits, while io_uring would always hand a statx to a
 *      worker thread: a thread switch per file for nothing)
 *      (2b. if some are medium files, which are handed back: read-ahead)
 *   3. create every new file (under its final name in a hidden directory,
 *      unnamed in another directory of this job, else under a temporary
 *      name: dest.h) + read every source (the device sees the whole batch
 *      at once: a deep queue on a cold cache)
 *   4. write every copy
 *   5. (metadata, synchronously: io_uring has no chmod/utimes)
 *      close; or link + close, or close + rename, into place (linked);
 *      close the sources
 * Files that need more than this (large, sparse, hard-linked, not regular
 * any more, or an error the synchronous path explains better) are handed
 * back to the caller, which copies them one by one (medium ones from the
 * cache this batch filled for them): there is one pipeline
 * of guarantees, and this is only a faster way through its common case.
 * The ring itself, and the buffers the reads fill, are the engine's
 * (engine_uring.c); this file opens, creates and finishes the files.
 */
#include "config.h"
#include "dest/dest.h"
#include "engine/debug.h"
#include "engine/engine.h"
#include "core/limiter.h"
#include "tree/links.h"
#include "dest/manifest.h"
#include "dest/meta.h"
#include "base/sys.h"
#include "core/observe.h"
#include "policy/plan.h"
#include "engine/verify.h"
#include "core/worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the job's batches learned of the destination, for the batches
 * after them (job->uring, made before the workers start). */
struct fcp_uring_state {
	/* io_uring's LINKAT failed where linkat() works: batches name
	 * their files by rename. */
	atomic_bool link_refused;
};

int fcp_uring_init(struct fcp_job *job)
{
	job->uring = calloc(1, sizeof(*job->uring));
	return job->uring ? 0 : -ENOMEM;
}

void fcp_uring_free(struct fcp_job *job)
{
	free(job->uring);
	job->uring = NULL;
}

#ifdef HAVE_LIBURING
#include <liburing.h>

#define PREFETCH_MAX (64u << 20) /* read-ahead for the files handed back, per batch */

struct small {
	const char *name;
	struct statx st;
	int in, out;
	mode_t mode;             /* created with (fcp_meta_create_mode) */
	int err;                 /* first error, reported by us */
	bool back;               /* hand to the synchronous path */
	ssize_t got;
	char *buf;
	struct fcp_tmp tmp;
	bool linked;             /* unnamed, and linked under its name */
	bool commit_again;       /* closed, but the rename found its name taken */
	bool flags_refused;      /* the rename said it takes no flags here */
	int direct;              /* --verify: 1 read back with O_DIRECT */
	ssize_t vgot;            /* --verify: what the read-back returned */
	bool hashed;             /* --manifest: h is of the bytes written */
	struct fcp_hash h;
	int link_err;            /* why io_uring could not link it */
	struct fcp_hl_entry *hl; /* -L, links kept: its inode's entry (claim) */
	bool ran;                /* its data rounds were run */
	char link_path[32];      /* linkat's old path for an unnamed one */
	unsigned short was;      /* what DEST had there (fcp_plan_batch) */
};

/* Every round fits the ring (engine_uring.c: 4 ops per file of a batch),
 * so an SQE is always there and a linked pair is never split. */
static struct io_uring_sqe *sqe_for(struct io_uring *ring, unsigned idx, unsigned tag)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_sqe_set_data64(sqe, ((uint64_t)tag << 32) | idx);
	return sqe;
}

/* The job whose batch this worker runs: its requests are counted as I/O
 * operations of the summary (set by fcp_uring_batch). */
static _Thread_local struct fcp_job *counted_job;

static void on_cqe(struct small *s, unsigned tag, int res);

/* A completion's data: the op's tag, and its file's index in files. */
static void small_cqe(void *files, uint64_t data, int res)
{
	on_cqe(&((struct small *)files)[(uint32_t)data], (unsigned)(data >> 32), res);
}

static void ring_run(struct io_uring *ring, unsigned expect, struct small *files)
{
	if (counted_job)
		atomic_fetch_add(&counted_job->c.io_ops, expect);
	fcp_uring_wait(ring, expect, small_cqe, files);
}

enum {
	T_OPEN_IN, T_PREFETCH, T_OPEN_OUT, T_READ, T_WRITE, T_CLOSE_OUT, T_RENAME,
	T_LINK, T_CLOSE_IN, T_VERIFY
};

static void on_cqe(struct small *s, unsigned tag, int res)
{
	switch (tag) {
	case T_OPEN_IN:
		s->in = res;
		s->back |= res < 0; /* the synchronous path reports it */
		break;
	case T_PREFETCH: /* a hint: its failure changes nothing */
		break;
	case T_OPEN_OUT:
		s->out = res;
		if (res >= 0)
			break;
		s->tmp.name[0] = 0; /* nothing was created */
		s->tmp.unnamed = false;
		s->tmp.final = NULL;
		/* A name taken by a leftover, or no unnamed files on this
		 * filesystem: the synchronous path finds its way; it also
		 * waits out a shortage of descriptors (sys.c). */
		if (res == -EEXIST || res == -EMFILE || res == -ENFILE ||
		    fcp_dest_unnamed_refused(res))
			s->back = true;
		else
			s->err = res;
		break;
	case T_READ:
		/* A read error is the synchronous path's to retry and explain. */
		s->back |= res < 0;
		s->got = res;
		break;
	case T_WRITE:
		if (res < 0)
			s->err = res;
		else if (res < s->got) /* finished synchronously below */
			s->err = (int)fcp_sys_pwrite_full(s->out, s->buf + res, s->got - res, res);
		if (s->err > 0)
			s->err = 0;
		break;
	case T_CLOSE_OUT:
		if (res == -ECANCELED) /* after a failed link: still open */
			break;
		if (res < 0 && !s->err)
			s->err = res;
		s->out = -1;
		break;
	case T_RENAME:
		/* The name is taken (or the filesystem takes no rename flags):
		 * the synchronous commit looks at what is there first. */
		s->flags_refused = res == -EINVAL || res == -ENOSYS;
		if (res == -EEXIST || s->flags_refused)
			s->commit_again = true;
		else if (res < 0 && !s->err)
			s->err = res == -ENOTEMPTY ? -EISDIR : res;
		break;
	case T_LINK:
		s->linked = res >= 0;
		/* The name was made meanwhile by someone else (EEXIST), or
		 * io_uring refused a link the system call makes: before Linux
		 * 6.6 its LINKAT took no flags (EINVAL), before 6.7 it ignored
		 * AT_EMPTY_PATH (ENOENT). The synchronous path does it the safe
		 * way and explains a real error. */
		if (res < 0) {
			s->back = true;
			s->link_err = res;
		}
		break;
	case T_CLOSE_IN:
		s->in = -1;
		break;
	case T_VERIFY:
		s->vgot = res;
		break;
	}
}

/* Undo the new file of s, if it has one: a name it got too (its close
 * failed after the link) is this job's own, in its own directory. */
static void drop_tmp(struct fcp_worker *w, struct fcp_dir *d, struct small *s)
{
	if (s->linked)
		fcp_dest_discard(fcp_worker_job(w), d, s->name);
	fcp_dest_discard_file(fcp_worker_job(w), d, &s->tmp, s->out);
	s->out = -1;
	s->linked = false;
}

static void fail(struct fcp_worker *w, struct fcp_dir *d, struct small *s, const char *what)
{
	struct fcp_job *job = fcp_worker_job(w);

	drop_tmp(w, d, s);
	/* With --retries, a transient error goes the synchronous way, which
	 * tries it again (limiter.h) and says so. */
	if (job->o->retries && fcp_retry_transient(s->err) && !atomic_load(&job->stop))
		s->back = true;
	else {
		fcp_report_failed_in(job, what, d, s->name, false, s->err);
		if (job->o->move) /* it stays, named once: here */
			fcp_move_failed(job, d->src_fd, s->name);
	}
}

/* Hand a file back to the synchronous path, its temporary file undone. */
static void give_back(struct fcp_worker *w, struct fcp_dir *d, struct small *s)
{
	drop_tmp(w, d, s);
	s->back = true;
}

/* Does this file fit the batch path? Everything else goes back. */
static bool eligible(const struct fcp_job *job, const struct small *s)
{
	const struct statx *st = &s->st;

	if (s->back || !S_ISREG(st->stx_mode) || st->stx_size > FCP_SMALL_MAX)
		return false;
	if ((job->o->preserve & FCP_PRESERVE_LINKS) && st->stx_nlink > 1)
		return false;
	return st->stx_blocks * 512 >= st->stx_size; /* no holes to keep */
}

/* Under -L any file may be reached again through a symlink (links kept):
 * the hard-link map must know it before it is copied, or the other name
 * is copied apart (fcp_entry_links_kept). The first name keeps its place
 * in the batch; one that another name has goes back, to be linked. */
static bool claimed(struct fcp_job *job, struct fcp_dir *d, struct small *s)
{
	if (!(job->o->preserve & FCP_PRESERVE_LINKS) || job->o->symlinks != FCP_SYMLINKS_FOLLOW)
		return true;
	s->hl = fcp_hl_claim_new(job, &s->st, d, s->name);
	return s->hl != NULL;
}

/* A regular file's O_PATH descriptor, opened for reading instead. */
static void reopen_in(const struct fcp_job *job, struct small *s)
{
	int fd = fcp_sys_reopen(s->in, O_RDONLY | O_NONBLOCK | O_NOCTTY |
					       (job->is_root ? O_NOATIME : 0));

	close(s->in);
	s->in = fd;
	s->back |= fd < 0; /* the synchronous path tries and reports it */
}

/* Rounds 1 and 2: open each source with O_PATH, which opens nothing, then
 * stat what was opened, so that data and metadata always come from the
 * same inode; only a regular file is then opened for reading, through that
 * inode (sys.c), and anything else (swapped in since getdents) goes back
 * unopened (eligible()): a FIFO or device is never opened here. */
static void rounds_open(struct io_uring *ring, struct fcp_job *job, struct fcp_dir *d,
			struct small *f, int n)
{
	int nofollow = job->o->symlinks == FCP_SYMLINKS_FOLLOW ? 0 : O_NOFOLLOW;

	for (int i = 0; i < n; i++)
		io_uring_prep_openat(sqe_for(ring, i, T_OPEN_IN), d->src_fd, f[i].name,
				     O_PATH | O_CLOEXEC | nofollow, 0);
	fcp_limit_take(job, 0, n); /* --iolimit: every request counts */
	ring_run(ring, n, f);
	for (int i = 0; i < n; i++) {
		if (f[i].in < 0)
			continue;
		f[i].back |= fcp_sys_statx(f[i].in, "", AT_EMPTY_PATH, STATX_BASIC_STATS,
					   &f[i].st) < 0;
		if (!f[i].back && S_ISREG(f[i].st.stx_mode))
			reopen_in(job, &f[i]);
	}
}

/*
 * Files too big for the arena (but not big enough to be cut in chunks) go
 * back to the synchronous path, which copies them one after another with
 * one read in flight. Ask the kernel to read them all now, in one round:
 * the device sees the whole batch at once, as it does for small files, and
 * the synchronous copies find their data in the cache. Sparse files are
 * left out (their holes would be read as pages of zeros), and so are the
 * files that will be read around the cache (direct.c).
 */
static void round_prefetch(struct io_uring *ring, const struct fcp_job *job, struct small *f,
			   int n)
{
	uint64_t budget = PREFETCH_MAX;
	unsigned k = 0;

	for (int i = 0; i < n; i++) {
		const struct statx *st = &f[i].st;
		if (f[i].in < 0 || !S_ISREG(st->stx_mode) || st->stx_size <= FCP_SMALL_MAX ||
		    st->stx_size > budget || st->stx_blocks * 512 < st->stx_size ||
		    fcp_direct_wanted(job, f[i].in, st->stx_size, st->stx_blocks * 512))
			continue;
		io_uring_prep_fadvise(sqe_for(ring, i, T_PREFETCH), f[i].in, 0,
				      (off_t)st->stx_size, POSIX_FADV_WILLNEED);
		budget -= st->stx_size;
		k++;
	}
	if (k) {
		fcp_limit_take(job, 0, k);
		ring_run(ring, k, f);
	}
}

/*
 * The read of s came back short. That is not the end of the file: a FUSE
 * file in direct_io mode, a network filesystem or a read error at an
 * offset answers with what it has so far. Read the rest of this one file
 * synchronously, up to the byte past its size again. A file that ends
 * before its size shrank since its stat; an error is this file's, and is
 * reported as the synchronous path would.
 */
static void finish_read(struct small *s)
{
	size_t size = s->st.stx_size;
	ssize_t r = fcp_sys_pread_full(s->in, s->buf + s->got, size + 1 - s->got, s->got);

	if (r < 0) {
		s->err = (int)r;
		return;
	}
	s->got += r;
	if ((size_t)s->got < size)
		s->err = FCP_ESHRANK;
}

/* Round 3: create every temporary file and read every source. */
static void round_read(struct fcp_worker *w, struct io_uring *ring, struct fcp_dir *d,
		       struct small *f, int n)
{
	/* Unnamed files need io_uring's LINKAT, unless it refused one. In a
	 * hidden directory every file gets its final name at once (dest.h). */
	struct fcp_job *job = fcp_worker_job(w);
	bool unnamed = !d->hidden && fcp_dest_unnamed_ok(w, d) &&
		       !atomic_load(&job->uring->link_refused);
	uint64_t bytes = 0;

	for (int i = 0; i < n; i++) {
		mode_t mode;
		f[i].mode = fcp_meta_create_mode(fcp_worker_job(w), &f[i].st, d);
		mode = fcp_dest_open_mode(f[i].mode);
		f[i].tmp.unnamed = unnamed;
		f[i].tmp.name[0] = 0;
		f[i].tmp.final = d->hidden ? f[i].name : NULL;
		if (d->hidden) {
			io_uring_prep_openat(sqe_for(ring, i, T_OPEN_OUT), d->dst_fd, f[i].name,
					     fcp_dest_flags(job, FCP_DEST_NAMED_FLAGS) | O_CLOEXEC, mode);
		} else if (unnamed) {
			io_uring_prep_openat(sqe_for(ring, i, T_OPEN_OUT), d->dst_fd, ".",
					     fcp_dest_flags(job, FCP_DEST_UNNAMED_FLAGS) | O_CLOEXEC, mode);
		} else {
			fcp_worker_tmpname(w, fcp_tmpname_dir_key(d), f[i].tmp.name, sizeof(f[i].tmp.name));
			io_uring_prep_openat(sqe_for(ring, i, T_OPEN_OUT), d->dst_fd,
					     f[i].tmp.name,
					     fcp_dest_flags(job, FCP_DEST_NAMED_FLAGS) | O_CLOEXEC, mode);
		}
		/* One byte more than the size: a file that grew since its stat
		 * (or a size-0 file with content, as in procfs) is handed back. */
		io_uring_prep_read(sqe_for(ring, i, T_READ), f[i].in, f[i].buf,
				   f[i].st.stx_size + 1, 0);
		bytes += f[i].st.stx_size;
	}
	fcp_limit_take(job, bytes, 2 * n);
	ring_run(ring, 2 * n, f);
	for (int i = 0; i < n; i++) {
		struct small *s = &f[i];
		if (!s->back && s->err) {
			fail(w, d, s, "cannot create copy of");
			continue;
		}
		if (!s->back && s->got < (ssize_t)s->st.stx_size) {
			finish_read(s);
			if (s->err) {
				fail(w, d, s, "cannot copy");
				continue;
			}
		}
		if (!s->back && s->got > (ssize_t)s->st.stx_size)
			s->back = true;
		if (s->back)
			give_back(w, d, s);
	}
}

/* Round 5 for s, whose data and metadata are written: queue the close and
 * what gives it its name (nothing under its final name already, a link for
 * an unnamed file, else a rename). Returns the entries queued. */
static unsigned queue_commit(struct io_uring *ring, struct fcp_job *job, struct fcp_dir *d,
			     struct small *s, int i)
{
	struct io_uring_sqe *c;

	if (s->tmp.final) {
		/* Under its name already: the close is all. */
		io_uring_prep_close(sqe_for(ring, i, T_CLOSE_OUT), s->out);
		return 1;
	}
	if (s->tmp.unnamed) {
		/* Linked: the close runs only if the link succeeded
		 * (else the file is dropped below). */
		int olddir, flags;
		struct io_uring_sqe *l = sqe_for(ring, i, T_LINK);
		fcp_dest_unnamed_link_args(job, s->out, s->link_path, &olddir, &flags);
		io_uring_prep_linkat(l, olddir, s->link_path, d->dst_fd, s->name, flags);
		io_uring_sqe_set_flags(l, IOSQE_IO_LINK);
		io_uring_prep_close(sqe_for(ring, i, T_CLOSE_OUT), s->out);
		return 2;
	}
	if (!d->no_special && atomic_load(&job->rename_flags_refused)) {
		/* No rename without replacement here: the synchronous
		 * commit looks at the name, then renames. */
		io_uring_prep_close(sqe_for(ring, i, T_CLOSE_OUT), s->out);
		s->commit_again = true;
		return 1;
	}
	/* Linked: the rename runs only if the close succeeded. Plain where
	 * nothing special can be in the way. */
	c = sqe_for(ring, i, T_CLOSE_OUT);
	io_uring_prep_close(c, s->out);
	io_uring_sqe_set_flags(c, IOSQE_IO_LINK);
	io_uring_prep_renameat(sqe_for(ring, i, T_RENAME), d->dst_fd, s->tmp.name, d->dst_fd,
			       s->name, d->no_special ? 0 : RENAME_NOREPLACE);
	return 2;
}

/* After round 5: s is named and counted, handed back, or failed. */
static void finish(struct fcp_worker *w, struct fcp_dir *d, struct small *s)
{
	struct fcp_job *job = fcp_worker_job(w);

	if (s->back) {
		/* The rest of the job names its files the other way. */
		if (s->link_err == -EINVAL || s->link_err == -ENOENT)
			atomic_store(&job->uring->link_refused, true);
		give_back(w, d, s);
		return;
	}
	if (s->flags_refused) /* asked once per job (dest.c) */
		atomic_store(&job->rename_flags_refused, true);
	if (s->commit_again && !s->err &&
	    (s->err = fcp_dest_commit_taken(job, d, s->tmp.name, s->name)) < 0)
		s->tmp.name[0] = 0; /* removed by the commit */
	if (s->err) {
		fail(w, d, s, s->err == -EISDIR ? "cannot overwrite directory with"
						: "cannot write copy of");
		return;
	}
	atomic_fetch_add(&job->c.files, 1);
	atomic_fetch_add(&job->c.bytes, (unsigned long long)s->got);
	if (job->o->debug)
		fcp_debug_item(job, d, s->name, s->name, "io_uring batch (a small file: read "
			       "and written with others of its directory, few system calls)");
	if (s->was)
		atomic_fetch_add(&job->c.replaced, 1);
	fcp_obs_item(job, s->was ? FCP_OBS_UPDATE : FCP_OBS_COPY, S_IFREG, d, s->name, s->name,
		     s->got, "io_uring", s->was & ~FCP_PLAN_WAS);
	fcp_manifest_copied(job, d, s->name, s->hashed ? &s->h : NULL);
	fcp_move_made(job, fcp_statx_dev(&s->st), s->st.stx_ino, d->dst_fd, s->name);
}

/*
 * --verify, between the writes and the metadata: every copy of the round is
 * written back and its cached pages dropped (their write-backs started
 * together), then all of them are read back with O_DIRECT in one round (a
 * deep queue, as for the reads of the sources) and compared byte for byte
 * with the buffer that holds what was read from the source. A copy that
 * cannot be read so, or differs, goes the synchronous way (verify.c: read
 * back again, on a mismatch written once more), which decides.
 */
static void round_verify(struct fcp_worker *w, struct io_uring *ring, struct fcp_dir *d,
			 struct small *f, int n)
{
	char *varena;
	size_t used = 0;
	unsigned k = 0;

	for (int i = 0; i < n; i++)
		if (f[i].out >= 0 && !f[i].err)
			fcp_sys_writeback_start(f[i].out, 0, 0);
	varena = fcp_uring_varena(w);
	for (int i = 0; i < n; i++) {
		struct small *s = &f[i];
		size_t len = ((size_t)s->got + FCP_DIRECT_ALIGN) & ~(size_t)(FCP_DIRECT_ALIGN - 1);

		s->direct = 0;
		if (s->out < 0 || s->err || !varena)
			continue;
		s->direct = fcp_verify_prepare(w, s->out);
		if (s->direct < 0) {
			s->err = s->direct;
			continue;
		}
		if (s->direct == 0)
			continue;
		io_uring_prep_read(sqe_for(ring, i, T_VERIFY), s->out, varena + used, len, 0);
		s->vgot = -1;
		used += len;
		k++;
	}
	fcp_limit_take(fcp_worker_job(w), 0, k);
	ring_run(ring, k, f);
	used = 0;
	for (int i = 0; i < n; i++) {
		struct small *s = &f[i];
		char *back = varena + used;

		if (s->direct == 1) {
			used += ((size_t)s->got + FCP_DIRECT_ALIGN) & ~(size_t)(FCP_DIRECT_ALIGN - 1);
			fcp_sys_set_direct(s->out, false);
			if (s->vgot == s->got && !memcmp(back, s->buf, (size_t)s->got)) {
				fcp_verify_count(fcp_worker_job(w), s->out, (uint64_t)s->got, false);
				continue;
			}
		}
		if (s->out < 0 || s->err)
			continue; /* failed before: reported as a copy error below */
		s->err = fcp_verify_buf(w, d, s->out, s->buf, s->got > 0 ? (size_t)s->got : 0);
		if (s->err)
			fail(w, d, s, "cannot verify copy of"); /* out is -1 now */
	}
}

/* Rounds 3 to 5 for files [0, n) that all have a buffer. */
static void rounds_data(struct fcp_worker *w, struct io_uring *ring, struct fcp_dir *d,
			struct small *f, int n)
{
	struct fcp_job *job = fcp_worker_job(w);
	unsigned k = 0;

	round_read(w, ring, d, f, n);
	for (int i = 0; i < n; i++) {
		if (f[i].out >= 0 && f[i].got > 0) {
			io_uring_prep_write(sqe_for(ring, i, T_WRITE), f[i].out, f[i].buf, f[i].got, 0);
			k++;
		}
	}
	fcp_limit_take(job, 0, k);
	ring_run(ring, k, f);
	/* --manifest: the hash of the bytes written, from the buffer they
	 * were written from (a small file is one window). */
	for (int i = 0; job->man && i < n; i++)
		if ((f[i].hashed = f[i].out >= 0 && !f[i].err && f[i].got >= 0))
			fcp_hash_buf(f[i].buf, (size_t)f[i].got, &f[i].h);
	if (job->o->verify)
		round_verify(w, ring, d, f, n);
	k = 0;
	for (int i = 0; i < n; i++) {
		struct small *s = &f[i];
		if (s->out < 0)
			continue;
		if (s->err) {
			fail(w, d, s, "cannot copy");
			continue;
		}
		s->err = fcp_meta_copy(job, FCP_AT_FD(s->in), FCP_AT_NEW(s->out, d, s->mode), &s->st,
				       d, s->name);
		if (s->err) {
			fail(w, d, s, "cannot read the extended attributes of");
			continue;
		}
		k += queue_commit(ring, job, d, s, i);
		io_uring_prep_close(sqe_for(ring, i, T_CLOSE_IN), s->in);
		k++;
	}
	fcp_limit_take(job, 0, k);
	ring_run(ring, k, f);
	for (int i = 0; i < n; i++)
		if (f[i].tmp.name[0] || f[i].tmp.unnamed || f[i].tmp.final)
			finish(w, d, &f[i]);
}

/*
 * The order of the eligible files' reads, into ord (returned: how many).
 * A round's reads reach the device in the order they are queued (each
 * starts its read-ahead as it is issued), and on a rotational disk that
 * order is the seeks': there it is the order of the files' first extents,
 * which FIEMAP reads from the inode the open brought in (no I/O). The
 * walk's inode order only guesses where the data lies, and guesses wrong
 * where inodes were reused: on an aged XFS, in the seek model of
 * scripts/bench-rotational.sh, this order took 0.76 of inode order's time
 * and less than half its seeks; where the two agree it changes nothing
 * (docs/benchmarks/2026-12-01-rotational-source-modelled.md).
 */
static int order_reads(const struct fcp_dir *d, const struct small *f, int n, int *ord)
{
	bool pick[FCP_BATCH_MAX];
	uint64_t where[FCP_BATCH_MAX] = { 0 };

	for (int i = 0; i < n; i++) {
		pick[i] = !f[i].back;
		if (pick[i] && d->rotational && f[i].st.stx_size > 0)
			fcp_sys_first_extent(f[i].in, &where[i]); /* untouched if unknown */
	}
	return fcp_order_by_place(pick, where, n, ord);
}

int fcp_uring_batch(struct fcp_worker *w, struct fcp_dir *d, const char **names, int n,
		    const unsigned short *was, bool *back, uint64_t *where)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct io_uring *ring = fcp_uring_ring(w);
	char *arena = fcp_uring_arena(w);
	struct small f[FCP_BATCH_MAX];
	int ord[FCP_BATCH_MAX], nord, i = 0, done = 0;

	if (!ring)
		return -ENOSYS;
	counted_job = job;
	memset(f, 0, n * sizeof(f[0]));
	for (int k = 0; k < n; k++) {
		f[k].name = names[k];
		f[k].was = was[k];
		f[k].in = f[k].out = -1;
	}
	rounds_open(ring, job, d, f, n);
	for (int k = 0; k < n; k++)
		f[k].back |= !eligible(job, &f[k]) || !claimed(job, d, &f[k]);
	round_prefetch(ring, job, f, n);
	nord = order_reads(d, f, n, ord);
	/* Groups of eligible files whose data (plus the one byte that tells
	 * a grown file) fits the arena together. */
	while (i < nord) {
		struct small g[FCP_BATCH_MAX];
		int idx[FCP_BATCH_MAX], m = 0;
		size_t used = 0;

		for (; i < nord; i++) {
			struct small *s = &f[ord[i]];
			size_t need = s->st.stx_size + 1;
			if (used + need > FCP_URING_ARENA)
				break;
			g[m] = *s;
			g[m].buf = arena + used;
			used += need;
			idx[m++] = ord[i];
		}
		if (atomic_load(&job->stop)) {
			for (int k = 0; k < m; k++)
				atomic_fetch_add(&job->c.not_copied, 1);
		} else {
			rounds_data(w, ring, d, g, m);
			done += m;
			for (int k = 0; k < m; k++)
				g[k].ran = true;
		}
		for (int k = 0; k < m; k++)
			f[idx[k]] = g[k];
	}
	for (int k = 0; k < n; k++) {
		back[k] = f[k].back;
		/* Copied: its other names (symlinks followed) are linked to it;
		 * not: they, and this one the synchronous way, try again. */
		fcp_hl_done(w, f[k].hl, f[k].ran && !f[k].back && !f[k].err);
		if (f[k].in < 0)
			continue;
		if (back[k] && d->rotational && S_ISREG(f[k].st.stx_mode))
			fcp_sys_first_extent(f[k].in, &where[k]); /* untouched if unknown */
		close(f[k].in);
	}
	return done;
}

#else /* !HAVE_LIBURING */

int fcp_uring_batch(struct fcp_worker *w, struct fcp_dir *d, const char **names, int n,
		    const unsigned short *was, bool *back, uint64_t *where)
{
	return -ENOSYS;
}

#endif
