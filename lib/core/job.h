/*
 * job.h - the internal model of a copy job, shared by the library modules.
 *
 * A job is a tree of directory nodes (struct fcp_dir) that are "open": both
 * the source and destination directory fds are held while any child is still
 * in flight. Work items (struct fcp_item) name one entry of an open directory.
 * Each directory counts its unfinished children in `pending`; the worker that
 * brings it to zero finishes the directory (its metadata, post-order) and
 * releases one count of the parent. So the walk is streaming: memory holds the
 * frontier, not the tree.
 */
#ifndef FCP_JOB_H
#define FCP_JOB_H

#include "fastcp.h"
#include "core/tmpname.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#define FCP_ENGINE_SLOTS 3

struct fcp_sched;
struct fcp_hlmap;
struct fcp_ddmap;
struct fcp_names;
struct fcp_worker;
struct fcp_dist_state;
struct fcp_hooks;
struct fcp_upcalls;
struct fcp_dist_root;
struct fcp_own;
struct fcp_merge;
struct fcp_dirlinks;
struct fcp_srcmounts;
/* A module's own state, behind one pointer only that module reads: made
 * by its init before the job's workers start, freed by its free. */
struct fcp_meta_state;
struct fcp_uring_state;
struct fcp_chunk_state;
struct fcp_workers_state;
struct fcp_direct_pipe_state;
struct fcp_resume_state;
struct fcp_verify_state;
struct fcp_delete_state;
struct fcp_limit_state;

/* One top-level SOURCE and where it goes. */
struct fcp_root {
	const char *src_arg;    /* as given on the command line */
	char *src_abs;          /* realpath of the source (symlink rewrite) */
	char *dst_abs;          /* absolute destination path of the copy */
	int dst_fd;             /* the copied root directory, open until the job ends */
	atomic_ullong failed;   /* items that failed in this copy */
	char *left;             /* where an unfinished new copy was left (full path) */
	char *name;             /* the copy's name in its destination directory */
	const char *rel_top;    /* the copy's path relative to DEST: its name,
				   or "" when DEST is the copy (manifest keys) */
	uint64_t src_dev, src_ino; /* the source root, as named (its identity in
				   a hidden copy's marker, with src_abs) */
	uint64_t src_fs;        /* its filesystem's statfs f_fsid (else src_dev) */
	struct statx_timestamp src_btime; /* its birth time, where given */
	bool src_dir;           /* it is a directory (its new copy is hidden) */
	bool unmarked;          /* its hidden copy could not be marked (no user
				   xattrs in DEST) */
	bool src_strong;        /* a birth time is given: the identity tells this
				   root from another card's or a recreated one */
	char *held;             /* a hidden copy whose marker matches this root's
				   weak identity: neither taken up nor a second
				   made (leftover.c); its path */
	int adopt_fd;           /* a stopped run's hidden copy of it, locked, to
				   finish (leftover.c), or -1 */
	char *adopt_name;       /* and its temporary name */
	bool adopted;           /* the copy is that one: its files under final
				   names may be a killed run's (resume.c) */
	bool merges;            /* another SOURCE's copy has its name too */
	bool move_rerun;        /* --move of several SOURCEs of its name into
				   a copy a run before left unfinished
				   (FCP_MOVE_MARKER): a file there may be the
				   only copy of another's (fcp_move_keeps) */
	atomic_bool del_held;   /* this run held back deletions in it */
	bool dry_renamed;       /* --dry-run of a --move that would rename it
				   whole: nothing in it would be opened */
	atomic_bool stale;      /* and a name in it that this run could neither
				   confirm nor remove may be that run's partial
				   file (or a rank could not open it at all):
				   the copy keeps its hidden name */
	int id;                 /* its operand's index: one root on every rank */
	struct fcp_dist_root *dist; /* where other ranks open it (dist.c), or NULL */
	char *superseded;       /* a stopped run's hidden copy of it whose name
				   is taken now (its path), to remove once this
				   run copied it whole there (leftover.c) */
	int superseded_fd;      /* that copy, locked meanwhile, or -1 */
};

/* One SOURCE operand as the command line names it, before its copy is a
 * root (operands.h plans them). Here, in the model, since the tree's
 * merges of several SOURCEs (merge.c) read it too. */
struct fcp_operand {
	const char *src;      /* as given on the command line */
	char *name;           /* the copy's name in DEST (malloc'd), NULL if none */
	struct statx st;      /* the source as it will be copied (-L or not) */
	bool stat_ok;         /* st is valid */
	bool repeat;          /* the same source as an earlier operand: skipped */
	int round;            /* after how many earlier operands of this name */
	bool merges;          /* another operand's copy has this name too */
	bool sibling_missing; /* one of those is missing (cannot be stat'ed) */
	bool dst_existed;     /* round > 0: DEST/name existed before the job, */
	struct statx dst_st;  /* as this inode */
};

