/*
 * decide.h - the decision for one entry, as a pure function: what to do
 * with a source entry, given its statx, the statx of what is at its
 * destination and the options.
 *
 * Nothing here opens, reads or writes a file, and nothing needs a worker
 * or a thread: a table of statx pairs and options tests every branch
 * (tests/unit/decide.c). Where the two statx cannot tell (the bytes under
 * --checksum, a symlink's target, the xattrs, -i's answer), the decision
 * is a question instead; plan.c answers it by reading, and asks again.
 * The non-copy actions are carried out elsewhere (settle.c).
 */
#ifndef FCP_DECIDE_H
#define FCP_DECIDE_H

#include "core/job.h"

enum fcp_action {
	FCP_ACT_COPY,    /* nothing is there: copy */
	FCP_ACT_REPLACE, /* something else is there: copy again, rename over it */
	FCP_ACT_META,    /* the same data: update the metadata in place */
	FCP_ACT_SKIP,    /* up to date (a directory: go into it) */
	FCP_ACT_KEEP,    /* a file is there, to be kept (-n, -u, -i) */
};

/* What a decision may need that no statx tells. */
enum fcp_question {
	FCP_Q_NONE,
	FCP_Q_CONTENT, /* do the two hold the same bytes (XXH3-128)? */
	FCP_Q_TARGET,  /* do the two symlinks hold the same target? */
	FCP_Q_XATTRS,  /* do the two carry the same xattrs (ACLs, labels)? */
	FCP_Q_MARK,    /* does the file there carry the mark of a killed
			  --in-place run's half rewrite (file.c)? */
	FCP_Q_USER,    /* -i: may the file there be overwritten? */
	FCP_Q_WROTE,   /* did this run write the file there (--move)? */
	FCP_Q_LINKED,  /* -s: is the name there the symlink to the source
			  this run would make? */
	FCP_Q_SHAPE,   /* the same bytes, but is the file there not the
			  copy a fresh one would be (holes filled, or its
			  inode another source file's copy too: check.h)? */
	FCP_Q_COUNT,
};

/* What is known of one entry: the inputs of a decision. */
struct fcp_facts {
	const struct statx *src; /* the source's */
	const struct statx *dst; /* what DEST holds, or NULL: nothing there
				    (or nothing looked at) */
	bool may_exist;          /* its directory was there before the job,
				    or it is a root copy's own name */
	bool taken_up;           /* in a stopped run's copy, taken up
				    (leftover.c) */
	bool is_root;            /* owners are compared only as root */
	bool move_rerun;         /* --move of several SOURCEs of its name
				    again into a copy a run before left
				    unfinished (FCP_MOVE_MARKER) */
	signed char answer[FCP_Q_COUNT]; /* to each question: 1 yes, -1 no,
				    0 not asked yet */
};

/* An action, or (ask set) the question to answer first. */
struct fcp_decision {
	enum fcp_action act;
	enum fcp_question ask;
};

/* The decision for f under options o. Where ask is set, answer it in
 * f->answer and decide again: a question answered is never asked again,
 * and each is asked only where its answer changes the action. */
struct fcp_decision fcp_decide(const struct fcp_options *o, const struct fcp_facts *f);

/* Does the data of f's destination equal its source's? 1 yes, 0 no, or
 * -FCP_Q_* to answer first (fcp_decide's test of the data). */
int fcp_decide_data_same(const struct fcp_options *o, const struct fcp_facts *f);

/* Do the options compare what is there to tell whether it is up to date
 * (--sync, --checksum)? */
bool fcp_decide_compares(const struct fcp_options *o);

/* Must what is at an entry's name be looked at, in a directory that was
 * there (may_exist) or taken up? to_decide: only to tell whether it is
 * up to date (--sync, --checksum, --dry-run); else also to keep what is
 * there (cp's -n, -u, -i, --backup). Where not, every action is COPY. */
bool fcp_decide_looks(const struct fcp_options *o, bool may_exist, bool taken_up, bool to_decide);
/* Would the run itself look (to decide or to keep), whatever --dry-run
 * says? A dry run looks at every name, and must not say more than the run
 * would see there. */
bool fcp_decide_run_looks(const struct fcp_options *o, bool may_exist, bool taken_up);

/* The FCP_PRESERVE_* items the job keeps, but the xattrs, that differ
 * between src and dst (owners only as root). */
unsigned fcp_decide_meta_diff(const struct fcp_options *o, bool is_root, const struct statx *src,
			      const struct statx *dst);

/* What --itemize-changes says differed (FCP_CHG_*) between a source's st
 * s and what DEST holds, d; content: its bytes did. */
unsigned fcp_decide_changes(const struct fcp_options *o, const struct statx *s,
			    const struct statx *d, bool content);

#endif
