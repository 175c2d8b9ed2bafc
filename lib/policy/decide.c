/*
 * decide.c - the decision for one entry (decide.h).
 *
 * The quick check is rsync's: the same type, size and mtime to the
 * nanosecond mean the same data. --checksum decides the data by content
 * instead (for entries of the same size). Same data, the metadata the job
 * preserves is compared: mode, owner (as root: only root can give it),
 * mtime, xattrs. atime is not compared: reading a copy moves it.
 *
 * Every function here is a function of its arguments alone: it calls
 * nothing that reads or writes, so that each decision can be tested from
 * a table (tests/unit/decide.c).
 */
#include "policy/decide.h"
#include "core/observe.h"

/* An answer known (1 or 0), or the question to ask (-FCP_Q_*). */
static int known(const struct fcp_facts *f, enum fcp_question q)
{
	return f->answer[q] > 0 ? 1 : f->answer[q] < 0 ? 0 : -(int)q;
}

static struct fcp_decision act(enum fcp_action a)
{
	return (struct fcp_decision){ .act = a, .ask = FCP_Q_NONE };
}

static struct fcp_decision ask(int q)
{
	return (struct fcp_decision){ .act = FCP_ACT_COPY, .ask = (enum fcp_question)-q };
}

static bool same_time(const struct statx_timestamp *a, const struct statx_timestamp *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

bool fcp_decide_compares(const struct fcp_options *o)
{
	return o->sync || o->checksum;
}

/* cp's options that decide what happens to a file already there. */
static bool guarding(const struct fcp_options *o)
{
	return o->update != FCP_UPDATE_ALL || o->interactive || o->backup != FCP_BACKUP_NONE ||
	       o->attributes_only || o->in_place;
}

bool fcp_decide_looks(const struct fcp_options *o, bool may_exist, bool taken_up, bool to_decide)
{
	if (o->dry_run || ((fcp_decide_compares(o) || taken_up) && may_exist))
		return true;
	return !to_decide && guarding(o) && may_exist;
}

bool fcp_decide_run_looks(const struct fcp_options *o, bool may_exist, bool taken_up)
{
	return may_exist && (fcp_decide_compares(o) || taken_up || guarding(o));
}

unsigned fcp_decide_meta_diff(const struct fcp_options *o, bool is_root, const struct statx *st,
			      const struct statx *dst)
{
	unsigned keep = o->preserve, diff = 0;

	if ((keep & FCP_PRESERVE_MODE) && !S_ISLNK(st->stx_mode) &&
	    (st->stx_mode & 07777) != (dst->stx_mode & 07777))
		diff |= FCP_PRESERVE_MODE;
	if ((keep & FCP_PRESERVE_OWNER) && is_root &&
	    (st->stx_uid != dst->stx_uid || st->stx_gid != dst->stx_gid))
		diff |= FCP_PRESERVE_OWNER;
	if ((keep & FCP_PRESERVE_TIMES) && !same_time(&st->stx_mtime, &dst->stx_mtime))
		diff |= FCP_PRESERVE_TIMES;
	return diff;
}

/* The metadata the job would give the copy is there already: 1, 0, or
 * the xattrs to compare, asked last since only they need a read. */
static int meta_same(const struct fcp_options *o, const struct fcp_facts *f)
{
	if (fcp_decide_meta_diff(o, f->is_root, f->src, f->dst))
		return 0;
	if (!(o->preserve & (FCP_PRESERVE_XATTR | FCP_PRESERVE_CONTEXT)))
		return 1;
	return known(f, FCP_Q_XATTRS);
}

int fcp_decide_data_same(const struct fcp_options *o, const struct fcp_facts *f)
{
	const struct statx *st = f->src, *dst = f->dst;

	switch (st->stx_mode & S_IFMT) {
	case S_IFREG:
		if (st->stx_size != dst->stx_size)
			return 0;
		/* Any error reading either side answers no. */
		if (o->checksum)
			return known(f, FCP_Q_CONTENT);
		/* --size-only: the size alone, as rsync's; never inside a
		 * copy taken up, whose file cut short has its full size
		 * (made so first) and only its mtime not set yet. */
		if (!(o->size_only && !f->taken_up) && !same_time(&st->stx_mtime, &dst->stx_mtime))
			return 0;
		/* --move trusts the quick check only once the content agrees
		 * too: a file of the same name, size and mtime but other
		 * bytes (a camera's numbering started again) would let its
		 * source go. */
		return o->move ? known(f, FCP_Q_CONTENT) : 1;
	case S_IFLNK:
		return known(f, FCP_Q_TARGET);
	case S_IFBLK:
	case S_IFCHR:
		return st->stx_rdev_major == dst->stx_rdev_major &&
		       st->stx_rdev_minor == dst->stx_rdev_minor;
	default:
		return 1;
	}
}

/* --sync with --dedup=hardlink: is the file there (more than one name,
 * another mtime than its source's) a name of the first copy of the
 * source's content, the same bytes? Its metadata is that first copy's:
 * up to date as it is. The inode carries the metadata of the name whose
 * mtime it has: that name (the first copy, or a source hard link) is
 * updated as usual, so a chmod of the first file's source still reaches
 * the copy; a name with another mtime is one of the others. */
static int linked_copy(const struct fcp_options *o, const struct fcp_facts *f)
{
	const struct statx *st = f->src, *dst = f->dst;

	if (o->dedup != FCP_DEDUP_HARDLINK || same_time(&st->stx_mtime, &dst->stx_mtime) ||
	    !S_ISREG(st->stx_mode) || !S_ISREG(dst->stx_mode) || dst->stx_nlink <= 1 ||
	    dst->stx_size != st->stx_size || st->stx_size == 0)
		return 0;
	return known(f, FCP_Q_CONTENT);
}

/* --move of several SOURCEs of one name, again into the copy a run before
 * left unfinished: DEST's regular file, which the source would replace,
 * stays where this run did not write it and its bytes are not the
 * source's: it may be all that is left of another SOURCE's file, whose
 * source that run removed (the later SOURCE's file wins in one run; run
 * again, the earlier one's would replace it). The source stays then too,
 * named by the prune. 1, 0, or the question to ask. */
static int move_keeps(const struct fcp_options *o, const struct fcp_facts *f)
{
	int w;

	if (!o->move || !f->move_rerun || !S_ISREG(f->dst->stx_mode) || !S_ISREG(f->src->stx_mode))
		return 0;
	if ((w = known(f, FCP_Q_WROTE)) != 0)
		return w < 0 ? w : 0;
	if (f->src->stx_size != f->dst->stx_size)
		return 1;
	w = known(f, FCP_Q_CONTENT);
	return w < 0 ? w : !w;
}

/* Is the file there at least as new as its source (-u keeps it)? */
static bool not_older(const struct statx *dst, const struct statx *st)
{
	const struct statx_timestamp *s = &st->stx_mtime, *t = &dst->stx_mtime;

	return t->tv_sec > s->tv_sec || (t->tv_sec == s->tv_sec && t->tv_nsec >= s->tv_nsec);
}

/*
 * cp's options on a non-directory about to be replaced by one (a directory
 * on either side goes the usual way, merged or replaced, except under -n,
 * which keeps whatever is there): -n and --update=none keep it,
 * --update=older keeps one not older than its source, -i asks.
 * --attributes-only gives a file of the same type the source's metadata
 * and keeps its data.
 */
static struct fcp_decision guard(const struct fcp_options *o, const struct fcp_facts *f,
				 enum fcp_action a)
{
	const struct statx *st = f->src, *dst = f->dst;
	int m;

	/* In a taken-up copy the files are fastcp's own unfinished work:
	 * cp's guards have nothing to keep. */
	if (a != FCP_ACT_REPLACE || f->taken_up)
		return act(a);
	/* -n keeps what is there whatever it is, as rsync's --ignore-existing
	 * does: a directory in the way of a file, a file in the way of a
	 * directory (fcp_settle_type_kept() says so), even with --delete. */
	if (o->update == FCP_UPDATE_NONE) {
		/* ... but a file a killed --in-place run left half rewritten
		 * is fastcp's own unfinished work, not the user's. */
		if (!S_ISREG(dst->stx_mode) || !S_ISREG(st->stx_mode))
			return act(FCP_ACT_KEEP);
		if ((m = known(f, FCP_Q_MARK)) < 0)
			return ask(m);
		return act(m ? a : FCP_ACT_KEEP);
	}
	if ((m = move_keeps(o, f)) != 0)
		return m < 0 ? ask(m) : act(FCP_ACT_KEEP);
	if (S_ISDIR(dst->stx_mode) || S_ISDIR(st->stx_mode))
		return act(a);
	/* A file a killed --in-place run left half rewritten has the time
	 * of its last write, newer than its source's: it is not kept. */
	if (o->update == FCP_UPDATE_OLDER && not_older(dst, st)) {
		if (!S_ISREG(dst->stx_mode))
			return act(FCP_ACT_KEEP);
		if ((m = known(f, FCP_Q_MARK)) < 0)
			return ask(m);
		if (!m)
			return act(FCP_ACT_KEEP);
	}
	/* The source itself there (made by -l): its metadata is already
	 * the source's, and a change would be one of the source. */
	if (o->attributes_only && S_ISREG(dst->stx_mode) && S_ISREG(st->stx_mode)) {
		if (fcp_statx_same_inode(st, dst))
			return act(FCP_ACT_SKIP);
		/* A file a killed --in-place run left half rewritten would
		 * lose its mark to the source's xattrs and look whole with
		 * the source's times: no metadata for it. REPLACE, which
		 * --attributes-only refuses (settle.c): it stays as it is,
		 * marked, and the item fails. */
		if ((m = known(f, FCP_Q_MARK)) < 0)
			return ask(m);
		return act(m ? FCP_ACT_REPLACE : FCP_ACT_META);
	}
	if (o->interactive && !o->dry_run) {
		if ((m = known(f, FCP_Q_USER)) < 0)
			return ask(m);
		if (!m)
			return act(FCP_ACT_KEEP);
	}
	return act(a);
}

/* Not the same data: copied again, unless it is a linked copy. */
static struct fcp_decision other_data(const struct fcp_options *o, const struct fcp_facts *f)
{
	int l = linked_copy(o, f);

	if (l < 0)
		return ask(l);
	return l ? act(FCP_ACT_SKIP) : guard(o, f, FCP_ACT_REPLACE);
}

struct fcp_decision fcp_decide(const struct fcp_options *o, const struct fcp_facts *f)
{
	const struct statx *st = f->src, *dst = f->dst;
	int same, m, l = 0;

	if (!dst || !fcp_decide_looks(o, f->may_exist, f->taken_up, false))
		return act(FCP_ACT_COPY);
	/* -l, -s make links, not copies: a file there with the source's
	 * bytes and times is still no link to it (a copy an earlier run made,
	 * which --sync, or going on into the same source's marked copy, would
	 * keep as up to date). */
	if (o->make != FCP_MAKE_COPY && !S_ISDIR(st->stx_mode)) {
		if (o->make == FCP_MAKE_HARDLINK)
			l = fcp_statx_same_inode(st, dst);
		else if ((l = known(f, FCP_Q_LINKED)) < 0)
			return ask(l);
		return l ? act(FCP_ACT_SKIP) : guard(o, f, FCP_ACT_REPLACE);
	}
	if ((dst->stx_mode & S_IFMT) != (st->stx_mode & S_IFMT))
		return guard(o, f, FCP_ACT_REPLACE);
	if (S_ISDIR(dst->stx_mode))
		return act(FCP_ACT_SKIP); /* its metadata: when it is finished */
	if (!fcp_decide_compares(o) && !f->taken_up)
		return guard(o, f, FCP_ACT_REPLACE);
	if ((same = fcp_decide_data_same(o, f)) < 0)
		return ask(same);
	/* A file a killed --in-place run left half rewritten is copied again,
	 * whatever its size and time say. */
	if (same && o->in_place) {
		if ((m = known(f, FCP_Q_MARK)) < 0)
			return ask(m);
		same = !m;
	}
	/* --check looks beyond the bytes (holes, hard links): so does the
	 * decision that --sync and -c take, so that the two agree. */
	if (same && S_ISREG(st->stx_mode)) {
		if ((m = known(f, FCP_Q_SHAPE)) < 0)
			return ask(m);
		same = !m;
	}
	if (!same)
		return other_data(o, f);
	if ((m = meta_same(o, f)) < 0)
		return ask(m);
	/* --dedup=hardlink: a name of another file's copy, with that one's
	 * metadata, is up to date when its bytes are. */
	if (!m && (l = linked_copy(o, f)) < 0)
		return ask(l);
	if (m || l)
		return act(FCP_ACT_SKIP);
	/* Metadata set in place would be set on the file's other names too:
	 * a source among them (a copy made by -l, another SOURCE of the same
	 * name), or a file outside DEST. A new file takes the name instead.
	 * (--attributes-only, which copies no data: settle.c refuses it.) */
	return act(dst->stx_nlink > 1 && !o->attributes_only ? FCP_ACT_REPLACE : FCP_ACT_META);
}

unsigned fcp_decide_changes(const struct fcp_options *o, const struct statx *s,
			    const struct statx *d, bool content)
{
	unsigned keep = o->preserve, c = 0;

	if ((s->stx_mode & S_IFMT) != (d->stx_mode & S_IFMT))
		return FCP_CHG_TYPE;
	if (S_ISREG(s->stx_mode) && s->stx_size != d->stx_size)
		c |= FCP_CHG_SIZE;
	if (content)
		c |= FCP_CHG_CONTENT;
	if ((keep & FCP_PRESERVE_TIMES) && !S_ISLNK(s->stx_mode) &&
	    (s->stx_mtime.tv_sec != d->stx_mtime.tv_sec ||
	     s->stx_mtime.tv_nsec != d->stx_mtime.tv_nsec))
		c |= FCP_CHG_TIME;
	if ((keep & FCP_PRESERVE_MODE) && !S_ISLNK(s->stx_mode) &&
	    (s->stx_mode & 07777) != (d->stx_mode & 07777))
		c |= FCP_CHG_PERMS;
	if ((keep & FCP_PRESERVE_OWNER) && s->stx_uid != d->stx_uid)
		c |= FCP_CHG_OWNER;
	if ((keep & FCP_PRESERVE_OWNER) && s->stx_gid != d->stx_gid)
		c |= FCP_CHG_GROUP;
	return c;
}