struct fcp_dir {
	struct fcp_dir *parent;   /* NULL for the pseudo-directory of a root */
	struct fcp_root *root;
	char *name;               /* source name in parent; full path for a root pseudo-dir */
	char *dst_name;           /* destination name in parent (usually == name) */
	int src_fd, dst_fd;
	int depth;                /* 0 for the copied root directory itself */
	uint64_t dst_dev;         /* filesystem of dst_fd */
	uint64_t dst_ino;         /* and its inode */
	_Atomic uint64_t tmp_key; /* 1 << 32 | its key in temporary names,
				     once asked (fcp_tmpname_dir_key), or 0 */
	struct statx_timestamp dst_mtime0; /* its mtime when opened: what the
					      job's own writes in it did not
					      change (plan.c) */
	struct statx st;          /* source metadata, applied when finished */
	atomic_int pending;       /* 1 for its own scan + children in flight */
	bool is_top;              /* pseudo-dir holding a root entry: no metadata */
	bool rotational;          /* the source is on a rotational disk */
	bool gives_acl;           /* new inodes in dst_fd inherit a default ACL */
	bool created;             /* made by this job: new inodes in it get our
				     euid/egid (no setgid directory to inherit from) */
	bool made;                /* made by this job at all (else it was there
				     before, and keeps its mode unless modes are kept) */
	bool hidden;              /* made by this job where nobody sees it yet (in
				     or as a root copy under hidden_name): new
				     files get their final names at once */
	char *hidden_name;        /* a root copy's temporary name in its parent,
				     renamed to dst_name when it is finished */
	bool no_special;          /* read before its children started: no FIFO,
				     device or socket in it to refuse (dest.c) */
	bool failed_meta;
	bool elsewhere;           /* read, tidied and given its metadata by another
				     rank or phase (dist.c): finishing it here only
				     closes it */
	atomic_bool meta_later;   /* work below it went to another rank or phase
				     (dist.c): its metadata waits for them all */
	atomic_bool failed_in;    /* an item in it (or below) failed: its
				     extras are not deleted (--delete) */
	atomic_bool unlisted;     /* its scan failed: the names DEST holds
				     beyond those met are not known to be
				     extras (--check does not call them so) */
	atomic_bool missing_said; /* --check -m: this directory, missing in
				     DEST, was named (check.c) */
	/* -m: its line waits for its finish, where it is known to stay
	 * (FCP_SAY_*, 0: said already or nothing to say); a dry run marks
	 * holds when something would be in its copy then (delete.c). */
	unsigned char said_at_end;
	unsigned char said_chg;   /* what differed in the one DEST had (FCP_CHG_*) */
	atomic_bool holds;
	struct fcp_names *seen;   /* the source names its scan met (--delete) */
	/* --delete: the mount of its copy (delete.c), and where that lies:
	 * nothing is deleted on or below a mount point inside DEST. */
	uint64_t dst_mnt;
	unsigned char dst_mount;  /* FCP_MOUNT_*, 0: not asked yet */
	/* --delete: its copy is, or lies inside, a copy a --move has not
	 * finished (FCP_MOVED_MARKER): 0 no, 1 yes, 2 yes and that run held
	 * deletions back (delete.c). */
	unsigned char moved;
	/* Filters (plan.c): the path below the root copy, where rules look
	 * past the name; the innermost .gitignore list in force. */
	char *rel;
	struct fcp_ignore *ign;
	int own_ign;              /* how many lists at the head of ign are d's
				     own (.gitignore, .git/info/exclude) */
	bool counting;            /* the pre-scan's (progress.c): the filters
				     report nothing there, the copy does */
	/* Descriptors given back while the job is over budget (dirfds.c):
	 * src_fd and dst_fd are -1 then. Both and users are under fd_lock. */
	pthread_mutex_t fd_lock;
	int users;                /* workers using src_fd and dst_fd now */
};

enum { FCP_MOUNT_SAME = 1, FCP_MOUNT_ROOT, FCP_MOUNT_BELOW };
enum { FCP_SAY_MKDIR = 1, FCP_SAY_REPLACED, FCP_SAY_META };

/* A directory that was there before this job: neither made by it nor a
 * top pseudo-directory. */
static inline bool fcp_dir_existed(const struct fcp_dir *d)
{
	return !d->made && !d->is_top;
}


/* ENTRY: one entry of a directory. SCAN: read a directory's names.
 * BATCH: several regular files (by getdents) of one directory, copied
 * together so that one kernel entry can carry many of them (io_uring).
 * CHUNK: a helper that copies chunks of a large file (chunk.c).
 * GIVEN: a SCAN or BATCH given to another rank while queued (dist.c):
 * only its count of dir goes. */
