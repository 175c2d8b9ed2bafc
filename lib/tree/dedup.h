/*
 * dedup.h - --dedup=reflink|hardlink: files of the copied set with the
 * same content are written once; the others become clones of (or hard
 * links to) that first copy.
 *
 * Same content means the same size, then the same XXH3-128, then the same
 * bytes, compared with the first copy right before it is cloned or linked:
 * a hash collision never merges two different files. Empty files are left
 * alone (nothing to save), as are the files --resume records.
 */
#ifndef FCP_DEDUP_H
#define FCP_DEDUP_H

#include "tree/entry.h"

int fcp_dd_init(struct fcp_job *job);
void fcp_dd_free(struct fcp_job *job);

/*
 * Before e (source open; hl: its hard-link entry as first name, or NULL)
 * is copied: sets e->dd_first and e->dd_from, then, under --dedup, hashes
 * the source and looks its content up. Returns true when the file is
 * settled here (hard-linked to its first copy, or queued behind the first
 * copy in flight: the source is closed and hl done then). Otherwise the
 * file is copied as usual: as the first copy of its content (e->dd_first),
 * as a clone of one (e->dd_from open), or on its own.
 */
bool fcp_dedup_settled(struct fcp_entry *e, struct fcp_hl_entry *hl);

/* The data step of a duplicate (e->dd_from >= 0, closed here, then -2
 * when it was cloned): FICLONE
 * from its first copy into out. Returns the bytes with *cloned set; 0 with
 * *cloned clear where the destination cannot clone (the caller copies;
 * counted for one note in the summary), or -errno. */
ssize_t fcp_dedup_clone(struct fcp_entry *e, int out, bool *cloned);

/* The end of e's copy (file.c): the first copy of a content is now in
 * place (ok) or not; the files queued behind it are started again. */
void fcp_dedup_done(struct fcp_worker *w, struct fcp_entry *e, bool ok);

/* --dry-run: the verb for a regular file e the plan would copy, "clone"
 * or "link" for a content seen before in this run, else NULL. */
const char *fcp_dedup_dry_verb(struct fcp_entry *e);

/* Do fds a and b hold the same len bytes from offset 0? buf holds cap
 * bytes (two halves are used). 1 yes, 0 no, or -errno. */
int fcp_dedup_same_bytes(int a, int b, uint64_t len, void *buf, size_t cap);

#endif
