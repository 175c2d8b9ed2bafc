/*
 * meta.c - apply owner, xattrs, mode and times to a new inode.
 */
#include "dest/meta.h"
#include "core/node.h"
#include "base/sys.h"

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

static void warn(struct fcp_job *job, enum fcp_warn_kind k, struct fcp_dir *d, const char *name,
		 int err)
{
	char *p = fcp_dir_src_path(d, name);
	fcp_report_warn(job, k, p, err);
	free(p);
}

/* An inode we did not open is named in its directory (struct fcp_at): the
 * sys layer's xattr calls take both forms. */
#define AT(a) (a).fd, (a).dirfd, (a).name

static enum fcp_warn_kind xattr_kind(const char *key)
{
	if (!strncmp(key, "system.posix_acl_", 17))
		return FCP_WARN_ACL;
	if (!strncmp(key, "security.", 9))
		return FCP_WARN_LABEL;
	return FCP_WARN_XATTR;
}

/* XFS lists a POSIX ACL twice, as system.posix_acl_* and as the
 * attribute it keeps it in, trusted.SGI_ACL_FILE or _DEFAULT (as root).
 * That one is the same ACL: copied, compared and removed as
 * system.posix_acl_*, never by this name (removing it removes the ACL,
 * and another filesystem does not have it). */
static bool acl_mirror(const char *key)
{
	return !strcmp(key, "trusted.SGI_ACL_FILE") || !strcmp(key, "trusted.SGI_ACL_DEFAULT");
}

/* The marks fastcp puts on its copies are no metadata of the source: not
 * compared, and never removed as xattrs the source lacks. A move's copy
 * whose source is not all removed yet keeps FCP_MOVE_MARKER and
 * FCP_MOVED_MARKER (a re-run that
 * set a directory's metadata dropped it, and the run after it put the rest
 * into DEST/SOURCE). A hidden copy taken up by --sync has its metadata set
 * before its rename: dropping FCP_ROOT_MARKER there left it hidden and
 * unmarked for a kill in between, which no later run takes up. The root
 * marks are taken off by name after the rename (dest.c), and a stale one
 * by the run that goes on into that copy (job.c). */
static bool own_mark(const char *key)
{
	return !strcmp(key, FCP_MOVE_MARKER) || !strcmp(key, FCP_MOVED_MARKER) ||
	       !strcmp(key, FCP_ROOT_MARKER) || !strcmp(key, FCP_DONE_MARKER);
}

/* Is key a part the job keeps? The SELinux label is its own part (cp's
 * "context"): -Z leaves it to the policy, every other xattr comes with
 * "xattr". A part not kept is neither copied, compared nor removed. */
static bool kept_key(unsigned keep, const char *key)
{
	return (keep & (strcmp(key, "security.selinux") ? FCP_PRESERVE_XATTR
							  : FCP_PRESERVE_CONTEXT)) != 0;
}

static bool listed(const char *list, size_t n, const char *key)
{
	for (size_t off = 0; off < n; off += strlen(list + off) + 1)
		if (!strcmp(list + off, key))
			return true;
	return false;
}

/* A new inode in a directory with a default ACL got ACLs of its own at
 * creation; the copy must have only those of its source. */
static void drop_inherited(struct fcp_job *job, struct fcp_at at, const char *list, size_t n,
			   struct fcp_dir *d, const char *name)
{
	static const char *const acls[] = { "system.posix_acl_access", "system.posix_acl_default" };

	for (int i = 0; i < 2; i++) {
		int r = listed(list, n, acls[i]) ? 0 : fcp_sys_removexattr(AT(at), acls[i]);
		if (r < 0 && r != -ENODATA && r != -EOPNOTSUPP)
			warn(job, FCP_WARN_ACL, d, name, r);
	}
}

/* An inode brought up to date (--sync) keeps no xattr its source lacks. */
static void drop_extra(struct fcp_job *job, struct fcp_at at, const char *list, size_t n,
		       struct fcp_dir *d, const char *name)
{
	unsigned keep = job->o->preserve;
	char *have = NULL;
	ssize_t m = fcp_sys_listxattr(AT(at), &have);