enum fcp_item_kind {
	FCP_ITEM_ENTRY, FCP_ITEM_SCAN, FCP_ITEM_BATCH, FCP_ITEM_CHUNK, FCP_ITEM_WRITEBACK,
	FCP_ITEM_GIVEN, FCP_ITEM_KINDS
};

#define FCP_BATCH_MAX 32

struct fcp_item {
	enum fcp_item_kind kind;
	struct fcp_dir *dir;      /* parent dir (ENTRY) or the dir to scan (SCAN) */
	char *dst_name;           /* NULL = same as name */
	unsigned char d_type;     /* from getdents, DT_UNKNOWN if not known */
	int count;                /* BATCH: number of NUL-separated names;
	                             WRITEBACK: the chunk */
	void *ctx;                /* CHUNK, WRITEBACK: the file in flight;
				     ENTRY: a retry (limiter.h), or NULL */
	char name[];              /* entry name (ENTRY), names (BATCH) */
};

struct fcp_counters {
	atomic_ullong files, dirs, symlinks, specials, hardlinks, bytes, cloned;
	atomic_ullong failed, not_copied, skipped;
	atomic_ullong differs, trusted; /* --check lines; hashes the manifest gave */
	atomic_ullong links_internal, links_external, links_relative, links_absolute;
	atomic_ullong links_rewritten;
	atomic_ullong excluded;      /* left out by a filter (plan.c) */
	atomic_ullong leftovers;     /* of interrupted runs, found (leftover.c) */
	atomic_ullong unchanged, updated, deleted; /* plan.c, delete.c */
	atomic_ullong backed_up;     /* --delete -b: renamed, not deleted (delete.c) */
	/* The summary's rows (stats.c): of those, directories; files whose
	 * data replaced another (-v's "update"); a dry run's would-be copies
	 * (report.c) */
	atomic_ullong unchanged_dirs, updated_dirs, deleted_dirs, replaced;
	atomic_ullong plan_copied, plan_copied_bytes, plan_replaced, plan_replaced_bytes;
	atomic_ullong plan_kind[5];  /* of plan_copied, as fcp_stats's */
	atomic_ullong plan_moved;    /* --move --dry-run: as fcp_stats's */
	atomic_ullong moved;         /* --move: sources renamed or removed (move.c) */
	atomic_ullong not_replaced;  /* -n, -u, -i: files there kept (plan.c) */
	atomic_ullong kept;          /* --resume: stopped files kept to resume (chunk.c) */
	atomic_ullong verified, verified_bytes, verified_cloned; /* --verify (verify.c) */
	atomic_ullong verified_memory; /* of them, read back from tmpfs or ramfs */
	atomic_ullong dedup_files, dedup_bytes, dedup_uncloned; /* --dedup (dedup.c) */
	atomic_ullong in_place_shared; /* --in-place: replaced, not rewritten (file.c) */
	/* For the summary and the status line (observe.h): */
	atomic_ullong cloned_bytes, holes; /* file.c, chunk.c */
	atomic_ullong io_ops;        /* the engines' read/write/copy calls */
	atomic_ullong settled_bytes; /* of files found up to date (plan.c) */
	atomic_ullong warnings[FCP_WARN_KINDS];
};

