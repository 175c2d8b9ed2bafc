/*
 * job.c - a copy job from start to summary.
 *
 * Phases: resolve where each SOURCE goes (cp's placement rules) and refuse
 * the impossible ones (into itself, onto itself); then hand every source to
 * the worker pool as one entry of a pseudo-directory that stands for its
 * destination parent; the pool copies directories first, data as found, and
 * directory metadata post-order; finally the counters become the stats.
 */
#include "dest/backup.h"
#include "policy/check.h"
#include "policy/check_manifest.h"
#include "tree/chunk.h"
#include "tree/dedup.h"
#include "tree/delete.h"
#include "dest/dest.h"
#include "base/device.h"
#include "tree/dirlink.h"
#include "tree/srcmount.h"
#include "dist/dist.h"
#include "engine/engine.h"
#include "base/filter.h"
#include "core/job.h"
#include "core/limiter.h"
#include "tree/links.h"
#include "dest/manifest.h"
#include "tree/merge.h"
#include "dest/meta.h"
#include "core/node.h"
#include "core/observe.h"
#include "face/operands.h"
#include "dest/own.h"
#include "tree/parents.h"
#include "dest/resume.h"
#include "base/sys.h"
#include "core/upcalls.h"
#include "engine/verify.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/*
 * Worker threads by default: 3 per usable CPU. Workers block in cold opens
 * and reads, so more of them than CPUs keep more requests in flight; on the
 * 2-CPU development machine 6 against 4, 5 rounds each, cold: small 0.91x,
 * folders 0.88x, mixed 0.95x, large 1.03x; small warm 1.06x (BENCHMARKS.md).
 * Capped: beyond a few dozen, threads add contention, not depth.
 */
#define THREADS_PER_CPU 3
#define THREADS_MAX 32
/* Without -j, and where a source or DEST is served over a link (FUSE,
 * NFS, ...), the pool grows while its workers wait on round trips rather
 * than work (sched.c): a source 1 ms away, 5,000 files: 12 in flight with
 * 6 workers took 2.7 s, 53 in flight with 128 took 1.5 s. */
#define THREADS_ELASTIC_MAX 128

void fcp_options_init(struct fcp_options *o)
{
	memset(o, 0, sizeof(*o));
	o->reflink = FCP_REFLINK_AUTO;
	o->symlinks = FCP_SYMLINKS_KEEP;
	o->preserve = FCP_PRESERVE_ALL;
	o->recursive = true;
	o->max_delete = -1;
	o->max_size = -1;
	o->newer_than = LLONG_MIN;
	o->older_than = LLONG_MAX;
	o->retry_wait = 1.0;
}

void fcp_options_release(struct fcp_options *o)
{
	fcp_filter_free(o->filter);
	o->filter = NULL;
}

/* CPUs this process may run on (its affinity mask, which cgroup cpusets
 * and taskset narrow), at least 1. */
static int usable_cpus(void)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	return n > 0 ? n : 1;
}

/* Is a source served over a link, whose every call is a round trip
 * (device.c)? */
static bool any_remote(char *const *srcs, int nsrc)
{
	for (int i = 0; i < nsrc; i++)
		if (fcp_fs_remote(srcs[i]))
			return true;
	return false;
}

static int default_threads(int cpus)
{
	int n = THREADS_PER_CPU * cpus;

	return n < THREADS_MAX ? n : THREADS_MAX;
}

/* Workers for a process that shares its CPUs with share - 1 others of
 * the same job: its part of n, so that the machine runs the number that
 * suits it (more cost a local copy time: sched.c). */
static int shared(int n, int share)
{
	return share > 1 ? (n + share - 1) / share : n;
}

void fcp_describe(FILE *f)
{
	const char *why = fcp_uring_available();

	fprintf(f, "threads: %d by default here (-j N to change)\n", default_threads(usable_cpus()));
	fprintf(f, "engines: clone (FICLONE), copy_file_range, read/write; large files in chunks\n");
	fprintf(f, "small files: %s\n", why ? why : "io_uring batches");
	fprintf(f, "files above 256 KiB: %s\n", fcp_direct_describe());
	fprintf(f, "--verify: %s\n", fcp_verify_describe());
}

/* Would the copy destroy its own source? The same inode, or a symlink
 * about to replace the very file it points to. */
static bool same_target(const char *src, const struct statx *sst, const struct statx *dstx)
{
	struct statx followed;

	if (fcp_statx_same_inode(sst, dstx))
		return true;
	return S_ISLNK(sst->stx_mode) &&
	       fcp_sys_statx(AT_FDCWD, src, 0, STATX_BASIC_STATS, &followed) == 0 &&
	       fcp_statx_same_inode(&followed, dstx);
}

/* Strip trailing slashes for the name; "/" stays "/". */
static char *base_name(const char *path)
{
	char *copy = strdup(path), *b;
	size_t n = strlen(copy);

	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = 0;
	b = strdup(basename(copy));
	free(copy);
	return b;
}

static char *dir_name(const char *path)
{
	char *copy = strdup(path);
	size_t n = strlen(copy);
	char *d;

	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = 0;
	d = strdup(dirname(copy));
	free(copy);
	return d;
}

struct placement {
	char *parent;    /* destination parent directory path */
	char *name;      /* destination name in it */
};

static struct placement place(const char *src, const char *dst, bool into, bool parents)
{
	struct placement p;
	char *path;

	/* --parents: DEST/SOURCE (parents.c makes the directories). */
	if (parents) {
		path = fcp_parents_path(src);
		p.parent = path ? fcp_path_join(dst, path) : NULL;
		p.name = path ? base_name(path) : NULL;
		if (p.parent)
			p.parent[strlen(p.parent) - strlen(p.name) - 1] = 0;
		free(path);
		return p;
	}
	if (into) {
		p.parent = strdup(dst);
		p.name = base_name(src);
		/* "." merges into DEST as in cp; ".." and "/" are no names to
		 * create below DEST (they would climb out of it): use the real
		 * name of the directory, or none for the root. */
		if (!strcmp(p.name, "..") || !strcmp(p.name, "/")) {
			char *real = realpath(src, NULL);
			free(p.name);
			p.name = real && strcmp(real, "/") ? base_name(real) : NULL;
			free(real);
		}
	} else {
		p.parent = dir_name(dst);
		p.name = base_name(dst);
	}
	return p;
}

struct top {
	struct fcp_dir dir;   /* pseudo-directory: the destination parent */
	struct fcp_parents parents; /* --parents: its directories (dir.dst_fd) */
	struct fcp_root root;
	bool moved;           /* --move: renamed whole, nothing to copy */
};

/* (t->dir.dst_fd is the job's DEST, shared: fcp_job_run closes it.) */
static void top_release(struct fcp_job *job, struct top *t)
{
	if (job->o->parents)
		fcp_parents_finish(job, &t->parents);
	if (t->root.dst_fd >= 0)
		close(t->root.dst_fd);
	if (t->root.adopt_fd >= 0)
		close(t->root.adopt_fd);
	free(t->root.adopt_name);
	free(t->root.name);
	free(t->dir.dst_name);
	free(t->root.src_abs);
	free(t->root.held);
	free(t->root.dst_abs);
	free(t->root.left);
}

