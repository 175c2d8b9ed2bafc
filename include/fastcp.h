/*
 * fastcp.h - the one public header of libfastcp.
 *
 * A copy job is described by struct fcp_options, run by fcp_job_run(), and
 * summarised in struct fcp_stats. Programs (fastcp, fastcp-bench) parse their
 * command line into these structures and call the library; nothing else.
 *
 * Exit status convention shared by every program:
 *   FCP_EXIT_OK (0)     everything was copied
 *   FCP_EXIT_PARTIAL (1) some items failed (each reported with its path)
 *   FCP_EXIT_USAGE (2)  bad command line, nothing was done
 * --check: 0 the trees are equal, 1 they differ (or an item could not be
 * read), 2 bad usage.
 */
#ifndef FASTCP_H
#define FASTCP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FCP_EXIT_OK 0
#define FCP_EXIT_PARTIAL 1
#define FCP_EXIT_USAGE 2

enum fcp_reflink { FCP_REFLINK_AUTO, FCP_REFLINK_ALWAYS, FCP_REFLINK_NEVER };
/* Reading medium files with O_DIRECT: when none of the file is cached. */
enum fcp_direct_read { FCP_DIRECT_AUTO, FCP_DIRECT_ALWAYS, FCP_DIRECT_NEVER };
/* --progress: auto is the bar when stderr is a terminal, else none;
 * plain writes a full line every few seconds (for logs). */
enum fcp_progress { FCP_PROGRESS_AUTO, FCP_PROGRESS_BAR, FCP_PROGRESS_PLAIN, FCP_PROGRESS_NONE };

/* --dedup: files of one content written once, the others cloned from
 * that first copy or made hard links to it (lib/tree/dedup.c). */
enum fcp_dedup { FCP_DEDUP_OFF, FCP_DEDUP_REFLINK, FCP_DEDUP_HARDLINK };

/* What to do with a symlink found in the tree (and with symlink arguments). */
enum fcp_symlinks {
	FCP_SYMLINKS_KEEP,    /* copy the link itself (-P, default) */
	FCP_SYMLINKS_FOLLOW,  /* copy what it points to (-L); loops are detected */
	FCP_SYMLINKS_REWRITE, /* keep, but re-point absolute in-tree targets */
	FCP_SYMLINKS_SKIP,    /* leave symlinks out */
};

/* cp's --update: which copies already at the destination are replaced. */
enum fcp_update { FCP_UPDATE_ALL, FCP_UPDATE_NONE, FCP_UPDATE_OLDER };
/* cp's --backup: what a replaced destination file is renamed to first. */
enum fcp_backup { FCP_BACKUP_NONE, FCP_BACKUP_SIMPLE, FCP_BACKUP_EXISTING,
		  FCP_BACKUP_NUMBERED };
/* cp's --sparse: holes kept as found (auto), also made of zero blocks
 * (always), or none (never). */
enum fcp_sparse { FCP_SPARSE_AUTO, FCP_SPARSE_ALWAYS, FCP_SPARSE_NEVER };
/* What a non-directory's copy is: its data, or a link to the source. */
enum fcp_make { FCP_MAKE_COPY, FCP_MAKE_HARDLINK, FCP_MAKE_SYMLINK };
/* -f and --remove-destination change nothing in how a file is replaced
 * (always by a rename); they only let a copy onto its own inode go on. */
enum { FCP_FORCE = 1, FCP_FORCE_REMOVE = 2 };

/* Parts of the metadata kept by archive mode; --no-preserve clears bits. */
enum {
	FCP_PRESERVE_MODE = 1 << 0,
	FCP_PRESERVE_OWNER = 1 << 1,
	FCP_PRESERVE_TIMES = 1 << 2,
	FCP_PRESERVE_XATTR = 1 << 3, /* all xattrs, POSIX ACLs and labels */
	FCP_PRESERVE_LINKS = 1 << 4, /* hard links within the copied set */
	FCP_PRESERVE_CONTEXT = 1 << 5, /* the SELinux label (security.selinux);
					  cleared by -Z: the copy gets its place's */
	FCP_PRESERVE_ALL = 0x3f,
};