struct fcp_job {
	/* When it began, by the clock filesystems stamp times with: what was
	 * made before is no part of it, nor of a run that began after it. */
	struct timespec began;
	const struct fcp_options *o;
	FILE *err;
	pthread_mutex_t err_lock;
	struct fcp_counters c;
	atomic_bool stop;            /* destination full: start nothing new */
	atomic_int stop_errno;
	bool is_root;                /* may chown and create devices */
	uint32_t tmp_random;         /* in this job's temporary names (tmpname.h) */
	char tmp_prefix[FCP_TMPNAME_PREFIX]; /* ".fcp-<tmp_random in hex>" */
	uid_t euid;
	gid_t egid;
	struct fcp_meta_state *meta; /* its groups, for owner changes (meta.c) */
	mode_t umask;
	struct fcp_sched *sched;
	struct fcp_hlmap *hl;
	struct fcp_ddmap *dd;        /* --dedup's content map (dedup.c), or NULL */
	struct fcp_move_made *move_made; /* --move: the copies made (move.c), or NULL */
	struct fcp_backups *backups; /* -b: the backup names made (backup.c), or NULL */
	struct fcp_dist_state *dist; /* one of several ranks (dist.c), or NULL */
	const struct fcp_hooks *hooks; /* its calls from the tree (hooks.h), or NULL */
	const struct fcp_upcalls *up; /* the core's calls up (upcalls.h), or NULL */
	unsigned tmp_rank;           /* in every temporary name: the ranks share
					tmp_random */
	/* Engines that answered "not between these filesystems": a key of the
	 * pair of devices is remembered (one atomic word, so it is never half
	 * written) and the next file does not ask again. */
	atomic_ullong refused[FCP_ENGINE_SLOTS];
	atomic_bool uring_ok;        /* io_uring still believed usable */
	bool remote_src;             /* a source is served over a link (device.c):
					batch.c's choice of path */
	atomic_bool uring_used;      /* some batch went through io_uring */
	struct fcp_uring_state *uring; /* what io_uring batches learned
					  (batch_uring.c) */
	atomic_bool rename_flags_refused; /* the destination's rename takes no
					     flags (NFS, 9p, some FUSE): dest.c */
	int cpus;                    /* CPUs this process may run on (its part,
					where ranks of the job share them) */
	atomic_int unnamed;          /* how new files are linked (dest.c) */
	struct fcp_chunk_state *chunk; /* large files' chunks (chunk.c) */
	struct fcp_workers_state *workers; /* what the pool's workers share (worker.c) */
	struct fcp_direct_pipe_state *direct_pipe; /* medium files' pipes (direct_pipe.c) */
	struct fcp_resume_state *resume; /* --resume's records (resume.c) */
	struct fcp_verify_state *verify; /* --verify's read-backs (verify.c) */
	struct fcp_delete_state *del; /* --delete, --max-delete (delete.c) */
	/* Descriptors, budgeted from RLIMIT_NOFILE (dirfds.c): directories
	 * open below the roots (dirfds.c's own); regular files per io_uring
	 * batch (walk.c). */
	struct fcp_dirfds_state *dirfds;
	int batch_max;
	/* Who watches (observe.c, progress.c); NULL: nobody. obs_items: some
	 * observer wants a line per item (paths are made only then). */
	struct fcp_obs *obs;
	bool obs_items;
	struct fcp_status *progress;
	int nerrors;                 /* kept in errors (err_lock) */
	char errors[FCP_ERRORS_KEPT][256];
	struct fcp_manifest *man;    /* --manifest (manifest.c), or NULL */
	struct fcp_own *own;         /* the files the job writes (own.c) */
	struct fcp_dirlinks *dirlinks; /* -K: the SOURCEs a followed symlink
					  must keep out of (dirlink.c), or NULL */
	struct fcp_srcmounts *srcmounts; /* the SOURCEs a mount inside DEST
					    may show (srcmount.c), or NULL */
	struct fcp_merge *merge;     /* --delete: SOURCEs whose copies meet
					(merge.c), or NULL */
	struct fcp_check_links *check_links; /* --check, --sync, -c: hard-link pairs (check.c) */
	bool check_usage;            /* --check of a directory against a
					non-directory: bad usage, exit 2 */
	struct fcp_limit_state *limit; /* --bwlimit, --iolimit buckets (limiter.c) */
};

/* Are symlinks named as SOURCE followed (-L, -H)? */
static inline bool fcp_job_follows_args(const struct fcp_job *job)
{
	return job->o->symlinks == FCP_SYMLINKS_FOLLOW || job->o->deref_args;
}

static inline uint64_t fcp_statx_dev(const struct statx *st)
{
	return ((uint64_t)st->stx_dev_major << 32) | st->stx_dev_minor;
}

static inline bool fcp_statx_same_inode(const struct statx *a, const struct statx *b)
{
	return a->stx_ino == b->stx_ino && fcp_statx_dev(a) == fcp_statx_dev(b);
}

/* Immutable or append-only (chattr +i, +a): the kernel refuses to change
 * it, its metadata or (a directory) its names, also to root (EPERM). */
static inline bool fcp_statx_locked(const struct statx *st)
{
	return (st->stx_attributes & (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND)) != 0;
}

/*
 * Could the file have changed since st was taken without st showing it?
 * A rewrite that keeps the size and puts the mtime back still moves the
 * ctime, which no user can set: that is what makes a recorded hash (the
 * manifest) or a quick check trustworthy. But a timestamp tells nothing
 * within its own tick. A ctime of whole seconds is one of a filesystem
 * that keeps no finer time (FAT and exFAT keep no ctime of their own:
 * theirs is the mtime, which can be put back); and a ctime near ref (when
 * the job began, by CLOCK_REALTIME_COARSE, the clock files are stamped
 * by), or after it, may be shared by a write that comes right after st
 * was read (the kernel's clock advances in ticks of milliseconds). Such
 * a statx is racy: what was read of the file then is not known to be
 * what it holds later. (The mtime alone proves nothing either way: an
 * archive's files have whole-second mtimes on any filesystem.)
 */