/* -l: is the name at the destination (dstx) already the inode the link
 * would be made to (sst: the source as -l links it, a symlink itself
 * unless followed)? Then -l has nothing to do, as in cp ("fastcp -l f f",
 * a second run). A symlink whose target is the destination is not: the
 * link would put the symlink in place of the file it points to. */
static bool linked_already(struct fcp_job *job, const struct statx *sst, const struct statx *dstx)
{
	return job->o->make == FCP_MAKE_HARDLINK && !S_ISDIR(sst->stx_mode) &&
	       fcp_statx_same_inode(sst, dstx);
}

/* Is name in directory pfd src's own directory entry? */
static bool same_name(const char *src, int pfd, const char *name)
{
	char *sdir = dir_name(src), *sname = base_name(src);
	struct statx a, b;
	bool same = sdir && sname && !strcmp(sname, name) &&
		    fcp_sys_statx(AT_FDCWD, sdir, 0, STATX_BASIC_STATS, &a) == 0 &&
		    fcp_sys_fstatx(pfd, &b) == 0 && fcp_statx_same_inode(&a, &b);

	free(sdir);
	free(sname);
	return same;
}

/* A file onto another name of its own inode (dstx), which cp copies with
 * --backup or --remove-destination: the copy is made beside and renamed
 * over that name, the source's name stays. Onto its own name, cp copies
 * only with -f and --backup (the backup is the point): the old inode
 * keeps the backup's name, a copy the file's. Never a symlink onto what
 * it points to (dstx is not its inode), nor --move (a rename onto another
 * name of the same inode does nothing). */
static bool same_file_ok(struct fcp_job *job, const char *src, const struct statx *sst,
			 const struct statx *dstx, int pfd, const char *name)
{
	const struct fcp_options *o = job->o;

	if (!fcp_statx_same_inode(sst, dstx) || S_ISDIR(sst->stx_mode) || o->make != FCP_MAKE_COPY ||
	    o->move)
		return false;
	if (!same_name(src, pfd, name))
		return o->backup != FCP_BACKUP_NONE || (o->force & FCP_FORCE_REMOVE);
	return S_ISREG(sst->stx_mode) && o->backup != FCP_BACKUP_NONE && (o->force & FCP_FORCE);
}

/* --move of several SOURCEs of one name into the directory name of pfd,
 * which is there: did a run before leave it marked (FCP_MOVE_MARKER, a
 * move into it that did not remove all its sources)? Marked now if not:
 * the mark stays until they are all gone (move_unmark), so that a run
 * stopped before then is known by the next one (plan.c, move_keeps). */
static bool marked_move(const struct fcp_job *job, int pfd, const char *name)
{
	static const char merged[] = "merged SOURCEs";
	void *val = NULL;
	ssize_t n = fcp_sys_getxattr(-1, pfd, name, FCP_MOVE_MARKER, &val);

	free(val);
	if (n < 0 && !job->o->dry_run)
		fcp_sys_setxattr(-1, pfd, name, FCP_MOVE_MARKER, merged, sizeof(merged) - 1);
	return n >= 0;
}

/* A filtered --move of a directory: a rename would take what the filters
 * leave out too; copied, only what they choose goes (move.c). */
static bool filtered_dir(const struct fcp_job *job, const struct statx *st)
{
	return S_ISDIR(st->stx_mode) && fcp_options_filter(job->o);
}

/* src (sst) is what is at name in pfd (dstx): say so, with the copy's
 * own path (DEST/name where the copy goes into DEST: DEST is not the
 * same file). Seen through another mount of its filesystem (the disk
 * mounted twice, a bind mount), the two paths differ and nothing in them
 * tells why they are one: that is said too. */
static void say_same(struct fcp_job *job, const char *src, const struct statx *sst,
		     const struct statx *dstx, const char *dst, const char *to, int pfd,
		     const char *name)
{
	/* As same_target found them: a symlink SOURCE, followed or not. */
	int sflags = fcp_statx_same_inode(sst, dstx) && !fcp_job_follows_args(job)
			     ? AT_SYMLINK_NOFOLLOW : 0;
	uint64_t a, b;

	if (fcp_sys_mount_id(AT_FDCWD, src, sflags, &a) == 0 &&
	    fcp_sys_mount_id(pfd, name, AT_SYMLINK_NOFOLLOW, &b) == 0 && a != b)
		fcp_report_errorf(job, "'%s' and '%s' are the same %s" FCP_TWO_MOUNTS_WHY, src,
				  to ? to : dst, S_ISDIR(dstx->stx_mode) ? "directory" : "file");
	else
		fcp_report_errorf(job, "'%s' and '%s' are the same file", src, to ? to : dst);
}

/* Whether the copy of src (sst) to name in dst must be refused though it
 * can be made: returns true after reporting why. dstx is what is at the
 * destination now, or NULL; pfd the directory of name, parent its path. */
static bool refused(struct fcp_job *job, const struct fcp_operand *op, const char *dst, bool into,
		    const struct statx *sst, const struct statx *dstx, int pfd, const char *parent,
		    const char *name)
{
	const char *src = op->src;
	size_t n = strlen(dst);
	char *path;

	/* "fastcp f newdir/": the slash says DEST is a directory; there is
	 * none, and a file is no directory to create (cp's answer). */
	if (!into && n && dst[n - 1] == '/' && !S_ISDIR(sst->stx_mode)) {
		fcp_report_errorf(job, "cannot create %s '%s': %s",
				  fcp_file_kind_name(sst->stx_mode, true), dst, strerror(ENOTDIR));
	} else if (dstx && same_target(src, sst, dstx) && !linked_already(job, sst, dstx) &&
		   !same_file_ok(job, src, sst, dstx, pfd, name)) {
		/* Named as cp names it: the file the copy would replace
		 * ("f" and "dir/f"), not the directory it goes into. */
		path = into || job->o->parents ? fcp_path_join(parent, name) : NULL;
		say_same(job, src, sst, dstx, dst, path, pfd, name);
		free(path);
	} else if (!S_ISDIR(sst->stx_mode) && fcp_operand_just_created(op, dstx)) {
		/* A file of the same name as an earlier operand: the first
		 * stays, as in cp, whichever worker would have been faster. */
		path = fcp_path_join(dst, name);
		fcp_report_errorf(job, "will not overwrite just-created '%s' with '%s'",
				  path ? path : name, src);
		free(path);
	} else {
		return false;
	}
	atomic_fetch_add(&job->c.failed, 1);
	return true;
}

/* A SOURCE that is a file this job writes (own.h; a shell glob may name
 * the --log file) is left out; a copy that would replace one fails. True
 * after saying so. */
static bool own_operand(struct fcp_job *job, const char *src, const struct placement *p)
{
	char *to;
	bool onto;

	if (fcp_own_path(job, src)) {
		fcp_report_errorf(job, "not copying '%s': this job writes it (--manifest, --log, "
				  "--events)", src);
		return true;
	}
	to = fcp_path_join(p->parent, p->name);
	onto = to && fcp_own_path(job, to);
	if (onto)
		fcp_report_failed(job, "will not copy over a file this job writes (--manifest, "
				  "--log, --events):", to, 0);
	free(to);
	return onto;
}