	for (ssize_t off = 0; m > 0 && off < m; off += strlen(have + off) + 1) {
		const char *key = have + off;
		int r = listed(list, n, key) || acl_mirror(key) || own_mark(key) ||
				!kept_key(keep, key)
				? 0 : fcp_sys_removexattr(AT(at), key);

		if (r < 0 && r != -ENODATA)
			warn(job, xattr_kind(key), d, name, r);
	}
	free(have);
}

/* A source without xattrs at all (its filesystem keeps none), or one
 * gone between list and get: nothing to read, no failure. */
static bool none_to_read(ssize_t r)
{
	return r == -EOPNOTSUPP || r == -ENOTSUP || r == -ENODATA;
}

/* Copy every xattr of src the job keeps (the label only with
 * FCP_PRESERVE_CONTEXT, the others with FCP_PRESERVE_XATTR) onto dst.
 * True if an access ACL was set (which moves the mode's group bits);
 * *lost_acl if src has one that dst did not take; *read_err the -errno of
 * a failure to read src's (0 if none). One dst does not take is a warning,
 * but under --move its kind goes to *lost and its -errno to *lost_err
 * (the first one only): the source must stay (fcp_meta_copy). */
static bool copy_xattrs(struct fcp_job *job, struct fcp_at src, struct fcp_at dst,
			struct fcp_dir *d, const char *name, bool *lost_acl, int *read_err,
			int *lost, int *lost_err)
{
	char *list = NULL;
	bool acl = false;
	ssize_t n = fcp_sys_listxattr(AT(src), &list);

	*lost_acl = false;
	*read_err = n < 0 && !none_to_read(n) ? (int)n : 0;
	for (ssize_t off = 0; n > 0 && off < n && !*read_err; off += strlen(list + off) + 1) {
		const char *key = list + off;
		void *val = NULL;
		ssize_t len = acl_mirror(key) || !kept_key(job->o->preserve, key)
				      ? -ENODATA : fcp_sys_getxattr(AT(src), key, &val);
		int r = len < 0 ? (int)len : fcp_sys_setxattr(AT(dst), key, val, len);
		bool access = !strcmp(key, "system.posix_acl_access");

		if (len < 0 && !none_to_read(len))
			*read_err = (int)len;
		else if (r < 0 && r != -ENODATA && job->o->move && !*lost_err)
			*lost = xattr_kind(key), *lost_err = r; /* fcp_meta_copy */
		else if (r < 0 && r != -ENODATA && !job->o->move)
			warn(job, xattr_kind(key), d, name, r);
		acl |= access && r >= 0;
		*lost_acl |= access && r < 0 && r != -ENODATA;
		free(val);
	}
	if (*read_err) {
		free(list);
		return acl;
	}
	if (dst.inherited && (job->o->preserve & FCP_PRESERVE_XATTR))
		drop_inherited(job, dst, list, n > 0 ? n : 0, d, name);
	if (dst.exact_xattrs && n >= 0)
		drop_extra(job, dst, list, n, d, name);
	free(list);
	return acl;
}

/* Both lists hold the same keys with the same values. */
static bool values_same(unsigned keep, struct fcp_at a, const char *alist, ssize_t an,
			struct fcp_at b, const char *blist, ssize_t bn)
{
	size_t count_a = 0, count_b = 0;
	bool same = true;

	for (ssize_t off = 0; off < bn; off += strlen(blist + off) + 1)
		count_b += !acl_mirror(blist + off) && !own_mark(blist + off) &&
			   kept_key(keep, blist + off);
	for (ssize_t off = 0; same && off < an; off += strlen(alist + off) + 1) {
		const char *key = alist + off;
		void *va = NULL, *vb = NULL;
		ssize_t la, lb;

		if (acl_mirror(key) || own_mark(key) || !kept_key(keep, key))
			continue;
		la = fcp_sys_getxattr(AT(a), key, &va);
		lb = fcp_sys_getxattr(AT(b), key, &vb);
		count_a++;
		same = la >= 0 && lb == la && (la == 0 || !memcmp(va, vb, la));
		free(va);
		free(vb);
	}
	return same && count_a == count_b;
}

