/*
 * entry.c - what to do with one source entry: dispatch by type.
 *
 * A regular file known from getdents is opened first and stat'ed through
 * its fd (two calls, and no window in which the name can be swapped for a
 * symlink between stat and open); anything else is stat'ed by name without
 * following symlinks (unless --symlinks=follow) and dispatched by type.
 */
#include "policy/check.h"
#include "engine/debug.h"
#include "dest/dest.h"
#include "base/device.h"
#include "tree/dirlink.h"
#include "tree/entry.h"
#include "tree/hooks.h"
#include "core/limiter.h"
#include "tree/links.h"
#include "base/path.h"
#include "dest/manifest.h"
#include "dest/meta.h"
#include "core/node.h"
#include "policy/plan.h"
#include "tree/settle.h"
#include "tree/srcmount.h"
#include "base/sys.h"
#include "core/observe.h"
#include "core/worker.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define STATX_WANT (STATX_BASIC_STATS)

void fcp_entry_fail(struct fcp_entry *e, const char *what, int err)
{
	fcp_report_failed_in(e->job, what, e->d, e->name, false, err);
	fcp_entry_stays(e);
}

void fcp_entry_stays(struct fcp_entry *e)
{
	if (!e->job->o->move || e->d->src_fd < 0)
		return;
	/* A file with other names stays with all of them where one failed,
	 * so that the same command links them again; with one name moved,
	 * the one left would be copied as a file of its own. */
	if (!S_ISDIR(e->st.stx_mode) && e->st.stx_nlink > 1)
		fcp_move_left_out(e->job, e->d->src_fd, e->name);
	else
		fcp_move_failed(e->job, e->d->src_fd, e->name);
}

/* Is the entry's symlink followed? Under -L all are; under -H those
 * named on the command line (the entries of a root's pseudo-directory). */
static bool following(const struct fcp_entry *e)
{
	return e->job->o->symlinks == FCP_SYMLINKS_FOLLOW ||
	       (e->d->is_top && e->job->o->deref_args);
}

/*
 * Why the directory st, an entry of d, must not be copied, or NULL. Under
 * --symlinks=follow it may be reached again through a link: an ancestor
 * with the same inode is a loop. And a link into the destination (or a
 * bind mount) may lead to a directory this job is copying into, the
 * entry's own or one above it: copying it would copy its own copy, deeper
 * each time, without end. One walk up the ancestors asks both; a loop is
 * named first.
 */
static const char *cycle(const struct fcp_dir *d, const struct statx *st,
			 const struct fcp_dir **ancestor)
{
	const char *why = NULL;

	*ancestor = NULL;
	/* (A directory given by another rank hangs below a top of depth 0
	 * that stands for the root copy: the root is looked at too.) */
	for (; d && (!d->is_top || d->depth == 0); d = d->parent) {
		if (fcp_statx_same_inode(&d->st, st)) {
			*ancestor = d;
			return "symlink loop at";
		}
		if (!why && d->dst_ino == st->stx_ino && d->dst_dev == fcp_statx_dev(st))
			why = "directory cycle, cannot copy the destination into itself:";
	}
	return why;
}

/* A directory that is its own ancestor, reached without a symlink, is a
 * directory bind-mounted inside itself: no errno says so (ELOOP reads "Too
 * many levels of symbolic links"), so the message does, as du's and
 * find's do. Returns false for a symlink loop, after reporting nothing. */
static bool filesystem_loop(struct fcp_entry *e, const struct fcp_dir *ancestor)
{
	struct statx st;
	char *p, *q;

	if (!ancestor)
		return false;
	/* Under -L the entry may be a symlink after all. */
	if (following(e) &&
	    (fcp_sys_statx(e->d->src_fd, e->name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) < 0 ||
	     S_ISLNK(st.stx_mode)))
		return false;
	p = fcp_dir_src_path(e->d, e->name);
	q = fcp_dir_src_path(ancestor, NULL);
	atomic_fetch_add(&e->d->root->failed, 1); /* not whole (fcp_dest_unhide) */
	fcp_report_failed_pair(e->job, "filesystem loop detected:", p, "is the same directory as", q);
	free(p);
	free(q);
	return true;
}