/* The directory the copy goes into (pfd, named where) is a SOURCE
 * directory, or one inside it, that a mount shows in DEST's path
 * (srcmount.h): the copy would be written into a source being read, as
 * into itself, but no walk up by ".." sees it. True after saying so. */
static bool source_mounted(struct fcp_job *job, int pfd, const struct statx *st,
			   const char *where)
{
	bool holds;
	char *src = fcp_srcmount_find(job, pfd, st, FCP_SRCMOUNT_HIDDEN, &holds);

	if (!src)
		return false;
	fcp_report_failed_pair(job, FCP_SRCMOUNT_WHY, where, "is", src);
	free(src);
	return true;
}

/* -b: another operand's backup in pfd must not take name (backup.h):
 * noted before anything is copied. False after saying why not. */
static bool name_noted(struct fcp_job *job, int pfd, const char *name)
{
	struct statx st;

	if (job->o->backup == FCP_BACKUP_NONE || fcp_sys_fstatx(pfd, &st) < 0 ||
	    fcp_backup_note_copy(job, fcp_statx_dev(&st), st.stx_ino, name) == 0)
		return true;
	fcp_report_errorf(job, "out of memory");
	atomic_fetch_add(&job->c.failed, 1);
	return false;
}

/* Resolve one SOURCE into a top pseudo-directory and its entry item.
 * Returns the item, or NULL after reporting why it cannot be copied.
 * *dfd: the destination parent, opened by the first operand that gets
 * so far and shared by all (it is DEST for every operand, or there is only
 * one): one descriptor, not one per operand until the job ends. */
static struct fcp_item *prepare(struct fcp_job *job, const struct fcp_operand *op, const char *dst,
				bool into, struct top *t, int *dfd)
{
	int sflags = fcp_job_follows_args(job) ? 0 : AT_SYMLINK_NOFOLLOW;
	const char *src = op->src;
	struct placement p = place(src, dst, into, job->o->parents);
	struct statx sst, dstx, pst;
	bool pst_ok;
	struct fcp_item *it = NULL;
	int r, pfd;
	char real[PATH_MAX];

	t->dir.dst_fd = t->root.dst_fd = t->root.adopt_fd = t->root.superseded_fd = -1;
	t->parents.fd = -1;
	if (!p.name || !p.parent) {
		if (job->o->parents)
			fcp_report_errorf(job, "cannot copy '%s' with --parents: no name, "
					  "or '..' in its path", src);
		else
			fcp_report_errorf(job, "cannot copy '%s' into '%s': give the copy's own "
					  "name with -T", src, dst);
		atomic_fetch_add(&job->c.failed, 1);
		goto out;
	}
	if ((r = fcp_sys_statx(AT_FDCWD, src, sflags, STATX_BASIC_STATS, &sst)) < 0) {
		fcp_report_failed(job, "cannot stat", src, r);
		goto out;
	}
	if (own_operand(job, src, &p))
		goto out;
	if (*dfd < 0)
		*dfd = fcp_sys_openat(AT_FDCWD, job->o->parents ? dst : p.parent,
				      O_RDONLY | O_DIRECTORY, 0);
	if ((pfd = *dfd) < 0) {
		fcp_report_failed(job, "cannot open destination directory",
				  job->o->parents ? dst : p.parent, pfd);
		*dfd = -1;
		goto out;
	}
	/* Before --parents makes anything in it. (Its mount id too: one
	 * call, which tells most copies apart at once.) */
	pst_ok = fcp_sys_statx(pfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_MNT_ID, &pst) == 0;
	if (pst_ok && source_mounted(job, pfd, &pst, job->o->parents ? dst : p.parent))
		goto out;
	/* --parents: this operand's own parent, below DEST. */
	if (job->o->parents) {
		char *path = fcp_parents_path(src);
		r = path ? fcp_parents_make(job, *dfd, dst, src, path, &t->parents) : -ENOMEM;
		free(path);
		if (r < 0)
			goto out;
		pfd = t->parents.fd;
	}
	if (S_ISDIR(sst.stx_mode) && fcp_dir_inside(pfd, &sst)) {
		uint64_t a, b;
		/* Through another mount of its filesystem, DEST's path does
		 * not show that it lies inside SOURCE: said. */
		bool two = fcp_sys_mount_id(AT_FDCWD, src, sflags, &a) == 0 &&
			   fcp_sys_mount_id(pfd, "", AT_EMPTY_PATH, &b) == 0 && a != b;

		fcp_report_errorf(job, "cannot %s a directory, '%s', into itself, '%s'%s",
				  job->o->move ? "move" : "copy", src, dst, two ? FCP_TWO_MOUNTS : "");
		atomic_fetch_add(&job->c.failed, 1);
		goto out;
	}
	r = fcp_sys_statx(pfd, p.name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &dstx);
	if (job->o->check && r == 0 && S_ISDIR(sst.stx_mode) != S_ISDIR(dstx.stx_mode)) {
		/* Not a difference to list: two different questions. */
		fcp_report_errorf(job, "cannot check %s '%s' against %s '%s'",
				  S_ISDIR(sst.stx_mode) ? "directory" : "non-directory", src,
				  S_ISDIR(dstx.stx_mode) ? "directory" : "non-directory", dst);
		job->check_usage = true;
		goto out;
	}
	if (refused(job, op, dst, into, &sst, r == 0 ? &dstx : NULL, pfd, p.parent, p.name))
		goto out;
	/* --move a/x b/x DEST again, after a run that moved b/x: what DEST/x
	 * holds of b/x is there alone, and a/x's files would replace it.
	 * Another SOURCE of this name missing, nothing of this one moves. */
	if (job->o->move && op->sibling_missing) {
		fcp_report_errorf(job, "not moving '%s': another SOURCE named '%s' is missing, and "
				  "what a run before moved of it into '%s' may be there alone; move "
				  "the others without it", src, p.name, dst);
		atomic_fetch_add(&job->c.failed, 1);
		goto out;
	}
	if (!name_noted(job, pfd, p.name))
		goto out;
	/* Several SOURCEs of this name merge into one copy: renamed whole,
	 * the first would become the tree the later ones are merged over, and
	 * a file of theirs would replace its files with nothing of them left.
	 * Copied, the replaced file's source stays (move.c). */
	if (job->o->move && !op->merges && !job->o->dry_run && !filtered_dir(job, &sst) &&
	    (t->moved = fcp_move_rename(job, src, &sst, pfd, p.name, r == 0 ? &dstx : NULL))) {
		/* What the rename replaced is gone; the source's tree, moved
		 * unread, gets no record (the key: fcp_manifest_key). */
		fcp_manifest_forget_key(job, into ? p.name : "", true);
		goto out;
	}
	t->root.dry_renamed = job->o->move && job->o->dry_run && !op->merges &&
			      !filtered_dir(job, &sst) &&
			      fcp_move_would_rename(job, src, &sst, pfd, p.name, r == 0 ? &dstx : NULL);
	t->root.src_arg = src;
	t->root.merges = op->merges;
	t->root.move_rerun = job->o->move && op->merges && r == 0 && S_ISDIR(dstx.stx_mode) &&
			     marked_move(job, pfd, p.name);
	t->root.name = strdup(p.name);
	t->root.rel_top = into ? t->root.name : "";
	t->root.src_abs = realpath(src, real) ? strdup(real) : NULL;
	fcp_root_identify(&t->root, src, sflags, &sst);
	t->root.dst_abs = realpath(p.parent, real) ? fcp_path_join(real, p.name) : NULL;
	t->dir.root = &t->root;
	t->dir.is_top = true;
	t->dir.name = "";
	t->dir.dst_name = strcmp(p.parent, ".") ? strdup(p.parent) : strdup("");
	t->dir.src_fd = AT_FDCWD;
	t->dir.dst_fd = pfd;
	t->dir.depth = -1;
	if (job->o->parents || !pst_ok)
		pst_ok = fcp_sys_fstatx(pfd, &pst) == 0;
	t->dir.dst_dev = pst_ok ? fcp_statx_dev(&pst) : 0;
	t->dir.gives_acl = fcp_dest_has_default_acl(pfd);
	atomic_init(&t->dir.pending, 1); /* held by the job until the end */
	it = fcp_item_new(FCP_ITEM_ENTRY, &t->dir, src, p.name, DT_UNKNOWN);
	if (it)
		atomic_fetch_add(&t->dir.pending, 1);
out:
	free(p.parent);
	free(p.name);
	return it;
}