bool fcp_meta_xattrs_same(unsigned keep, struct fcp_at a, struct fcp_at b)
{
	char *alist = NULL, *blist = NULL;
	ssize_t an = fcp_sys_listxattr(AT(a), &alist);
	ssize_t bn = fcp_sys_listxattr(AT(b), &blist);
	bool same;

	if (an == -EOPNOTSUPP)
		an = 0;
	if (bn == -EOPNOTSUPP)
		bn = 0;
	same = an >= 0 && bn >= 0 && values_same(keep, a, alist, an, b, blist, bn);
	free(alist);
	free(blist);
	return same;
}

/* The on-disk form of an access ACL (system.posix_acl_access): a version
 * word, then entries, all little-endian. */
struct acl_entry {
	uint16_t tag, perm;
	uint32_t id;
};
#define ACL_TAG_GROUP_OBJ 0x04
#define ACL_TAG_MASK 0x10

/*
 * mode for a copy that does not get src's access ACL. With an ACL, the
 * mode's group bits are the mask, the rights of the named users and groups
 * together: kept as they are, they would hand all of those to the owning
 * group. The owning group gets its own entry, as far as the mask let it
 * through: never more than it had. Without an ACL (or a mask), mode stays.
 */
static mode_t without_acl(struct fcp_at src, mode_t mode)
{
	void *val = NULL;
	ssize_t n = fcp_sys_getxattr(AT(src), "system.posix_acl_access", &val);
	int group = -1, mask = -1;

	for (ssize_t off = 4; n > 0 && off + (ssize_t)sizeof(struct acl_entry) <= n;
	     off += sizeof(struct acl_entry)) {
		struct acl_entry e;
		memcpy(&e, (char *)val + off, sizeof(e));
		if (le16toh(e.tag) == ACL_TAG_GROUP_OBJ)
			group = le16toh(e.perm) & 7;
		else if (le16toh(e.tag) == ACL_TAG_MASK)
			mask = le16toh(e.perm) & 7;
	}
	free(val);
	if (group < 0 || mask < 0)
		return mode;
	return (mode & ~(mode_t)S_IRWXG) | (mode_t)((group & mask) << 3);
}

mode_t fcp_meta_create_mode(const struct fcp_job *job, const struct statx *st,
			    const struct fcp_dir *d)
{
	mode_t want = st->stx_mode & 07777;

	if (!(job->o->preserve & FCP_PRESERVE_MODE) || !d->created || d->gives_acl)
		return 0;
	if (st->stx_uid != job->euid || st->stx_gid != job->egid)
		return 0; /* a chown or a setgid rule will act on it */
	if ((want & 07000) || (want & job->umask) || !(want & S_IWUSR))
		return 0;
	return want;
}

static int chown_at(struct fcp_at dst, uid_t uid, gid_t gid)
{
	if (dst.fd >= 0)
		return fcp_sys_fchown(dst.fd, uid, gid);
	return fcp_sys_fchownat(dst.dirfd, dst.name, uid, gid, AT_SYMLINK_NOFOLLOW);
}

#define GROUPS_MAX 64

/* What the job's owner changes depend on (job->meta), read once before
 * the workers start. */
struct fcp_meta_state {
	int ngroups; /* supplementary groups; -1: too many to hold, every
			group is tried */
	gid_t groups[GROUPS_MAX];
};

int fcp_meta_init(struct fcp_job *job)
{
	job->meta = calloc(1, sizeof(*job->meta));
	if (!job->meta)
		return -ENOMEM;
	job->meta->ngroups = fcp_sys_getgroups(GROUPS_MAX, job->meta->groups);
	return 0;
}

void fcp_meta_free(struct fcp_job *job)
{
	free(job->meta);
	job->meta = NULL;
}

/* May we give gid without being root? Unknown counts as yes. */
static bool in_group(const struct fcp_job *job, gid_t gid)
{
	const struct fcp_meta_state *m = job->meta;

	if (gid == job->egid || m->ngroups < 0)
		return true;
	for (int i = 0; i < m->ngroups; i++)
		if (m->groups[i] == gid)
			return true;
	return false;
}

/* Owner and group; where the owner cannot be given (not root), the group
 * still can if we are a member of it, as cp does: asked only then, since
 * for another group it could only fail too. The result is the full
 * change's: the owner is lost either way. */
static int set_owner(const struct fcp_job *job, struct fcp_at dst, const struct statx *st)
{
	int r = chown_at(dst, st->stx_uid, st->stx_gid);

	if ((r == -EPERM || r == -EINVAL) && in_group(job, st->stx_gid))
		chown_at(dst, (uid_t)-1, st->stx_gid);
	return r;
}

