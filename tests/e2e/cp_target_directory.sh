#!/bin/bash
# cp's -t DIR/--target-directory and --strip-trailing-slashes (issue 20),
# beside GNU cp: -t copies every operand into DIR, which must be a
# directory (not there, or a file: an error, nothing copied); with
# --strip-trailing-slashes "link/" names the symlink itself, not the
# directory it leads to.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p d/sub out
	echo a >a; echo b >b; echo c >d/sub/c
	ln -s d dlink
	echo file >notdir
}

for cmd in "-t out a b d" "--target-directory=out a" "--target-directory out d dlink" \
	   "a -t out d" "-t out dlink/" "--strip-trailing-slashes -t out dlink/ d///" \
	   "--strip-trailing-slashes dlink/ out" "--strip-trailing-slashes dlink/ new" \
	   "dlink/ new" "-t nothere a" "-t notdir a" "-t dlink a"; do
	cp_twins setup
	cp_both $cmd
	cp_same
done
check_file "$T/fcp/d/a" "-t dlink: into the directory it leads to"
run_fcp -t out -T a b
check_rc 2
run_fcp -t out # cp says 1 for bad usage, fastcp 2
check_rc 2
echo PASS