/* Name what killed runs left beside the destination names (--sync: take
 * up their hidden copies of these names): every root copy goes into one
 * directory, read once, before anything is made. */
static void find_leftovers(struct fcp_job *job, struct top *tops, int n)
{
	struct fcp_root **roots = calloc(n, sizeof(*roots));
	int k = 0, first = -1;

	for (int i = 0; i < n; i++) {
		if (tops[i].dir.dst_fd < 0)
			continue;
		if (first < 0)
			first = i;
		if (roots)
			roots[k++] = &tops[i].root;
	}
	if (first >= 0) {
		const char *abs = tops[first].root.dst_abs, *slash = abs ? strrchr(abs, '/') : NULL;
		char *dir = slash ? strndup(abs, slash - abs) : NULL;

		tops[first].dir.no_special = !fcp_leftover_scan(job, &tops[first].dir, dir, roots, k);
		free(dir);
	}
	free(roots);
}

static void collect(struct fcp_job *job, struct fcp_stats *s)
{
	struct fcp_counters *c = &job->c;

	s->files = c->files;
	s->dirs = c->dirs;
	s->symlinks = c->symlinks;
	s->specials = c->specials;
	s->hardlinks = c->hardlinks;
	s->bytes = c->bytes;
	s->cloned_files = c->cloned;
	s->failed = c->failed;
	s->not_copied = c->not_copied;
	s->skipped = c->skipped;
	s->excluded = c->excluded;
	s->links_internal = c->links_internal;
	s->links_external = c->links_external;
	s->links_relative = c->links_relative;
	s->links_absolute = c->links_absolute;
	s->links_rewritten = c->links_rewritten;
	s->leftovers = c->leftovers;
	s->differences = c->differs;
	s->hashed_trusted = c->trusted;
	s->check = job->o->check; /* (a check is a dry run: check.h) */
	s->unchanged = c->unchanged;
	s->updated = c->updated;
	s->deleted = c->deleted;
	s->backed_up = c->backed_up;
	s->moved = c->moved;
	s->not_replaced = c->not_replaced;
	s->unchanged_dirs = c->unchanged_dirs;
	s->updated_dirs = c->updated_dirs;
	s->deleted_dirs = c->deleted_dirs;
	s->replaced = c->replaced;
	s->bytes_skipped = c->settled_bytes;
	s->plan_copied = c->plan_copied;
	s->plan_copied_bytes = c->plan_copied_bytes;
	for (int k = 0; k < 5; k++)
		s->plan_kind[k] = c->plan_kind[k];
	s->plan_replaced = c->plan_replaced;
	s->plan_replaced_bytes = c->plan_replaced_bytes;
	s->plan_moved = c->plan_moved;
	s->delete_asked = job->o->delete_extra;
	s->left_hidden += c->kept;
	s->verified_files = c->verified;
	s->verified_bytes = c->verified_bytes;
	s->verified_cloned = c->verified_cloned;
	s->verified_memory = c->verified_memory;
	s->dedup_files = c->dedup_files;
	s->dedup_bytes = c->dedup_bytes;
	s->dedup_uncloned = c->dedup_uncloned;
	s->in_place_shared = c->in_place_shared;
	s->dedup = job->o->dedup;
	s->dry_run = job->o->dry_run;
	for (int k = 0; k < FCP_WARN_KINDS; k++)
		s->warnings[k] = c->warnings[k];
	s->bytes_cloned = c->cloned_bytes;
	s->bytes_holes = c->holes;
	s->io_ops = c->io_ops;
	memcpy(s->errors, job->errors, sizeof(s->errors));
}

static double tv_seconds(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* What the copy cost this process since before (its rusage when the job
 * began): CPU of all threads, and the peak memory. */
static void usage(struct fcp_stats *s, const struct rusage *before)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;
	s->cpu_user = tv_seconds(ru.ru_utime) - tv_seconds(before->ru_utime);
	s->cpu_system = tv_seconds(ru.ru_stime) - tv_seconds(before->ru_stime);
	s->max_rss_kb = ru.ru_maxrss;
}

/* The operands and, where several go into DEST, their copies' names (on
 * every rank: --delete judges a copy by all the sources of its name). */
static void name_operands(struct fcp_job *job, struct fcp_operand *ops, char *const *srcs,
			  int nsrc, const char *dst, bool into)
{
	for (int i = 0; i < nsrc; i++) {
		ops[i].src = srcs[i];
		if (!into || nsrc < 2)
			continue;
		struct placement p = place(srcs[i], dst, true, false);
		free(p.parent);
		ops[i].name = p.name;
		/* --parents: operands of one name go to different places. */
		if (job->o->parents) {
			free(ops[i].name);
			ops[i].name = fcp_parents_path(srcs[i]);
		}
	}
}

/* The operands, with their repeats and rounds where several go into DEST
 * (operands.h). Returns the last round, or -ENOMEM. */
static int plan(struct fcp_job *job, struct fcp_operand *ops, int nsrc, const char *dst,
		bool into)
{
	int sflags = fcp_job_follows_args(job) ? 0 : AT_SYMLINK_NOFOLLOW;

	for (int i = 0; i < nsrc && into && nsrc > 1; i++)
		ops[i].stat_ok = fcp_sys_statx(AT_FDCWD, ops[i].src, sflags, STATX_BASIC_STATS,
					       &ops[i].st) == 0;
	return into && nsrc > 1 ? fcp_operands_plan(job, ops, nsrc, dst) : 0;
}

/* The operands that may be directories: each root copy of one holds
 * descriptors until the job ends (fcp_dir_budget). Only several operands
 * going into DEST are looked at before (plan). */