struct fcp_options {
	int threads;            /* worker threads; 0 = default */
	enum fcp_reflink reflink;
	enum fcp_symlinks symlinks;
	unsigned preserve;      /* FCP_PRESERVE_* bits */
	bool no_target_dir;     /* -T: DEST is the copy itself */
	bool fsync;             /* make each file and directory durable */
	bool no_io_uring;       /* force the synchronous small-file path */
	enum fcp_direct_read direct_read;
	bool recursive;         /* accepted for cp habit; always on */
	/* Choosing what to copy (lib/base/filter.c matches, lib/policy/plan.c decides): */
	struct fcp_filter *filter; /* --exclude/--include rules, or NULL */
	bool gitignore;         /* honour .gitignore files as git does */
	bool exclude_caches;    /* skip directories with a CACHEDIR.TAG */
	bool one_file_system;   /* -x: mount points copied empty */
	bool delete_excluded;   /* --delete takes excluded entries too */
	bool prune_empty_dirs;  /* -m: a directory left empty (filtered out, or
				   empty in the source) is not kept in the copy
				   (lib/tree/delete.c, at its finish) */
	long long min_size;     /* regular files smaller are left out; 0 */
	long long max_size;     /* larger; -1 = no bound */
	long long newer_than;   /* mtime (ns since the epoch) at or before it:
				   left out; LLONG_MIN = no bound */
	long long older_than;   /* at or after it; LLONG_MAX = no bound */
	int verbose;            /* -v: each item on stdout, and the summary */
	bool itemize;           /* --itemize-changes: -v's lines as rsync -i's */
	FILE *err;              /* where per-item errors go; NULL = stderr */
	/* Copying again (lib/policy/plan.c decides per entry): */
	bool sync;              /* -u: an up-to-date copy (type, size, mtime)
				   is skipped, its metadata brought up to date */
	bool checksum;          /* -c: the same, deciding data by content */
	bool size_only;         /* --size-only: with --sync, a regular file of
				   the same size is up to date, whatever its
				   mtime (its metadata is brought up to date) */
	bool check;             /* --check: compare each SOURCE with its copy
				   (content by XXH3-128, metadata), one line per
				   difference on out; nothing is written
				   (lib/policy/check.c) */
	const char *manifest;   /* --manifest FILE: SQLite record of the files
				   copied, checked or hashed (lib/dest/manifest.c) */
	bool dry_run;           /* say what would be done, change nothing */
	bool delete_extra;      /* --delete: remove what the source lacks */
	long long max_delete;   /* deletions allowed; -1 = no limit */
	bool move;              /* --move: rename, or copy durably (as --sync
				   --fsync) and then remove each source item
				   whose copy is in place (lib/dest/move.c) */
	bool atomic;            /* --atomic: a new root copy with a failed item
				   keeps its hidden name (all or nothing) */
	bool resume;            /* --resume: files from 1 GiB record their
				   durable part; a killed run's is finished
				   from there (lib/dest/resume.c) */
	FILE *out;              /* where --dry-run lines go; NULL = stdout */
	/* cp's own options (issue 20); what exists is decided in lib/policy/plan.c: */
	enum fcp_update update; /* -n (none), -u (older); default all */
	bool ignore_existing;   /* (the command line's --ignore-existing: -n
				   by rsync's name, which may go with --delete) */
	bool interactive;       /* -i: ask on stderr before replacing a file */
	enum fcp_backup backup; /* --backup: keep each replaced file */
	const char *backup_suffix; /* -S: "~" by default */
	bool target_directory;  /* -t: DEST must be a directory to copy into */
	const char *target;     /* (the command line's -t DIR) */
	bool strip_slashes;     /* (the command line's --strip-trailing-slashes) */
	bool parents;           /* --parents: DEST/SOURCE's whole path */
	bool deref_args;        /* -H: follow symlinks named as SOURCE */
	enum fcp_make make;     /* -l, -s: link non-directories instead */
	bool attributes_only;   /* copy no data, only the metadata */
	enum fcp_sparse sparse; /* --sparse: where the copy has holes */
	bool debug;             /* say which engine copied each file, and why */
	bool copy_contents;     /* FIFOs and devices read as files' data */
	bool in_place;          /* rewrite a regular file there, its inode */
	bool keep_dirlinks;     /* --keep-directory-symlink, -K: a symlink in
				   DEST to a directory, where SOURCE has a
				   directory, is copied into (lib/tree/dirlink.h) */
	unsigned char force;    /* FCP_FORCE (-f), FCP_FORCE_REMOVE
				   (--remove-destination): job.c */
	/* What a person or a program sees (lib/face/progress.c, lib/core/observe.c): */
	enum fcp_progress progress; /* the status line on stderr */
	bool quiet;             /* -q: no summary */
	bool stats;             /* --stats: the summary also when stderr is
				   no terminal (as -v) */
	bool json;              /* --json: the summary as JSON on stdout */
	const char *events;     /* --events FILE ("-": stdout): NDJSON */
	const char *log;        /* --log FILE: one line per item */
	bool verify;            /* read each copied file back from storage and
				   compare its XXH3-128 with the source's
				   (lib/engine/verify.h); named only if equal */
	enum fcp_dedup dedup;   /* --dedup=off|reflink|hardlink */
	/* Retries and rate limits (lib/core/limiter.c): */
	int retries;            /* a file failed by a transient error (EIO,
				   EAGAIN, ...) is copied again, this many times */
	double retry_wait;      /* seconds before each retry (default 1) */
	uint64_t bwlimit;       /* bytes read from sources per second; 0 none */
	uint64_t iolimit;       /* I/O operations per second; 0 none */
	/* One copy made by several processes (fastcp-mpi), or NULL: this
	 * process alone (below). */
	const struct fcp_dist *dist;
	int cpu_share;          /* processes of the job that share this one's
				   CPUs (its ranks on one node): without -j,
				   each starts that share of the workers; 0, 1:
				   alone */
};

