#!/bin/bash
# cp's --sparse=auto|always|never (issue 20), beside GNU cp: auto (the
# default) keeps the source's holes; always also makes holes of blocks of
# zeros; never writes every hole as zeros. The holes are compared
# (treecmp compares data extents) with GNU cp's on the same input.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

truncate -s 1M "$T/probe"
[ -n "$("$TREECMP" --holes "$T/probe" 2>/dev/null | head -1)" ] &&
	[ "$(stat -c %b "$T/probe")" = 0 ] || skip "no holes on the filesystem of $T"

setup() {
	mkdir src
	# data, a hole, data, a trailing hole
	head -c 65536 /dev/urandom >src/holes
	truncate -s 1114112 src/holes
	head -c 65536 /dev/urandom >>src/holes
	truncate -s 2228224 src/holes
	# zeros written out: data to auto, holes to always
	{ head -c 8192 /dev/urandom; head -c 1048576 /dev/zero; echo end; } >src/zeros
	head -c 1048576 /dev/zero >src/allzero
	head -c 300000 /dev/urandom >src/dense
}
# A large file is copied in chunks: not with never (140 MB written).
setup_big() { setup; truncate -s 70M src/bigsparse; echo tail >>src/bigsparse; }

for opts in "" "--sparse=auto" "--sparse=always" "--sparse=never"; do
	cp_twins $([ "$opts" = --sparse=never ] && echo setup || echo setup_big)
	cp_both $opts src out
	cp_same
done
cp_twins setup
cp_both --sparse=always src out
[ "$(stat -c %b "$T/fcp/out/zeros")" -lt 100 ] || fail "--sparse=always: zeros written"
cp_both --sparse=never src/holes never
[ "$(stat -c %b "$T/fcp/never")" -ge 4352 ] || fail "--sparse=never: holes kept"
run_fcp --sparse=sometimes src out
check_rc 2
run_fcp --sparse=never --reflink=always src out
check_rc 2
echo PASS