static int dir_roots(const struct fcp_operand *ops, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += !ops[i].stat_ok || S_ISDIR(ops[i].st.stx_mode);
	return k;
}

static void free_operands(struct fcp_operand *ops, int n)
{
	for (int i = 0; ops && i < n; i++)
		free(ops[i].name);
	free(ops);
}

/* Is a SOURCE inside a copy of this job (operands.h)? Then nothing is
 * done: its copy, or another's, would overwrite or delete it before it is
 * read. A --check only reads: it compares whatever the trees hold. */
static bool inside_copy(struct fcp_job *job, const struct fcp_operand *ops, int nsrc,
			const char *dst, bool into)
{
	char **roots;
	bool refused;

	if (job->o->check)
		return false;
	roots = calloc(nsrc ? nsrc : 1, sizeof(*roots));
	for (int i = 0; roots && i < nsrc; i++) {
		struct placement p = place(ops[i].src, dst, into, job->o->parents);

		roots[i] = p.parent && p.name ? fcp_path_join(p.parent, p.name) : NULL;
		free(p.parent);
		free(p.name);
	}
	refused = !roots || fcp_operands_inside_copy(job, ops, nsrc, roots, dst, into,
						     fcp_job_follows_args(job) ? 0 : AT_SYMLINK_NOFOLLOW);
	for (int i = 0; roots && i < nsrc; i++)
		free(roots[i]);
	free(roots);
	return refused;
}

/* Is the copy of an earlier operand of the same name unfinished (left
 * under its .fcp-* name, or not started)? Then ops[i] is not copied: its
 * round would find the name free and make a new copy of its own half
 * alone, a partial merge under the final name. Says so after the first. */
static bool after_unfinished(struct fcp_job *job, const struct fcp_operand *ops,
			     const struct top *tops, int i)
{
	for (int j = 0; j < i; j++) {
		if (ops[j].repeat || ops[j].round >= ops[i].round || !ops[j].name ||
		    !ops[i].name || strcmp(ops[j].name, ops[i].name))
			continue;
		/* dir.root is set once prepare() succeeded (or the operand
		 * was moved whole by a rename: finished too). */
		if (tops[j].root.left || (!tops[j].dir.root && !tops[j].moved)) {
			fcp_report_errorf(job, "not copying '%s': the copy of '%s', "
					  "of the same name, did not finish", ops[i].src, ops[j].src);
			return true;
		}
	}
	return false;
}

/* Copy the operands of one round, all at once. Returns the workers used. */
static int run_round(struct fcp_job *job, const struct fcp_operand *ops, int nsrc,
		     const char *dst, bool into, struct top *tops, int round, int *dfd)
{
	/* Several ranks: rank 0 places and starts every copy, the others
	 * are given their work while it runs (dist.c). */
	for (int i = 0; i < nsrc && fcp_dist_leader(job); i++) {
		struct fcp_item *it;

		tops[i].root.id = i;
		if (ops[i].repeat || ops[i].round != round)
			continue;
		if (atomic_load(&job->stop)) { /* a signal, a full DEST */
			atomic_fetch_add(&job->c.not_copied, 1);
			continue;
		}
		if (round > 0 && after_unfinished(job, ops, tops, i)) {
			atomic_fetch_add(&job->c.not_copied, 1);
			continue;
		}
		it = prepare(job, &ops[i], dst, into, &tops[i], dfd);
		if (it)
			fcp_sched_push_initial(job, it);
	}
	/* Once, before any work runs: the workers start in fcp_sched_run,
	 * so none of this job's root copies exists yet (and its own names,
	 * tmp_prefix, are left out anyway): only earlier runs' leftovers are
	 * found. */
	if (round == 0 && fcp_dist_leader(job))
		find_leftovers(job, tops, nsrc);
	return job->dist ? fcp_dist_run(job, nsrc) : fcp_sched_run(job);
}

/* Did this run copy root whole into its name? */
static bool whole(struct fcp_job *job, const struct fcp_root *root)
{
	return root->dst_fd >= 0 && !root->left && !root->held && !atomic_load(&root->failed) &&
	       !atomic_load(&job->stop) && !job->o->dry_run;
}

/* The copy loses the marker by which the same command found it again
 * (move_resumed): --move once its source is all gone, a copy once its run
 * ended unstopped and whole. Last of all: a run stopped before has the
 * copy found. A copy named with failed items keeps it: the same command
 * again finishes it in place, not inside itself (cp's placement, now that
 * the name is a directory). */
static bool src_gone(const struct fcp_root *root)
{
	struct statx st;

	return fcp_sys_statx(AT_FDCWD, root->src_arg, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) ==
	       -ENOENT;
}

/* A --move's copy that other SOURCEs of its name merge into is marked
 * until every one of them is gone. */
static bool merged_gone(const struct top *tops, int n, const struct fcp_root *root)
{
	for (int i = 0; root->merges && i < n; i++)
		if (tops[i].root.merges && tops[i].root.name && root->name &&
		    !strcmp(tops[i].root.name, root->name) && !src_gone(&tops[i].root))
			return false;
	return true;
}

static void move_unmark(const struct fcp_job *job, const struct fcp_root *root, bool others_gone)
{
	if (root->dst_fd >= 0 && !root->left && !atomic_load(&job->stop) && !job->o->dry_run &&
	    !atomic_load(&root->failed) &&
	    (!job->o->move || (src_gone(root) && others_gone))) {
		fcp_sys_removexattr(root->dst_fd, -1, NULL, FCP_MOVE_MARKER);
		/* Only a move that removed all its sources ends the move. */
		if (job->o->move)
			fcp_sys_removexattr(root->dst_fd, -1, NULL, FCP_MOVED_MARKER);
		/* Left by a run killed between its rename and its unmarking
		 * (dest.c), on the copy this run went on into. */
		fcp_sys_removexattr(root->dst_fd, -1, NULL, FCP_ROOT_MARKER);
	}
}

/* SOURCE DEST where DEST is a directory: is DEST the copy that a stopped
 * run of this very SOURCE made (its marker names it: path, device, inode)?
 * Then the same command goes on into DEST itself, not into DEST/SOURCE as
 * cp's placement would put it: a copy stopped after it got its name is not
 * copied into itself, and a move never ends split in two places. */