static int set_mode(struct fcp_at dst, mode_t mode)
{
	if (dst.fd >= 0)
		return fcp_sys_fchmod(dst.fd, mode);
	return fcp_sys_fchmodat_nofollow(dst.dirfd, dst.name, mode);
}

static int set_times(struct fcp_at dst, const struct statx *st)
{
	struct timespec ts[2] = {
		{ st->stx_atime.tv_sec, st->stx_atime.tv_nsec },
		{ st->stx_mtime.tv_sec, st->stx_mtime.tv_nsec },
	};
	if (dst.fd >= 0)
		return fcp_sys_futimens(dst.fd, ts);
	return fcp_sys_utimensat(dst.dirfd, dst.name, ts, AT_SYMLINK_NOFOLLOW);
}

static const char *lost_what[FCP_WARN_KINDS] = {
	[FCP_WARN_XATTR] = "cannot move without losing the extended attributes of",
	[FCP_WARN_ACL] = "cannot move without losing the ACLs of",
	[FCP_WARN_LABEL] = "cannot move without losing the security label of",
};

int fcp_meta_copy(struct fcp_job *job, struct fcp_at src, struct fcp_at dst,
		  const struct statx *st, struct fcp_dir *d, const char *name)
{
	unsigned keep = job->o->preserve;
	bool lnk = S_ISLNK(st->stx_mode);
	mode_t mode = st->stx_mode & 07777;
	bool acl = false, lost_acl = false;
	int r, read_err = 0, lost = 0, lost_err = 0;

	if ((keep & FCP_PRESERVE_OWNER) &&
	    !(dst.ours && st->stx_uid == job->euid && st->stx_gid == job->egid)) {
		r = set_owner(job, dst, st);
		/* Like cp: an owner we cannot give means the setuid/setgid
		 * bits must not survive either. Not root: silently skipped. */
		if (r < 0) {
			mode &= ~(S_ISUID | S_ISGID);
			if (job->is_root)
				warn(job, FCP_WARN_OWNER, d, name, r);
		}
	} else if (!(keep & FCP_PRESERVE_OWNER) &&
		   (st->stx_uid != job->euid || st->stx_gid != job->egid)) {
		mode &= ~(S_ISUID | S_ISGID);
	}
	if (keep & (FCP_PRESERVE_XATTR | FCP_PRESERVE_CONTEXT))
		acl = copy_xattrs(job, src, dst, d, name, &lost_acl, &read_err, &lost, &lost_err);
	/* --move: what DEST cannot hold would be gone with the source. The
	 * copy stays (all else of it is right), and so does the source:
	 * the item fails, named; --no-preserve=xattr moves it without. */
	if (lost_err && !read_err) {
		fcp_move_keep(job, st);
		fcp_report_failed_in(job, lost_what[lost], d, name, false, lost_err);
	}
	/* Not asked when xattrs are kept and the ACL came along (or there
	 * was none): one more call per file only where ACLs are left out. */
	if ((keep & FCP_PRESERVE_MODE) && !lnk && (lost_acl || !(keep & FCP_PRESERVE_XATTR)))
		mode = without_acl(src, mode);
	/* As cp: without mode preservation a copy gets a new file's default
	 * mode (execute bits only for directories), and a directory that was
	 * there already keeps its own: widening it would open to others what
	 * its owner had closed. */
	if (!(keep & FCP_PRESERVE_MODE))
		mode = (S_ISDIR(st->stx_mode) ? 0777 : 0666) & ~job->umask;
	/* Created with these very bits (fcp_meta_create_mode): nothing to do. */
	if (!lnk && !(dst.mode && dst.mode == mode && !acl) &&
	    !(dst.existed && !(keep & FCP_PRESERVE_MODE))) {
		r = set_mode(dst, mode);
		if (r < 0)
			warn(job, FCP_WARN_MODE, d, name, r);
	}
	if (keep & FCP_PRESERVE_TIMES) {
		r = set_times(dst, st);
		if (r < 0)
			warn(job, FCP_WARN_TIMES, d, name, r);
	}
	/* The rest is set all the same: a directory that fails so still
	 * gets its mode and times. */
	return read_err;
}