#define FCP_RACY_NS 2000000000LL
static inline bool fcp_statx_racy(const struct statx *st, const struct timespec *ref)
{
	int64_t c = (int64_t)st->stx_ctime.tv_sec * 1000000000 + st->stx_ctime.tv_nsec;
	int64_t r = (int64_t)ref->tv_sec * 1000000000 + ref->tv_nsec;

	return !(st->stx_mask & STATX_CTIME) || st->stx_ctime.tv_nsec == 0 ||
	       c >= r - FCP_RACY_NS;
}

/* sched.c: the worker pool: threads workers, grown up to max while they
 * wait rather than work (max == threads: a fixed pool). */
int fcp_sched_create(struct fcp_job *job, int threads, int max);
/* What carries out an item of one kind; it owns the item from then on. */
typedef void fcp_item_fn(struct fcp_worker *w, struct fcp_item *it);
/* Items of kind are given to fn: the module that owns a kind installs it
 * (job.c, at the job's start), and the pool names no kind. */
void fcp_sched_handle(struct fcp_job *job, enum fcp_item_kind kind, fcp_item_fn *fn);
void fcp_sched_push(struct fcp_worker *w, struct fcp_item *it);
/* Push from outside any worker (before the run). */
void fcp_sched_push_initial(struct fcp_job *job, struct fcp_item *it);
/* Push an item that is not to be taken before the monotonic time due
 * (ns, limiter.h); taken at once when the job stops. */
void fcp_sched_push_delayed(struct fcp_worker *w, struct fcp_item *it, long long due);
/* Run the pool until no work is left; returns the number of workers. */
int fcp_sched_run(struct fcp_job *job);
int fcp_sched_threads(const struct fcp_job *job);
/* The pool cannot grow and would: its workers wait rather than work, and
 * CPU is left (a fixed pool: always). */
bool fcp_sched_at_limit(const struct fcp_job *job);
/* Another rank may still give work (dist.c): the run does not end when
 * the queues are empty, only once unheld. */
void fcp_sched_hold(struct fcp_job *job);
void fcp_sched_unhold(struct fcp_job *job);
/* Nothing queued or in work but the hold. */
bool fcp_sched_idle(struct fcp_job *job);
/* Offer queued items of kind, oldest first (the biggest pieces), to fn
 * until it has taken max or says no (false). An item fn takes must be
 * made a GIVEN one by it; it stays queued until a worker drops it. Returns
 * how many were taken. fn runs under a deque's lock. */
int fcp_sched_give(struct fcp_job *job, enum fcp_item_kind kind, int max,
		   bool (*fn)(struct fcp_item *it, void *arg), void *arg);
void fcp_sched_destroy(struct fcp_job *job);
struct fcp_worker *fcp_sched_worker(struct fcp_job *job, int i);

/* walk.c: scan one directory into ENTRY items (a SCAN item, which goes). */
void fcp_walk_item(struct fcp_worker *w, struct fcp_item *it);
/* Release one pending count of d; finishes d (and maybe ancestors) at zero. */
void fcp_dir_release(struct fcp_worker *w, struct fcp_dir *d);
/* Say and count directory d as made, or (one that was there, not
 * compared) as given its metadata, by FCP_SAY_*. */
void fcp_dir_said(struct fcp_job *job, struct fcp_dir *d, unsigned char how);

/* dirfds.c: the descriptors of a directory node, open or given back. */
void fcp_dir_fds_init(struct fcp_job *job, struct fcp_dir *d);
/* Close them for good (the directory is finished). */
void fcp_dir_fds_release(struct fcp_job *job, struct fcp_dir *d);
/* Make d->src_fd and d->dst_fd usable until fcp_dir_unpin(): re-opened
 * (and checked to be the same directories) if they were given back. On
 * failure, reports it with the path, counts one failed item (in the job and
 * in d's root copy) and returns -errno; nothing is pinned then. Pins nest;
 * the caller holds a pending count of d. */
int fcp_dir_pin(struct fcp_job *job, struct fcp_dir *d);
/* Over the budget, ancestors of d nobody works in give theirs back. */
void fcp_dir_unpin(struct fcp_job *job, struct fcp_dir *d);
/* Raise the soft descriptor limit to the hard one and share it out: at most
 * *threads workers (lowered to fit) to start with, growing to *max (lowered
 * to fit), job->batch_max, and the directories' budget (job->dirfds,
 * made here: -ENOMEM; freed by fcp_dirfds_free);
 * dir_roots: the operands that may be directories (root copies hold
 * descriptors until the job ends). */