static bool move_resumed(struct fcp_job *job, char *const *srcs, int nsrc, const char *dst,
			 bool *refused)
{
	int sflags = fcp_job_follows_args(job) ? 0 : AT_SYMLINK_NOFOLLOW;
	struct fcp_root r = { .name = NULL };
	struct statx st;
	char real[PATH_MAX], *want;
	void *val = NULL;
	ssize_t len;
	size_t n;
	bool same;
	int fd;

	if (nsrc != 1 || job->o->target_directory || job->o->parents ||
	    fcp_sys_statx(AT_FDCWD, srcs[0], sflags, STATX_BASIC_STATS, &st) < 0 ||
	    !S_ISDIR(st.stx_mode))
		return false;
	r.src_abs = realpath(srcs[0], real) ? real : NULL;
	fcp_root_identify(&r, srcs[0], sflags, &st);
	fd = fcp_sys_openat(AT_FDCWD, dst, O_RDONLY | O_DIRECTORY, 0);
	len = fd >= 0 ? fcp_sys_getxattr(fd, -1, NULL, FCP_MOVE_MARKER, &val) : -1;
	want = len > 0 ? fcp_root_marker(&r, false, fd, job->o->delete_extra, &n) : NULL;
	same = want && n == (size_t)len && !memcmp(want, val, n);
	free(want);
	free(val);
	if (fd >= 0)
		close(fd);
	/* Without a birth time, another card's DCIM marks the same: going
	 * on into DEST would merge it there. The user knows which it is. */
	if (same && !r.src_strong) {
		const char *verb = job->o->move ? "move" : "copy";

		fcp_report_errorf(job, "'%s' may be the copy a stopped %s of '%s' left, but this "
				  "source's filesystem gives no birth time to tell it from another "
				  "source of that path: to finish that %s, run it again with -T; "
				  "to %s into '%s', remove its xattr %s first", dst, verb, srcs[0],
				  verb, verb, dst, FCP_MOVE_MARKER);
		*refused = true;
	}
	return same && r.src_strong;
}

/* Decide "copy into DEST" (1) or "DEST is the copy" (0, or 2: the copy a
 * stopped run of the same command named); -1 after a message. */
static int decide_into(struct fcp_job *job, char *const *srcs, int nsrc, const char *dst)
{
	struct statx st;
	bool refused = false;
	bool is_dir = fcp_sys_statx(AT_FDCWD, dst, 0, STATX_TYPE, &st) == 0 && S_ISDIR(st.stx_mode);

	/* --delete tidies a directory: a file in DEST's place is no usage
	 * to guess at. */
	if (job->o->delete_extra && !job->o->check && fcp_sys_statx(AT_FDCWD, dst, 0, STATX_TYPE,
						  &st) == 0 && !S_ISDIR(st.stx_mode)) {
		fcp_report_errorf(job, "--delete needs a directory as destination: '%s' is not one",
				  dst);
		return -2;
	}
	if (job->o->parents && !is_dir) {
		fcp_report_errorf(job, "with --parents, the destination must be a directory");
		return -2;
	}
	if (job->o->no_target_dir)
		return 0;
	if (is_dir && move_resumed(job, srcs, nsrc, dst, &refused))
		return 2;
	if (refused)
		return -1;
	/* -t and --parents say DEST is a directory: never the copy itself. */
	if (job->o->target_directory && !is_dir) {
		int r = fcp_sys_statx(AT_FDCWD, dst, 0, STATX_TYPE, &st);
		fcp_report_errorf(job, "target directory '%s': %s", dst,
				  strerror(r < 0 ? -r : ENOTDIR));
		return -1;
	}
	if (nsrc > 1 && !is_dir) {
		fcp_report_errorf(job, "target '%s' is not a directory", dst);
		return -1;
	}
	return is_dir;
}

/* "" would be taken as "." (dirname and basename of an empty path): an
 * unset variable would merge a tree into the current directory. The
 * command line refuses it first; this guards the other callers. */
static bool empty_operand(struct fcp_job *job, char *const *srcs, int nsrc, const char *dst)
{
	for (int i = 0; i <= nsrc; i++)
		if (!(i < nsrc ? srcs[i] : dst)[0]) {
			fcp_report_errorf(job, "empty %s operand ''", i < nsrc ? "source" : "destination");
			return true;
		}
	return false;
}

/* The modules' own states behind the job (each made before the workers
 * start, freed after them): one list for the start and both ends of a
 * job, so that a module added to one is not forgotten in another. */
static int states_init(struct fcp_job *job)
{
	if (fcp_uring_init(job) < 0 || fcp_verify_init(job) < 0 || fcp_resume_init(job) < 0 ||
	    fcp_chunk_init(job) < 0 || fcp_direct_pipe_init(job) < 0 ||
	    fcp_limit_init(job) < 0 || fcp_meta_init(job) < 0)
		return -ENOMEM;
	return 0;
}

static void states_free(struct fcp_job *job)
{
	fcp_uring_free(job);
	fcp_verify_free(job);
	fcp_resume_free(job);
	fcp_chunk_free(job);
	fcp_direct_pipe_free(job);
	fcp_limit_free(job);
	fcp_meta_free(job);
	fcp_dirfds_free(job); /* made with the budget (fcp_dir_budget) */
}

/* A pid is not unique: every container's first process is PID 1, and a
 * source may hold names shaped like anyone's temporary names. 32 random
 * bits per job and their tag are (with the O_EXCL retry). Without
 * getrandom (before Linux 3.17) the clock, pid and an address mixed stand
 * in: unique enough with the O_EXCL retry. */
static uint32_t tmp_random(void)
{
	uint32_t r;
	struct timespec ts;

	if (fcp_sys_getrandom(&r, sizeof(r)) != sizeof(r)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		r = (uint32_t)ts.tv_sec * 1000000007u ^ (uint32_t)ts.tv_nsec ^ (uint32_t)getpid() << 16 ^
		    (uint32_t)(uintptr_t)&ts;
	}
	return r;
}

/* Who carries out each kind of item: the modules that own them, so that
 * the pool (sched.c) names none. */
static void handle_items(struct fcp_job *job)
{
	fcp_sched_handle(job, FCP_ITEM_ENTRY, fcp_entry_copy);
	fcp_sched_handle(job, FCP_ITEM_SCAN, fcp_walk_item);
	fcp_sched_handle(job, FCP_ITEM_BATCH, fcp_batch_copy);
	fcp_sched_handle(job, FCP_ITEM_CHUNK, fcp_chunk_copy);
	fcp_sched_handle(job, FCP_ITEM_WRITEBACK, fcp_chunk_writeback);
	fcp_sched_handle(job, FCP_ITEM_GIVEN, fcp_dist_given);
}

/* SIGINT, SIGTERM, SIGHUP: start nothing new, let what is in flight land
 * or be removed, then report. Only one job runs at a time per process. */
static struct fcp_job *signalled_job;
static volatile sig_atomic_t caught;
static volatile sig_atomic_t bar_on;

/* The unfinished root copies, each with the line a signal writes for it:
 * made before, so that the handler only calls write(2). A slot is filled
 * whole (under the lock) before it is marked live. */
#define FCP_NOTED 8
static struct {
	const void *key;
	char line[768];
	size_t len;
	atomic_int live;        /* lock-free: read by the handler, any thread */
	atomic_int said;        /* written by the handler */
} noted[FCP_NOTED];
static pthread_mutex_t noted_lock = PTHREAD_MUTEX_INITIALIZER;

/* What a signal says at once: key's unfinished copy is at path (NULL: no
 * more, it has its name). A second signal kills at once, with no time to
 * say anything: the first says where the copy stays. Told by dest.c
 * through the job's upcall (upcalls.h), as it stands below this file. */