struct fcp_filter;

/* Kinds of metadata that may not fit the destination: warned once each. */
enum fcp_warn_kind {
	FCP_WARN_OWNER,
	FCP_WARN_XATTR,
	FCP_WARN_ACL,
	FCP_WARN_LABEL,
	FCP_WARN_TIMES,
	FCP_WARN_MODE,
	FCP_WARN_KINDS,
};

#define FCP_LEFTOVERS_NAMED 10
#define FCP_ERRORS_KEPT 5      /* errors repeated by the summary */

struct fcp_stats {
	uint64_t files, dirs, symlinks, specials, hardlinks;
	uint64_t bytes;          /* data bytes written (holes excluded) */
	uint64_t cloned_files;   /* files copied by reflink */
	uint64_t failed;         /* items reported as failed */
	uint64_t excluded;       /* entries left out by a filter (an excluded
				    directory counts once) */
	uint64_t not_copied;     /* items never started (stopped on ENOSPC) */
	uint64_t skipped;        /* items left out by policy */
	uint64_t differences;    /* --check: lines of differences printed */
	uint64_t hashed_trusted; /* files whose hash the manifest gave, unread */
	uint64_t uncompared;     /* --check --manifest FILE DEST: files with no
				    hash recorded, so not compared */
	bool check;              /* the counts are a --check's */
	uint64_t leftovers;      /* of interrupted runs, found (the first
				    FCP_LEFTOVERS_NAMED named), none removed */
	uint64_t unchanged;      /* entries already up to date (--sync) */
	uint64_t updated;        /* entries whose metadata alone was updated */
	uint64_t deleted;        /* destination entries removed (--delete) */
	uint64_t backed_up;      /* --delete -b: non-directories renamed to
				    their backup names instead (not in deleted) */
	uint64_t moved;          /* sources renamed or removed after their copy */
	uint64_t not_replaced;   /* files already there, kept (-n, -u, -i) */
	/* The summary's table (fcp_stats_print_table): of unchanged, updated
	 * and deleted, the directories (counted in those too); of files, those whose data replaced
	 * another's; the bytes of files found up to date; and what a dry run
	 * would copy anew (with their data) and replace. */
	uint64_t unchanged_dirs, updated_dirs, deleted_dirs, replaced, bytes_skipped;
	uint64_t plan_copied, plan_copied_bytes, plan_replaced, plan_replaced_bytes;
	/* of plan_copied: files, directories, symlinks, hard links, others */
	uint64_t plan_kind[5];
	/* --move --dry-run: the entries (not directories) it would take out of
	 * SOURCE: copied, replaced or found in place */
	uint64_t plan_moved;
	bool delete_asked;       /* --delete: DEST was searched for extras */
	uint64_t verified_files, verified_bytes; /* --verify: read back, equal */
	uint64_t verified_cloned; /* of which clones (shared extents re-read) */
	uint64_t verified_memory; /* of which read back from memory: on tmpfs or
				     ramfs, which have no storage behind them */
	uint64_t dedup_files, dedup_bytes; /* --dedup: duplicates cloned or
				    linked, and the data they did not write */
	uint64_t dedup_uncloned; /* duplicates copied: the destination cannot clone */
	uint64_t in_place_shared; /* --in-place: files with other names replaced, not rewritten */
	enum fcp_dedup dedup;    /* the job's --dedup */
	bool dry_run;            /* the counts say what would have been done */
	uint64_t left_hidden;    /* unfinished new root copies (and, with
				    --resume, large files) left under a
				    temporary name (each reported with its path) */
	uint64_t links_internal, links_external, links_relative, links_absolute;
	uint64_t links_rewritten;
	uint64_t warnings[FCP_WARN_KINDS];
	/* The counters copiers are compared by (lib/core/stats.c): */
	uint64_t bytes_cloned;   /* of bytes, shared by reflink */
	uint64_t bytes_holes;    /* holes of sparse files, not written */
	uint64_t io_ops;         /* read, write, copy_file_range, clone calls
				    and io_uring requests the engines issued */
	double cpu_user, cpu_system; /* seconds (getrusage) */
	long max_rss_kb;         /* peak memory */
	char errors[FCP_ERRORS_KEPT][256]; /* the first error messages */
	double seconds;
	int threads;             /* workers actually used */
	int signal;              /* the signal that stopped the job, or 0 */
	bool in_place;           /* files were rewritten in place (--in-place):
				    one the signal cut is left half written */
	const char *io_path;     /* "io_uring" or "sync" */
};

