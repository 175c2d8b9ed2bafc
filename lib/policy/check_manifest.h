/*
 * check_manifest.h - --check --manifest FILE DEST: DEST checked against
 * the manifest a copy kept (manifest.h), without its sources.
 */
#ifndef FCP_CHECK_MANIFEST_H
#define FCP_CHECK_MANIFEST_H

#include "core/job.h"

/* --check --manifest FILE DEST: every file recorded under DEST is read
 * again, each one changed or gone said as --check says it (and its hash,
 * found equal, recorded as verified now); one recorded without a hash is
 * counted as not compared. A manifest missing or empty, or none of whose
 * files is in DEST, is an error (exit 2). Returns an FCP_EXIT_* code. */
int fcp_manifest_verify(const struct fcp_options *o, const char *dest, struct fcp_stats *stats);

#endif