static void signal_note(const void *key, const char *src, const char *path, const char *then)
{
	int i, free_slot = -1;

	pthread_mutex_lock(&noted_lock);
	for (i = 0; i < FCP_NOTED; i++) {
		if (atomic_load(&noted[i].live) && noted[i].key == key)
			atomic_store(&noted[i].live, 0);
		if (!atomic_load(&noted[i].live) && free_slot < 0)
			free_slot = i;
	}
	if (path && free_slot >= 0) {
		/* True whether the stop ends cleanly or a second signal kills at
		 * once: the end then does not say it again. */
		int n = snprintf(noted[free_slot].line, sizeof(noted[0].line),
				 "fastcp: stopping; the unfinished copy of '%s' stays as '%s' (also if "
				 "a second signal kills fastcp at once): %s\n", src ? src : "?", path,
				 then ? then : "remove it, or run the same command again");
		noted[free_slot].len = n < 0 ? 0 : (size_t)n < sizeof(noted[0].line)
						       ? (size_t)n : sizeof(noted[0].line) - 1;
		noted[free_slot].key = key;
		atomic_store(&noted[free_slot].said, 0);
		atomic_store(&noted[free_slot].live, 1); /* the line first */
	}
	pthread_mutex_unlock(&noted_lock);
}

bool fcp_signal_said(const void *key)
{
	bool said = false;

	pthread_mutex_lock(&noted_lock);
	/* (No longer live once the signals are given back: the end.) */
	for (int i = 0; i < FCP_NOTED && !said; i++)
		said = noted[i].key == key && atomic_load(&noted[i].said);
	pthread_mutex_unlock(&noted_lock);
	return said;
}

void fcp_signal_bar(bool on)
{
	bar_on = on;
}

static void on_signal(int sig)
{
	caught = sig;
	if (signalled_job)
		fcp_job_stop(signalled_job, -EINTR); /* lock-free atomics only */
	/* Said now: a second signal kills at once (SA_RESETHAND). On the
	 * status line's terminal, from the start of a cleared line. */
	for (int i = 0, cleared = !bar_on; i < FCP_NOTED; i++) {
		if (!atomic_load(&noted[i].live) || !noted[i].len)
			continue;
		if (!cleared)
			cleared = write(STDERR_FILENO, "\r\033[K", 4) == 4;
		if (write(STDERR_FILENO, noted[i].line, noted[i].len) == (ssize_t)noted[i].len)
			atomic_store(&noted[i].said, 1);
	}
}

static void catch_signals(struct fcp_job *job, struct sigaction old[3])
{
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal };

	if (job) {
		caught = 0;
		signalled_job = job;
	}
	sigemptyset(&sa.sa_mask);
	/* A second signal of the same kind kills at once, as usual. */
	sa.sa_flags = SA_RESETHAND;
	/* A signal ignored when fastcp started stays ignored, as in every
	 * POSIX utility: a background job of a shell without job control,
	 * or nohup, asked for the copy to outlive it. Giving back what was
	 * there leaves it ignored too. */
	for (int i = 0; i < 3; i++)
		if (!job || (sigaction(sigs[i], NULL, &old[i]) == 0 &&
			     old[i].sa_handler != SIG_IGN))
			sigaction(sigs[i], job ? &sa : &old[i], NULL);
	if (!job)
		signalled_job = NULL;
	for (int i = 0; !job && i < FCP_NOTED; i++)
		atomic_store(&noted[i].live, 0);
	/* What a signal said is read at the job's end, and forgotten when the
	 * next job starts. */
	for (int i = 0; job && i < FCP_NOTED; i++) {
		noted[i].key = NULL;
		atomic_store(&noted[i].said, 0);
	}
}

/* What the core calls up into (upcalls.h): the job's status line, its
 * signal notes, the copies it takes up. */
static const struct fcp_upcalls upcalls = {
	.clear_line = fcp_progress_clear,
	.signal_note = signal_note,
	.signal_said = fcp_signal_said,
	.failed_taken_up = fcp_leftover_drop_unconfirmed,
};

/* The job, watched by obs (observe.h; NULL: nobody). */
static int run(const struct fcp_options *o, char *const *srcs, int nsrc, const char *dst,
	       struct fcp_stats *stats, struct fcp_obs *obs)
{
	/* --move copies as --sync does, so that running it again after a
	 * kill finishes it (the killed run's hidden copy is taken up, or its
	 * copy found by its marker: move_resumed). */
	struct fcp_options moving = *o;
	struct fcp_job job = { .o = o, .err = o->err ? o->err : stderr, .obs = obs,
			       .obs_items = obs != NULL, .up = &upcalls };
	struct sigaction old_actions[3];
	struct timespec t0, t1;
	struct top *tops;
	struct fcp_operand *ops;
	int into, threads, max_threads, last, cpus, dfd = -1;
	bool synced = false;