/* The node of a directory whose source (sfd) and copy (dfd) are open. */
static struct fcp_dir *dir_node(struct fcp_entry *e, int sfd, int dfd, bool created,
				const char *hidden_name, const struct statx *dst)
{
	struct fcp_dir *nd = calloc(1, sizeof(*nd));
	struct statx dst_st = *dst;

	if (!nd || !(nd->name = strdup(e->name)) ||
	    !(nd->dst_name = strcmp(e->name, e->dst_name) ? strdup(e->dst_name) : nd->name) ||
	    (hidden_name[0] && !(nd->hidden_name = strdup(hidden_name)))) {
		if (nd && nd->dst_name != nd->name)
			free(nd->dst_name);
		if (nd)
			free(nd->name);
		free(nd);
		return NULL;
	}
	/* Nobody sees into a root copy before it gets its name, nor into
	 * what this job makes inside it. One a killed run made (--sync) holds
	 * files of that run under final names: the usual way, then. */
	nd->hidden = created && (nd->hidden_name || e->d->hidden);
	nd->parent = e->d;
	nd->root = e->d->root;
	nd->src_fd = sfd;
	nd->dst_fd = dfd;
	nd->depth = e->d->depth + 1;
	nd->st = e->st;
	atomic_init(&nd->pending, 1);
	fcp_dir_fds_init(e->job, nd);
	nd->dst_dev = fcp_statx_dev(&dst_st);
	nd->said_chg = created ? 0 : (unsigned char)fcp_plan_changes(e->job->o, &e->st, &dst_st);
	nd->dst_ino = dst_st.stx_ino;
	nd->dst_mtime0 = dst_st.stx_mtime;
	/* New inodes get our euid/egid only if nothing is inherited: a
	 * setgid directory (made inside a setgid parent) passes its group. */
	nd->made = created;
	nd->created = created && dst_st.stx_gid == e->job->egid && !(dst_st.stx_mode & S_ISGID);
	/* A directory made here inherited its parent's default ACL and hands
	 * it on (its own source ACLs arrive only when it is finished); one
	 * that was already there is asked. */
	nd->gives_acl = created ? e->d->gives_acl : fcp_dest_has_default_acl(dfd);
	/* Asked again only where the source crosses onto another filesystem. */
	nd->rotational = e->d->is_top || fcp_statx_dev(&e->d->st) != fcp_statx_dev(&e->st)
				 ? fcp_dev_rotational(fcp_statx_dev(&e->st))
				 : e->d->rotational;
	return nd;
}

/* The copy of directory e where the plan found one (a SKIP): opened, not
 * made (-1 after a race: then it is made as usual). --dry-run: where the
 * copy would be new, say so and leave it at -1 with *created: everything
 * in it would be copied. */