int fcp_dir_budget(struct fcp_job *job, int *threads, int *max, int dir_roots);
void fcp_dirfds_free(struct fcp_job *job);

/* entry.c: copy one entry of an open directory (ENTRY item). */
void fcp_entry_copy(struct fcp_worker *w, struct fcp_item *it);
/* A name that waited behind another's copy (a hard link, a duplicate)
 * is copied on its own after all, as an ENTRY item: the caller's count on
 * d passes to the item; out of memory, the name fails and the count goes. */
void fcp_entry_requeue(struct fcp_worker *w, struct fcp_dir *d, const char *name,
		       const char *dst_name, unsigned char d_type);
/* The same for an entry named directly; used for what a batch hands back. */
void fcp_entry_copy_name(struct fcp_worker *w, struct fcp_dir *d, const char *name,
			 unsigned char d_type);

/* chunk.c: run a CHUNK helper; the last runner out finishes its file. */
void fcp_chunk_copy(struct fcp_worker *w, struct fcp_item *it);
void fcp_chunk_writeback(struct fcp_worker *w, struct fcp_item *it);

/* batch.c: copy a BATCH item (io_uring where it works, else one by one). */
void fcp_batch_copy(struct fcp_worker *w, struct fcp_item *it);

/* report.c: per-item errors and once-per-kind warnings. */
/* Not an errno: the source ended before the size it had when it was
 * opened. Its copy would be shorter than the file was: a changed source,
 * failed as such. Reported as "file shrank while being copied". */
#define FCP_ESHRANK (-0x10001)
void fcp_report_error(struct fcp_job *job, const char *what, const char *path, int err);
/* A failed item that fastcp would not do: `fastcp: <what> '<path>' with
 * <with>; <advice>`. Counts one failure; the caller then returns
 * FCP_ERR_REFUSED (not an errno), which the failure reports on the way up
 * ignore. */
void fcp_report_refused(struct fcp_job *job, const char *what, const char *path,
			const char *with, const char *advice);
#define FCP_ERR_REFUSED (-0x10002)
/* Not an errno: --verify read the copy back and it differed from what was
 * read from the source, also after a second copy. */