/* Fill *o with the defaults: archive mode, reflink auto, symlinks kept. */
void fcp_options_init(struct fcp_options *o);

/* Does o leave anything out (a filter option)? */
bool fcp_options_filter(const struct fcp_options *o);

/* Free what parsing the command line allocated in *o (filter rules). */
void fcp_options_release(struct fcp_options *o);

/*
 * Parse a cp-style command line. On success returns 0 and sets *srcs (into
 * argv) and *nsrc, *dst. Returns FCP_EXIT_USAGE after printing a message for
 * bad usage, or -1 when --help/--version was handled and the program should
 * exit 0. Whatever it returns, fcp_options_release() frees what it read into
 * *o (filter rules).
 */
int fcp_cli_parse(int argc, char **argv, struct fcp_options *o,
		  char ***srcs, int *nsrc, char **dst);

/*
 * Copy each source to dst with cp's placement rules. Errors are reported per
 * item on o->err and counted; the copy goes on. SIGINT, SIGTERM and SIGHUP
 * stop the job cleanly (nothing new starts, no partial file stays under a
 * final name; the signal is in stats->signal). A new root copy appears under
 * its name only whole: stopped or with a failed item inside, it keeps its
 * temporary name, reported with its full path. Returns an FCP_EXIT_* code.
 */
int fcp_job_run(const struct fcp_options *o, char *const *srcs, int nsrc,
		const char *dst, struct fcp_stats *stats);