static int planned_dir(struct fcp_entry *e, enum fcp_action a, bool *created)
{
	*created = a != FCP_ACT_SKIP;
	if (a == FCP_ACT_SKIP)
		return fcp_sys_openat(e->d->dst_fd, e->dst_name,
				      O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	if (e->job->o->check) {
		/* Missing, or another type; under -m a missing one may have
		 * been pruned: its source is walked to tell. */
		e->check_walk = fcp_check_dir_entry(e);
	} else if (e->job->o->dry_run && !e->job->o->prune_empty_dirs) {
		char *p = fcp_dir_dst_path(e->d, e->dst_name);
		fcp_report_plan_item(e->job, a == FCP_ACT_COPY ? "mkdir" : fcp_plan_verb(a), S_IFDIR,
				     p, 0, e->changes);
		free(p);
	}
	return -1;
}

static bool move_mount_point(struct fcp_entry *e, int dfd);

/* Open or make the copy of directory e, as the plan says: the one there
 * is opened; a new one is made (a root copy whole, under a temporary
 * name written to hidden_name) or, in a dry run, not made (-1). */
static int dir_copy_open(struct fcp_entry *e, bool *created, char hidden_name[FCP_TMPNAME_MAX])
{
	enum fcp_action a;
	int dfd = fcp_dirlink_open(e);

	hidden_name[0] = 0;
	/* -K: a symlink there to a directory is that directory (or refused,
	 * said): copied into as one that is there, a dry run too. --move
	 * finds the copies through it only where they went into it. */
	if (dfd != -ENOENT) {
		*created = false;
		if (dfd >= 0 && move_mount_point(e, dfd)) {
			close(dfd);
			return -ECANCELED;
		}
		if (dfd >= 0)
			fcp_move_followed(e->job, dfd);
		return dfd;
	}
	a = fcp_plan_entry(e);
	dfd = -1;
	/* A dry run names what would go to make room, before the mkdir,
	 * or the item's failure where the run could not make it. */
	if (a == FCP_ACT_REPLACE && e->job->o->dry_run && !fcp_settle_make_room(e))
		return -ECANCELED;
	/* What is in the way stays under -n (said, as the run says it). */
	if (a == FCP_ACT_KEEP && fcp_settle_type_kept(e))
		return -ECANCELED;
	if (a == FCP_ACT_SKIP || e->job->o->dry_run)
		dfd = planned_dir(e, a, created);
	if (e->job->o->dry_run)
		return dfd;
	if (a == FCP_ACT_REPLACE && !fcp_settle_make_room(e))
		return -ECANCELED;
	if (dfd < 0)
		dfd = e->d->is_top ? fcp_dest_mkdir_hidden(e->w, e->d->root, e->d->dst_fd,
							   e->dst_name, created, hidden_name)
				   : fcp_dest_mkdir(e->d->dst_fd, e->dst_name, created);
	return dfd;
}

/* --move into a directory of DEST that is a mount point (told by mount
 * id: a bind mount of the same filesystem counts): what is mounted there
 * lies outside DEST, perhaps the source itself, so its "copies" would let
 * their sources go. It is not entered, as --delete enters none, and the
 * source directory stays, named (exit 1). DEST itself may be one. True
 * after saying so. */
static bool move_mount_point(struct fcp_entry *e, int dfd)
{
	uint64_t up, here;

	if (!e->job->o->move || e->d->is_top || e->d->dst_fd < 0 ||
	    fcp_sys_mount_id(e->d->dst_fd, "", AT_EMPTY_PATH, &up) < 0 ||
	    (fcp_sys_mount_id(dfd, "", AT_EMPTY_PATH, &here) == 0 && here == up))
		return false;
	fcp_report_failed_in(e->job, "not moved into a mount point inside DEST:", e->d,
			     e->dst_name, true, 0);
	fcp_entry_stays(e);
	return true;
}

/* A directory of DEST that a mount shows there, and that is a SOURCE
 * directory, one inside it, or one holding a SOURCE (srcmount.h): what
 * would be copied into it would land in a source being read (--move
 * would let go of sources whose "copies" are themselves), and --delete
 * would take the source's own files. Not entered; the item fails, which
 * holds back the deletions above it. True after saying so. */
static bool source_mounted(struct fcp_entry *e, int dfd, const struct statx *dst)
{
	char *src, *p;
	bool holds;

	if (e->job->o->check || !fcp_srcmount_point(e->d->dst_fd, dfd, dst) ||
	    !(src = fcp_srcmount_find(e->job, dfd, dst, FCP_SRCMOUNT_HOLDS, &holds)))
		return false;
	p = fcp_dir_dst_path(e->d, e->dst_name);
	if (e->d->root)
		atomic_fetch_add(&e->d->root->failed, 1); /* not whole (fcp_dest_unhide) */
	atomic_store(&e->d->failed_in, true);
	fcp_report_failed_pair(e->job, FCP_SRCMOUNT_WHY, p, holds ? "holds" : "is", src);
	fcp_entry_stays(e);
	free(p);
	free(src);
	return true;
}

static void copy_dir(struct fcp_entry *e)
{
	struct fcp_item *scan;
	struct fcp_dir *nd;
	struct statx dst_st;
	char hidden_name[FCP_TMPNAME_MAX];
	bool created;
	const char *why;
	const struct fcp_dir *ancestor;
	int sfd, dfd;

	if ((why = cycle(e->d, &e->st, &ancestor))) {
		/* ELOOP's text is about symlinks: only a symlink loop has it;
		 * a cycle back into the copy (through a bind mount, or a
		 * symlink followed) is named as one. */
		if (!filesystem_loop(e, ancestor))
			fcp_entry_fail(e, why, ancestor ? -ELOOP : 0);
		return;
	}
	sfd = fcp_sys_openat(e->d->src_fd, e->name,
			     O_RDONLY | O_DIRECTORY | (following(e) ? 0 : O_NOFOLLOW), 0);
	if (sfd < 0) {
		fcp_entry_fail(e, "cannot open directory", sfd);
		return;
	}
	dfd = dir_copy_open(e, &created, hidden_name);
	/* Asked per directory: a destination may hold mount points. */
	if (dfd < 0 || fcp_sys_fstatx(dfd, &dst_st) < 0) {
		memset(&dst_st, 0, sizeof(dst_st));
		dst_st.stx_mode = S_ISGID; /* unknown: assume inheritance */
	}
	if (dfd >= 0 && !created &&
	    (source_mounted(e, dfd, &dst_st) || move_mount_point(e, dfd))) {
		close(dfd);
		dfd = -ECANCELED;
	}
	/* --check: a directory not there is one difference, not one per
	 * entry in it. */
	if (dfd == -ECANCELED || (dfd < 0 && created && e->job->o->check && !e->check_walk)) {
		/* what was in the way could not go: reported */
		close(sfd);
		return;
	}
	if (dfd < 0 && !(e->job->o->dry_run && created)) {
		/* Name the destination: that is where the obstacle is. A dry
		 * run (--check) creates nothing: the one there was opened. */
		close(sfd);
		fcp_report_failed_in(e->job, dfd == -ENOTDIR ? "cannot replace non-directory"
					     : e->job->o->dry_run ? "cannot read directory"
								  : "cannot create directory",
				     e->d, e->dst_name, true, dfd);
		fcp_entry_stays(e);
		return;
	}
	nd = dir_node(e, sfd, dfd, created, hidden_name, &dst_st);
	if (nd && hidden_name[0] && nd->root)
		fcp_dest_note_hidden(e->job, nd);
	if (!nd) {
		close(sfd);
		close(dfd);
		if (hidden_name[0])
			fcp_sys_unlinkat(e->d->dst_fd, hidden_name, AT_REMOVEDIR);
		fcp_entry_fail(e, "out of memory at", -ENOMEM);
		return;
	}
	/* Hard links re-open their first name's directory beneath the root
	 * copy, so the root keeps an fd of its own until the job ends. */
	if (nd->depth == 0 && nd->root->dst_fd < 0 && dfd >= 0 &&
	    (nd->root->dst_fd = fcp_sys_dup(dfd)) < 0)
		fcp_entry_fail(e, "cannot keep open the copy of", nd->root->dst_fd);
	/* Several ranks: the root copy is finished when they all are. */
	if (nd->depth == 0 && dfd >= 0)
		fcp_hook_root_made(e->job, nd);
	/* One that was there and is planned counts as unchanged or
	 * updated when it is finished (plan.c). */
	if (created || !(fcp_plan_decides(e->job, e->d) || fcp_plan_dir_compared(e->job))) {
		unsigned char how = !created ? FCP_SAY_META
				    : e->dst_mode ? FCP_SAY_REPLACED : FCP_SAY_MKDIR;
		/* -m may yet take it away: said when it is finished. */
		if (e->job->o->prune_empty_dirs && (!e->job->o->dry_run || created))
			nd->said_at_end = how;
		else if (!e->job->o->dry_run)
			fcp_dir_said(e->job, nd, how);
	}
	/* The parent's count for this entry passes to the new directory: it
	 * is released when the directory finishes, not now. */
	atomic_fetch_add(&e->d->pending, 1);
	scan = fcp_item_new(FCP_ITEM_SCAN, nd, "", NULL, DT_DIR);
	if (!scan) {
		fcp_entry_fail(e, "out of memory at", -ENOMEM);
		fcp_dir_release(e->w, nd);
		return;
	}
	fcp_sched_push(e->w, scan);
}

bool fcp_entry_links_kept(const struct fcp_entry *e)
{
	return (e->job->o->preserve & FCP_PRESERVE_LINKS) &&
	       (e->st.stx_nlink > 1 || (following(e) && S_ISREG(e->st.stx_mode)));
}

bool fcp_entry_hardlink(struct fcp_entry *e, struct fcp_hl_entry **hl)
{
	enum fcp_hl_state s;
	int r;

	*hl = NULL;
	if (!fcp_entry_links_kept(e))
		return false;
	/* Several ranks: its other names may be found by another; one rank
	 * copies them all once the tree is done (dist.c). */
	if (fcp_hook_defer_link(e))
		return true;
	s = fcp_hl_claim(e->job, &e->st, e->d, e->name, e->dst_name, hl);
	if (s == FCP_HL_FIRST)
		return false;
	if (s == FCP_HL_LINK && (r = fcp_hl_link(e->w, *hl, e->d, e->dst_name)) < 0)
		fcp_entry_fail(e, "cannot create hard link", r);
	else if (e->job->o->debug)
		fcp_debug_item(e->job, e->d, e->name, e->dst_name,
			       "hard link (another name of a source inode copied once)");
	return true;
}

static void count_link(struct fcp_entry *e, const char *target)
{
	struct fcp_counters *c = &e->job->c;
	char *rel = fcp_dir_rel_path(e->d);
	struct fcp_link_class k = fcp_link_classify(target, rel ? rel : "", e->d->root->src_abs);

	free(rel);
	atomic_fetch_add(k.absolute ? &c->links_absolute : &c->links_relative, 1);
	atomic_fetch_add(k.internal ? &c->links_internal : &c->links_external, 1);
}

static int make_symlink(int dirfd, const char *tmp, void *target)
{
	return fcp_sys_symlinkat(target, dirfd, tmp);
}

struct node_spec {
	mode_t mode;
	dev_t dev;
};

static int make_node(int dirfd, const char *tmp, void *arg)
{
	struct node_spec *n = arg;
	return fcp_sys_mknodat(dirfd, tmp, n->mode, n->dev);
}

/* Is the directory fd (O_PATH, closed here) the inode at, or below it?
 * Walked up by "..", which is never a symlink, to the root. */
static bool at_or_below(int fd, const struct statx *at)
{
	struct statx st, prev;
	bool hit = false;

	for (int i = 0; fd >= 0 && i < 4096 && !hit; i++) {
		int up;

		if (fcp_sys_fstatx(fd, &st) < 0 || (i && fcp_statx_same_inode(&st, &prev)))
			break;
		hit = fcp_statx_same_inode(&st, at);
		prev = st;
		up = fcp_sys_openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		close(fd);
		fd = up;
	}
	if (fd >= 0)
		close(fd);
	return hit;
}

/* The directory holding the non-directory fd (O_PATH), found by its path
 * in /proc (a file has no ".."), or -errno. */
static int parent_of(int fd)
{
	char link[48], *path, *slash;
	int r;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((r = fcp_sys_readlinkat(AT_FDCWD, link, &path)) < 0)
		return r;
	slash = strrchr(path, '/');
	if (path[0] != '/' || !slash) {
		r = -ENOENT;
	} else {
		slash[slash == path] = 0;
		r = fcp_sys_openat(AT_FDCWD, path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	}
	free(path);
	return r;
}

/* Is the directory to d's copy or one above it inside DEST? */
static bool above(const struct fcp_dir *d, const struct statx *to)
{
	for (; d && !d->is_top; d = d->parent)
		if (d->dst_ino == to->stx_ino && d->dst_dev == fcp_statx_dev(to))
			return true;
	return false;
}

/*
 * Is the symlink e about to take the place of what it points to: the very
 * file or directory there, something inside that directory, or a
 * directory above it in DEST? Copied or linked (-l), it would leave there
 * a link to itself, or delete (--delete) the directory it points into:
 * the bytes it leads to would be nowhere. The item is refused, as cp
 * refuses "the same file". It is judged by where the source's link leads
 * (the data the source reaches through it). A symlink there is only a
 * name: replacing it loses no data.
 */
static bool onto_its_target(struct fcp_entry *e)
{
	struct statx at, to;
	const char *why = NULL;
	int fd;

	if (fcp_sys_statx(e->d->dst_fd, e->dst_name, AT_SYMLINK_NOFOLLOW, STATX_WANT, &at) < 0 ||
	    S_ISLNK(at.stx_mode) || fcp_sys_statx(e->d->src_fd, e->name, 0, STATX_WANT, &to) < 0)
		return false;
	if (fcp_statx_same_inode(&to, &at))
		why = S_ISDIR(at.stx_mode) ? "not copied, a symlink to the directory it would replace:"
					   : "not copied, a symlink to the file it would replace:";
	else if (S_ISDIR(to.stx_mode) && above(e->d, &to))
		why = "not copied, a symlink to a directory above the entry it would replace:";
	/* Only a directory there has an inside: walked up from where the
	 * link leads (a directory, or the one holding the file). */
	if (!why && S_ISDIR(at.stx_mode) &&
	    (fd = fcp_sys_openat(e->d->src_fd, e->name, O_PATH | O_CLOEXEC, 0)) >= 0) {
		int from = S_ISDIR(to.stx_mode) ? fd : parent_of(fd);

		if (from != fd)
			close(fd);
		if (at_or_below(from, &at))
			why = "not copied, a symlink into the directory it would replace:";
	}
	if (!why)
		return false;
	fcp_report_failed_in(e->job, why, e->d, e->name, false, 0);
	fcp_entry_stays(e);
	return true;
}

/* Symlinks, devices, FIFOs, sockets: made under a temporary name (or their
 * own in a hidden directory), given their metadata by name, renamed into
 * place. */
static void copy_other(struct fcp_entry *e)
{
	struct node_spec spec = { (e->st.stx_mode & S_IFMT) | 0600,
				  makedev(e->st.stx_rdev_major, e->st.stx_rdev_minor) };
	bool lnk = S_ISLNK(e->st.stx_mode);
	char tmp[FCP_TMPNAME_MAX], *target = NULL, *rewritten = NULL;
	struct fcp_hl_entry *hl = NULL;
	const char *at = tmp;
	int r;

	if (e->job->o->make != FCP_MAKE_COPY) {
		fcp_entry_link(e);
		return;
	}
	if (fcp_entry_hardlink(e, &hl))
		return;
	if (lnk) {
		r = fcp_sys_readlinkat(e->d->src_fd, e->name, &target);
		if (r < 0) {
			fcp_entry_fail(e, "cannot read symlink", r);
			fcp_hl_done(e->w, hl, false);
			return;
		}
		count_link(e, target);
		if (e->job->o->symlinks == FCP_SYMLINKS_REWRITE &&
		    (rewritten = fcp_link_rewrite(target, e->d->root->src_abs, e->d->root->dst_abs)))
			atomic_fetch_add(&e->job->c.links_rewritten, 1);
		r = fcp_dest_make_for(e->w, e->d, e->dst_name, tmp, &at, make_symlink,
				      rewritten ? rewritten : target);
	} else {
		r = fcp_dest_make_for(e->w, e->d, e->dst_name, tmp, &at, make_node, &spec);
	}
	free(target);
	free(rewritten);
	if (r < 0) {
		fcp_entry_fail(e, lnk ? "cannot create symlink for" : "cannot create special file for", r);
		fcp_hl_done(e->w, hl, false);
		return;
	}
	struct fcp_at dst = FCP_AT_NAME(e->d->dst_fd, at);
	dst.inherited = e->d->gives_acl && !lnk;
	r = fcp_meta_copy(e->job, FCP_AT_NAME(e->d->src_fd, e->name), dst, &e->st, e->d, e->name);
	if (r < 0) {
		/* Not whole: no copy under the name, the item fails. */
		fcp_dest_discard(e->job, e->d, at);
		fcp_entry_fail(e, "cannot read the extended attributes of", r);
		fcp_hl_done(e->w, hl, false);
		return;
	}
	r = at == tmp ? fcp_dest_commit(e->job, e->d, tmp, e->dst_name) : 0;
	if (r < 0) {
		fcp_entry_fail(e, r == -EISDIR ? "cannot overwrite directory with" : "cannot rename", r);
		fcp_hl_done(e->w, hl, false);
		return;
	}
	atomic_fetch_add(lnk ? &e->job->c.symlinks : &e->job->c.specials, 1);
	/* What it replaced (a file the manifest recorded) is gone. */
	if (e->dst_mode)
		fcp_manifest_forget(e->job, e->d, e->dst_name, false);
	if (e->dst_mode)
		atomic_fetch_add(&e->job->c.replaced, 1);
	fcp_obs_item(e->job, e->dst_mode ? FCP_OBS_UPDATE : FCP_OBS_COPY, e->st.stx_mode, e->d,
		     e->name, e->dst_name, 0, NULL, e->changes);
	fcp_hl_done(e->w, hl, true);
}

/* Open-then-fstat for entries getdents called regular files. Returns 1 when
 * it handled the entry, 0 when the entry must go the stat-by-name way. */
static int try_open_regular(struct fcp_entry *e)
{
	/* A FIFO or device swapped in since getdents is not even opened
	 * (sys.c); O_NONBLOCK and O_NOCTTY stay as a second guard. */
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | (following(e) ? 0 : O_NOFOLLOW) |
		    (e->job->is_root ? O_NOATIME : 0);
	int fd;

	/* A dry run of a move that would rename the tree whole opens no
	 * file of it: the rename reads none (a file it cannot read moves). */
	if (e->d->root && e->d->root->dry_renamed) {
		fd = fcp_sys_statx(e->d->src_fd, e->name, AT_SYMLINK_NOFOLLOW, STATX_WANT, &e->st);
		if (fd < 0 || !S_ISREG(e->st.stx_mode))
			return 0;
		if (!fcp_settle_entry(e)) /* (a dry run settles every entry) */
			fcp_entry_fail(e, "cannot open", -EBADF);
		return 1;
	}
	fd = fcp_sys_open_regular(e->d->src_fd, e->name, flags, STATX_WANT, &e->st);
	if (fd < 0) {
		if (fd == -ELOOP || fd == -ENXIO)
			return 0; /* replaced by another type since getdents */
		if (!fcp_retry_later(e, fd))
			fcp_entry_fail(e, "cannot open", fd);
		return 1;
	}
	e->src_fd = fd;
	if (fcp_settle_entry(e))
		close(fd);
	else
		fcp_file_copy(e);
	return 1;
}

/* --copy-contents: a FIFO or device is read as a file, its data to end
 * of file becoming a regular file with its metadata. What is read is
 * what was stat'ed: a name swapped meanwhile is not. */
static void copy_contents(struct fcp_entry *e)
{
	int flags = O_RDONLY | O_NOCTTY | (following(e) ? 0 : O_NOFOLLOW) |
		    (e->job->is_root ? O_NOATIME : 0);
	int fd = fcp_sys_openat(e->d->src_fd, e->name, flags, 0);
	struct statx st;

	if (fd < 0) {
		fcp_entry_fail(e, "cannot open", fd);
		return;
	}
	if (fcp_sys_fstatx(fd, &st) < 0 || !fcp_statx_same_inode(&st, &e->st)) {
		close(fd);
		fcp_entry_fail(e, "changed type while being copied, not copied:", 0);
		return;
	}
	e->src_fd = fd;
	e->st.stx_mode = S_IFREG | (e->st.stx_mode & 07777);
	e->st.stx_size = e->st.stx_blocks = 0; /* read until end of file */
	e->st.stx_nlink = 1;
	if (fcp_settle_entry(e))
		close(fd);
	else
		fcp_file_copy(e);
}

static void dispatch(struct fcp_entry *e, unsigned char d_type)
{
	int sflags = following(e) ? 0 : AT_SYMLINK_NOFOLLOW;
	int r;

	if (d_type == DT_REG && try_open_regular(e))
		return;
	r = fcp_sys_statx(e->d->src_fd, e->name, sflags, STATX_WANT, &e->st);
	if (r < 0) {
		fcp_entry_fail(e, "cannot stat", r);
		return;
	}
	switch (e->st.stx_mode & S_IFMT) {
	case S_IFDIR:
		copy_dir(e);
		return;
	case S_IFREG:
		/* Regular by name, something else once opened, twice over: it
		 * is being swapped back and forth; nothing reliable to copy. */
		if (!try_open_regular(e))
			fcp_entry_fail(e, "changed type while being copied, not copied:", 0);
		return;
	case S_IFIFO:
		if (e->job->o->copy_contents) {
			copy_contents(e);
			return;
		}
		break;
	case S_IFLNK:
		if (e->job->o->symlinks == FCP_SYMLINKS_SKIP) {
			atomic_fetch_add(&e->job->c.skipped, 1);
			fcp_obs_entry(e->job, FCP_OBS_SKIP, S_IFLNK, e->d, e->name, 0, NULL);
			return;
		}
		/* Before the plan: nothing is backed up for it either. */
		if (!e->job->o->check && onto_its_target(e))
			return;
		break;
	case S_IFBLK:
	case S_IFCHR:
		if (e->job->o->copy_contents) {
			copy_contents(e);
			return;
		}
		/* --check creates nothing: it compares the device numbers. */
		if (!e->job->is_root && !e->job->o->check) {
			fcp_entry_fail(e, "cannot create device (not root) for", -EPERM);
			return;
		}
		break;
	}
	if (!fcp_settle_entry(e))
		copy_other(e);
}

static void copy_named(struct fcp_worker *w, struct fcp_dir *d, const char *name,
		       const char *dst_name, unsigned char d_type, int attempt)
{
	struct fcp_entry e = {
		.w = w,
		.job = fcp_worker_job(w),
		.d = d,
		.name = name,
		.dst_name = dst_name,
		.src_fd = -1,
		.attempt = attempt,
	};

	if (atomic_load(&e.job->stop))
		atomic_fetch_add(&e.job->c.not_copied, 1);
	else
		dispatch(&e, d_type);
}

void fcp_entry_copy_name(struct fcp_worker *w, struct fcp_dir *d, const char *name,
			 unsigned char d_type)
{
	copy_named(w, d, name, name, d_type, 0);
}

void fcp_entry_copy(struct fcp_worker *w, struct fcp_item *it)
{
	struct fcp_job *job = fcp_worker_job(w);
	struct fcp_retry *r = it->ctx;

	if (fcp_dir_pin(job, it->dir) == 0) {
		/* Stopped while it waited for its retry: its last failure stands. */
		if (r && atomic_load(&job->stop))
			fcp_report_failed_in(job, "cannot copy", it->dir, it->name, false, r->err);
		else
			copy_named(w, it->dir, it->name, it->dst_name ? it->dst_name : it->name,
				   it->d_type, r ? r->attempt : 0);
		fcp_dir_unpin(job, it->dir);
	}
	fcp_dir_release(w, it->dir);
	free(r);
	free(it);
}

void fcp_entry_requeue(struct fcp_worker *w, struct fcp_dir *d, const char *name,
		       const char *dst_name, unsigned char d_type)
{
	struct fcp_item *it = fcp_item_new(FCP_ITEM_ENTRY, d, name, dst_name, d_type);

	if (it) {
		fcp_sched_push(w, it);
		return;
	}
	fcp_report_failed_in(fcp_worker_job(w), "out of memory at", d, name, false, -ENOMEM);
	fcp_dir_release(w, d);
}