#define FCP_EVERIFY (-0x10003)
void fcp_report_errorf(struct fcp_job *job, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A failure that concerns two paths: "fastcp: WHAT 'a' BETWEEN 'b'"
 * (paths escaped as in fcp_report_error). Counts one failure. */
void fcp_report_failed_pair(struct fcp_job *job, const char *what, const char *a,
			    const char *between, const char *b);
void fcp_report_warn(struct fcp_job *job, enum fcp_warn_kind kind, const char *path, int err);
/* Start nothing new from now on (destination full, interrupted); err says
 * why, and is readable by anyone who sees job->stop. */
void fcp_job_stop(struct fcp_job *job, int err);
/* Whether a signal said key's line: then the end does not say it again. */
bool fcp_signal_said(const void *key);
/* The status line is drawn on stderr (progress.c): a signal's line first
 * clears it, so that the line is not glued onto the status line. */
void fcp_signal_bar(bool on);
/* An item failed with err. ENOSPC, EDQUOT and EROFS stop new items; the
 * first is reported and counted as failed, the same errno again only
 * counted as not copied. */
void fcp_report_failed(struct fcp_job *job, const char *what, const char *path, int err);
/* Something of this job is left at name in d (NULL: d itself), under
 * its copy's path: always reported, counted as failed. */
void fcp_report_leftover_in(struct fcp_job *job, const char *what, const struct fcp_dir *d,
			    const char *name, int err);
/* The same for entry name of d (NULL: d itself), named by its source path,
 * or by its copy's path when dst (where the obstacle is). */
void fcp_report_failed_in(struct fcp_job *job, const char *what, const struct fcp_dir *d,
			  const char *name, bool dst, int err);

/* "deletions held back in 'path': why" (--delete). */
void fcp_report_held(struct fcp_job *job, const char *path, const char *why);
/* "not checked: what 'path' holds beyond ...: why" (--check). */
void fcp_report_unchecked(struct fcp_job *job, const char *path, const char *why);

/* A --dry-run line on the job's output: "VERB 'path'". */
void fcp_report_plan(struct fcp_job *job, const char *verb, const char *path);
/* The same for an item of type mode and size bytes (a regular file's),
 * which differs from what DEST holds by changes (FCP_CHG_*, observe.h):
 * --itemize-changes' form, and the dry run's closing line. */
void fcp_report_plan_item(struct fcp_job *job, const char *verb, mode_t mode, const char *path,
			  uint64_t bytes, unsigned changes);
/* A --check line whose event carries the two exact mtimes (observe.h). */
void fcp_report_plan_times(struct fcp_job *job, const char *verb, const char *path,
			   const char *const times[2]);

/* Name a leftover of an interrupted run (a hidden root copy when dir,
 * of the source path of, when its marker says; taken: the name it was
 * to get exists now); sure: fastcp made it there, else it only has the
 * name of one (a user's file, a copy of a leftover made elsewhere). */
void fcp_report_leftover(struct fcp_job *job, const char *path, bool dir, const char *of,
			 bool taken, bool sure);

/* Name a finished root copy that lost its name to another run (of: its
 * source, when its marker says). */
void fcp_report_lost_name(struct fcp_job *job, const char *path, const char *of);

/* leftover.c: name the leftovers of interrupted runs in d's destination
 * directory; by full path in abs_dir when given, else as d's names.
 * Temporary files that fastcp made (fcp_leftover_mine) and the source
 * lacks are removed instead (others of that shape are a user's as far as
 * anyone can tell: with --sync --delete, delete.c judges them as any
 * other name the source lacks), and a killed
 * run's hidden copy for one of roots[0..n) is kept for it to finish
 * (root->adopt_fd) instead of being named. Returns whether the directory
 * may hold a FIFO, device or socket (one seen, a type unknown, or not
 * read): false lets commits rename plainly. */
bool fcp_leftover_scan(struct fcp_job *job, const struct fcp_dir *d, const char *abs_dir,
		       struct fcp_root **roots, int n);

/* leftover.c: is name in dirfd provably a file fastcp made there: this
 * job's temporary name, a temporary name that carries the tag of that
 * directory (tmpname.h), or a resumable file with its record? Only such
 * a name is the leftover scan's; a user's file that merely has the shape
 * (a copy of a leftover made elsewhere, say) is an ordinary entry. */
bool fcp_leftover_mine(const struct fcp_job *job, int dirfd, const char *name);

/* leftover.c: an item of d (name; NULL: d itself) failed in a stopped
 * run's hidden copy taken up: what that run left at its name may be
 * partial, so it goes, as a new copy would lack it; where it cannot (or
 * d's own names are not known), the copy is stale and keeps its hidden
 * name. Reached from report.c through the job's upcalls. */
void fcp_leftover_drop_unconfirmed(struct fcp_job *job, struct fcp_dir *d, const char *name);

/* leftover.c: at the job's end, remove root's superseded hidden copy (the
 * scan found it in top's directory) if this run copied the root whole into
 * its name; else name it as a leftover. Releases it either way. */
void fcp_leftover_superseded(struct fcp_job *job, struct fcp_dir *top, struct fcp_root *root,
			     bool whole);

/* move.c (--move). Rename src (sst) to name in dirfd pfd where one
 * filesystem holds both, over what is there (dstx, or NULL) only as mv
 * would; true when it is moved, false for the copy to do it. The would
 * form, for --dry-run: would it be, as far as can be told unwritten? */
bool fcp_move_would_rename(struct fcp_job *job, const char *src, const struct statx *sst,
			   int pfd, const char *name, const struct statx *dstx);
bool fcp_move_rename(struct fcp_job *job, const char *src, const struct statx *sst, int pfd,
		     const char *name, const struct statx *dstx);
/* After the copy: remove what of src has its whole copy at dname in
 * ddir, each copy made durable first; name what stays. */
void fcp_move_prune(struct fcp_job *job, const char *src, int ddir, const char *dname);
/* Before a --move removes a source of root, a directory: mark its copy
 * (FCP_MOVED_MARKER), durably. False after naming why it cannot be, where
 * the job deletes extras: the sources then stay. */
bool fcp_move_mark_moved(struct fcp_job *job, struct fcp_root *root, const char *src);
/* The FCP_MOVED_MARKER of the directory fd, its own (the key matches): 0
 * none, 1 a move not finished, 2 and it held deletions back. */
unsigned char fcp_move_moved_at(int fd);
/* A dry run under --move: the source name of d (of type mode), whose
 * copy would not be made (kept by -n, -u or -i), would stay where it is:
 * said as the run says it. (One whose copy would fail is named once, by
 * its failure, as in the run.) */
void fcp_move_dry_kept(struct fcp_job *job, const struct fcp_dir *d, const char *name,
		       const char *dst_name, mode_t mode);
/* The option that cannot go with --move (it makes no copy of the data
 * before the source would go), or NULL. */
const char *fcp_move_conflict(const struct fcp_options *o);
/* An entry of directory fd dirfd that a filter left out of a --move: it
 * stays in the source, and the directories that hold it with it. */
void fcp_move_left_out(struct fcp_job *job, int dirfd, const char *name);
/* Said after "'A' and 'B' are the same file" (or directory) where A and B
 * are one inode seen through two mounts of its filesystem (the disk
 * mounted twice, a bind mount): nothing in the two paths tells why. */
#define FCP_TWO_MOUNTS ", seen through two mounts of one filesystem"
#define FCP_TWO_MOUNTS_WHY FCP_TWO_MOUNTS ": the copy would land on its own source"
/* The entry name of directory fd dirfd whose copy failed (the caller
 * said so and counted it): it stays in the source, with the directories
 * that hold it, and the prune does not name it (nor count it) again. */
void fcp_move_failed(struct fcp_job *job, int dirfd, const char *name);
/* The source entry st whose copy is not whole (its metadata could not be
 * read; the failure is said by the caller): it stays in the source, and
 * the directories that hold it with it. */
void fcp_move_keep(struct fcp_job *job, const struct statx *st);
/* The record of the copies made, under --move (0, or -ENOMEM). */
int fcp_move_init(struct fcp_job *job);
void fcp_move_free(struct fcp_job *job);
/* A regular file's copy is named name in dirfd: this run wrote or cloned
 * its data from the source inode (src_dev, src_ino). Only such a source
 * (or one of fcp_move_found) is removed by the prune, and only where no
 * other source's data went into that inode after it. */
void fcp_move_made(struct fcp_job *job, uint64_t src_dev, uint64_t src_ino, int dirfd,
		   const char *name);
/* The same for a copy whose data this run did not write: the file there
 * compared equal, or a link to such a copy. */
void fcp_move_found(struct fcp_job *job, uint64_t src_dev, uint64_t src_ino, int dirfd,
		    const char *name);
/* Did this run write the data of the file dst (fcp_move_made)? */
bool fcp_move_wrote(struct fcp_job *job, const struct statx *dst);
/* -K: the copy of a source directory went into the directory fd, reached
 * through a symlink in DEST (dirlink.h). The prune follows only such a
 * symlink, to find the copies inside. */
void fcp_move_followed(struct fcp_job *job, int fd);

/* The marker xattr of a hidden root copy: its final name and its source
 * root's identity (fcp_root_marker). */
#define FCP_ROOT_MARKER "user.fastcp.root"
/* --move: the same identity on a root copy whose source is not all
 * removed yet, so that the same command finds the copy again. */
#define FCP_MOVE_MARKER "user.fastcp.move"
/* --move: on a root copy before the first of its sources is removed, until
 * they all are: what that copy holds and the source lacks may be what the
 * move took from the source, and no later --delete may take it for an
 * extra (fcp_move_mark_moved). Its value: the copy's own key (tmpname.h),
 * then "h" where that run held back deletions of its own. */
#define FCP_MOVED_MARKER "user.fastcp.moved"
/* --in-place: on a file while it is rewritten, taken off once it is
 * whole; one found says a killed run left it half written (plan.c). */
#define FCP_INPLACE_MARKER "user.fastcp.inplace"

/* The marker of a root copy that was finished but could not get its name
 * (another run took it meanwhile): the same value as FCP_ROOT_MARKER. */
#define FCP_DONE_MARKER "user.fastcp.done"

/* The value of a root's marker on the directory dirfd (dest.c): with_name,
 * its final name and a NUL first; then "key:fs:ino:btime:path": the
 * directory's own key (tmpname.h: a copy of the directory elsewhere does
 * not match; with a "d" after it where the marking run deletes: only a run
 * that deletes too goes on into a copy so marked, and only such a run's
 * copy is gone on into by one that deletes), and its source root's
 * identity (btime "-" where the filesystem gives none). malloc'd, *len
 * set; NULL out of memory. */
char *fcp_root_marker(const struct fcp_root *root, bool with_name, int dirfd, bool deletes,
		      size_t *len);
/* Fill root's source identity from src (statted as st, with sflags). */
void fcp_root_identify(struct fcp_root *root, const char *src, int sflags,
		       const struct statx *st);

/* Say that the unfinished copy of src was left under its temporary name,
 * root->left (a full path): the job was stopped, or (--atomic) failed
 * items of it were counted, or it is stale. */
void fcp_report_left(struct fcp_job *job, const char *src, const struct fcp_root *root);
/* Say that the new copy of src got its name, name in d, without the
 * failed items of it (named before). */
void fcp_report_named_partial(struct fcp_job *job, const char *src, const struct fcp_dir *d,
			      const char *name, unsigned long long failed);

const char *fcp_warn_kind_name(enum fcp_warn_kind kind);

/* What a file of mode's type is called in messages: "a FIFO", or with
 * cp_words cp's bare words ("cannot create regular file"), which call
 * every other type a special file. */
const char *fcp_file_kind_name(mode_t mode, bool cp_words);

#endif