	memset(stats, 0, sizeof(*stats));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_REALTIME_COARSE, &job.began);
	pthread_mutex_init(&job.err_lock, NULL);
	if (fcp_move_conflict(o)) {
		fcp_report_errorf(&job, "--move cannot be combined with %s: it makes no copy of "
				  "the data before the source goes", fcp_move_conflict(o));
		return FCP_EXIT_USAGE;
	}
	if (fcp_dirlink_conflict(o)) {
		fcp_report_errorf(&job, "%s", fcp_dirlink_conflict(o));
		return FCP_EXIT_USAGE;
	}
	if (o->move) {
		moving.sync = true;
		job.o = &moving;
	}
	/* --check is a dry run that decides by content and looks for
	 * extras as --delete would (check.h). */
	if (o->check) {
		moving.dry_run = moving.checksum = moving.delete_extra = true;
		job.o = &moving;
	}
	if (o->check && o->manifest && nsrc == 0)
		return fcp_manifest_verify(o, dst, stats);
	if (empty_operand(&job, srcs, nsrc, dst))
		return FCP_EXIT_USAGE;
	job.is_root = geteuid() == 0;
	job.tmp_random = tmp_random();
	fcp_tmpname_prefix(job.tmp_random, job.tmp_prefix);
	atomic_init(&job.uring_ok, true);
	job.euid = geteuid();
	job.egid = getegid();
	job.umask = umask(022);
	umask(job.umask);
	cpus = usable_cpus();
	/* A rank that shares this machine's CPUs with others of its job
	 * counts its part of them: for a large file's runners (a writer per
	 * CPU, not more) and for how busy its CPUs are (sched.c's governor). */
	job.cpus = shared(cpus, o->cpu_share);
	threads = o->threads > 0 ? o->threads : shared(default_threads(cpus), o->cpu_share);
	job.remote_src = any_remote(srcs, nsrc);
	/* The pool may grow (sched.c) where a source or DEST is remote. */
	max_threads = o->threads > 0 || !(job.remote_src || fcp_fs_remote(dst))
			      ? threads : shared(THREADS_ELASTIC_MAX, o->cpu_share);
	/* --max-delete: which entries it lets go must not depend on which
	 * worker gets to its deletion first, and a dry run must name the
	 * same ones: one worker meets them in one order, every run. */
	if (o->max_delete >= 0)
		threads = max_threads = 1;
	if (fcp_dist_init(&job) < 0) {
		fcp_report_errorf(&job, "out of memory");
		return FCP_EXIT_PARTIAL;
	}
	/* Where the copies go is rank 0's to say (several ranks). */
	into = fcp_dist_share(&job, fcp_dist_leader(&job) ? decide_into(&job, srcs, nsrc, dst) : 0);
	if (into < 0) {
		fcp_dist_free(&job);
		return into == -2 ? FCP_EXIT_USAGE : FCP_EXIT_PARTIAL;
	}
	/* The copy a stopped run named is synced, as a hidden one taken up
	 * is: its files are finished, and nothing there is replaced (-b). */
	if (into == 2) {
		moving.sync = true;
		job.o = &moving;
		into = 0;
	}
	tops = calloc(nsrc, sizeof(*tops));
	ops = calloc(nsrc, sizeof(*ops));
	if (ops)
		name_operands(&job, ops, srcs, nsrc, dst, into);
	last = !tops || !ops ? -ENOMEM : fcp_dist_leader(&job) ? plan(&job, ops, nsrc, dst, into) : 0;
	last = fcp_dist_share(&job, last);
	if (last >= 0 && fcp_dist_share(&job, fcp_dist_leader(&job) &&
					       inside_copy(&job, ops, nsrc, dst, into))) {
		free_operands(ops, nsrc);
		free(tops);
		fcp_dist_free(&job);
		return FCP_EXIT_USAGE;
	}
	if (last >= 0 && fcp_dir_budget(&job, &threads, &max_threads, dir_roots(ops, nsrc)) < 0)
		last = -ENOMEM;
	if (last >= 0 && o->manifest && fcp_manifest_open(&job, o->manifest, dst) < 0) {
		free_operands(ops, nsrc);
		free(tops);
		fcp_dirfds_free(&job);
		fcp_dist_free(&job);
		return FCP_EXIT_USAGE;
	}
	/* After the manifest is open: its -wal and -shm are known too. */
	if (last < 0 || fcp_own_init(&job) < 0 || fcp_merge_init(&job, ops, nsrc) < 0 ||
	    fcp_sched_create(&job, threads, max_threads) < 0 || fcp_hl_init(&job) < 0 ||
	    fcp_dd_init(&job) < 0 || fcp_move_init(&job) < 0 ||
	    fcp_dirlink_init(&job, srcs, nsrc) < 0 || fcp_srcmount_init(&job, srcs, nsrc) < 0 ||
	    fcp_delete_init(&job) < 0 ||
	    states_init(&job) < 0 ||
	    ((o->check || o->sync || o->checksum) && fcp_check_links_init(&job) < 0)) {
		fcp_report_errorf(&job, "out of memory");
		free_operands(ops, nsrc);
		free(tops);
		fcp_sched_destroy(&job);
		fcp_manifest_close(&job);
		fcp_move_free(&job);
		fcp_dirlink_free(&job);
		fcp_srcmount_free(&job);
		fcp_delete_free(&job);
		states_free(&job);
		fcp_own_free(&job);
		fcp_merge_free(&job);
		fcp_dist_free(&job);
		return FCP_EXIT_PARTIAL;
	}
	handle_items(&job);
	/* A check or a dry run only reads: not even access times move. */
	fcp_sys_reads_noatime(o->check || o->dry_run);
	for (int i = 0; i < nsrc; i++) /* not prepared */
		tops[i].dir.dst_fd = tops[i].root.dst_fd = tops[i].root.adopt_fd =
			tops[i].root.superseded_fd =
			tops[i].parents.fd = -1;
	catch_signals(&job, old_actions);
	fcp_sys_watch_stop(&job.stop);
	fcp_progress_start(&job, srcs, nsrc); /* without it, a copy without a line */
	for (int round = 0; round <= last; round++)
		stats->threads = run_round(&job, ops, nsrc, dst, into, tops, round, &dfd);
	fcp_progress_stop(&job);
	fcp_sys_watch_stop(NULL);
	fcp_sys_reads_noatime(false);
	catch_signals(NULL, old_actions);
	free_operands(ops, nsrc);
	stats->signal = caught;
	stats->in_place = o->in_place && !o->dry_run;
	for (int i = 0; i < nsrc; i++) {
		/* --fsync: the entries made in DEST itself are durable too
		 * (DEST is one directory, shared by the operands). */
		int r = o->fsync && !synced && tops[i].dir.dst_fd >= 0 ? fcp_sys_fsync(dfd) : 0;
		synced |= tops[i].dir.dst_fd >= 0;
		if (r < 0)
			fcp_report_failed(&job, "cannot sync directory", tops[i].dir.dst_name, r);
		if (tops[i].root.left) {
			fcp_report_left(&job, srcs[i], &tops[i].root);
			stats->left_hidden++;
		} else if (o->move && !o->dry_run && !tops[i].moved && tops[i].dir.dst_fd >= 0 &&
			   !atomic_load(&job.stop) &&
			   (!tops[i].root.src_dir || tops[i].root.dst_fd < 0 ||
			    fcp_move_mark_moved(&job, &tops[i].root, srcs[i])))
			fcp_move_prune(&job, srcs[i], tops[i].dir.dst_fd, tops[i].root.name);
		fcp_leftover_superseded(&job, &tops[i].dir, &tops[i].root, whole(&job, &tops[i].root));
	}
	if (dfd >= 0)
		close(dfd);
	fcp_manifest_close(&job); /* its last records written (or failed, counted) */
	/* Every mark first: merged_gone() reads the others' names. */
	for (int i = 0; i < nsrc; i++)
		move_unmark(&job, &tops[i].root, merged_gone(tops, nsrc, &tops[i].root));
	for (int i = 0; i < nsrc; i++)
		top_release(&job, &tops[i]);
	free(tops);
	fcp_own_free(&job);
	fcp_merge_free(&job);
	fcp_delete_free(&job);
	fcp_backup_free(&job);
	fcp_check_links_free(&job);
	collect(&job, stats);
	stats->io_path = atomic_load(&job.uring_used) ? "io_uring" : "sync";
	fcp_hl_free(&job);
	fcp_dd_free(&job);
	fcp_move_free(&job);
	fcp_dirlink_free(&job);
	fcp_srcmount_free(&job);
	states_free(&job);
	fcp_dist_free(&job);
	fcp_sched_destroy(&job);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	stats->seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (job.check_usage)
		return FCP_EXIT_USAGE;
	return stats->failed || stats->not_copied || stats->differences ? FCP_EXIT_PARTIAL
									: FCP_EXIT_OK;
}

int fcp_job_run(const struct fcp_options *o, char *const *srcs, int nsrc, const char *dst,
		struct fcp_stats *stats)
{
	/* The observers outlive the job's own struct: its start is seen
	 * before the job checks anything, its end with the summary. */
	struct fcp_job watch = { .o = o, .err = o->err ? o->err : stderr };
	struct rusage ru0 = { 0 };
	int r;

	getrusage(RUSAGE_SELF, &ru0);
	pthread_mutex_init(&watch.err_lock, NULL);
	if (fcp_obs_open(&watch, srcs, nsrc, dst) < 0) {
		memset(stats, 0, sizeof(*stats));
		return FCP_EXIT_USAGE;
	}
	r = run(o, srcs, nsrc, dst, stats, watch.obs);
	usage(stats, &ru0);
	r = fcp_obs_close(&watch, stats, r);
	pthread_mutex_destroy(&watch.err_lock);
	return r;
}