/* With o->check, o->manifest and nsrc 0, fcp_job_run re-verifies dst
 * alone: every file the manifest records under it is read again and each
 * one changed or gone is said. */

/* Print the end-of-job summary (counts, speed, symlink kinds) to f. */
void fcp_stats_print(const struct fcp_stats *s, FILE *f);
/* The summary as a table (files, directories, bytes by total, copied,
 * skipped, failed, extras, deleted), as robocopy's, to f. */
void fcp_stats_print_table(const struct fcp_stats *s, FILE *f);
/* A dry run's closing line: what it would copy, update and delete. */
void fcp_stats_print_plan(const struct fcp_stats *s, FILE *f);
/* Did the job change DEST (a dry run: would it)? */
bool fcp_stats_changed(const struct fcp_stats *s);

/* The summary as one JSON object (a stable key set, man fastcp), in one
 * write. Returns 0, or -errno when it could not be written whole; a
 * regular file then holds none of it. */
int fcp_stats_print_json(const struct fcp_stats *s, FILE *f);

/* Print what must be seen even without a summary: warnings per kind,
 * failures, items not copied. Prints nothing for a clean job. */
void fcp_stats_print_problems(const struct fcp_stats *s, FILE *f);

const char *fcp_version(void);

/*
 * One copy made by several processes ("ranks"), each running the same job
 * with the same options and operands (fastcp-mpi). Rank 0 places the
 * copies and makes their roots; directories to read and batches of files
 * move between ranks while the copy runs, named by their path below the
 * root copy (lib/dist/dist.c). The library knows no message library: the
 * program gives it this table of calls. Every call marked collective is
 * made by every rank, in the same order.
 */
struct fcp_job;
struct fcp_dist_ops {
	/* collective: rank 0's len bytes at buf, to every rank */
	void (*bcast)(void *ctx, void *buf, size_t len);
	/* collective: v[0..n) summed (or the maximum taken) over the ranks,
	 * in place */
	void (*reduce)(void *ctx, uint64_t *v, int n, bool max);
	/* collective: send[r] (slen[r] bytes) goes to rank r; what every rank
	 * sent this one arrives in *recv (malloc'd, *rlen bytes). 0 or -errno */
	int (*exchange)(void *ctx, char *const *send, const size_t *slen, char **recv,
			size_t *rlen);
	/* collective: start moving work while the workers run (a thread of
	 * the program's: it calls fcp_dist_idle, fcp_dist_give, fcp_dist_take,
	 * and fcp_dist_end once every rank is idle); on failure it stops every
	 * rank, as a rank that dies does */
	void (*balance)(void *ctx, struct fcp_job *job);
	/* wait for that thread, after fcp_dist_end */
	void (*balance_join)(void *ctx);
};

struct fcp_dist {
	int rank, size;
	const struct fcp_dist_ops *ops;
	void *ctx;
};

/* For the program's balancing thread, while a phase runs. Has this rank
 * nothing left to do (until it is given more)? */
bool fcp_dist_idle(struct fcp_job *job);
/* Take up to max units of queued work (directories to read, batches of
 * files, else parts of large files being copied) away from this rank, packed into *buf (malloc'd, *len bytes) for
 * another: how many (0: none to give). */
int fcp_dist_give(struct fcp_job *job, int max, char **buf, size_t *len);
/* Queue here the units another rank gave; 0 or -errno. */
int fcp_dist_take(struct fcp_job *job, const char *buf, size_t len);
/* A part of another rank's large file copied here, its result to be
 * sent to rank *to (*buf malloc'd, *len bytes): 1, or 0 when none is
 * left. And on that rank: apply it (0, or -EINVAL: not from this build). */
int fcp_dist_results(struct fcp_job *job, int *to, char **buf, size_t *len);
int fcp_dist_result(struct fcp_job *job, const char *buf, size_t len);
/* Every rank is idle: this rank's workers finish the phase. */
void fcp_dist_end(struct fcp_job *job);

/* Describe this build and machine: default threads, engines, whether
 * io_uring is built in and usable here (for --version --verbose). */
void fcp_describe(FILE *f);

#endif
