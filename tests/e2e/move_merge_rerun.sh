#!/bin/bash
# --move a/x b/x DEST, then the same command again (found by the scenario
# tester, seed 7000221). The first run moves b/x's file into DEST/x and
# keeps a/x's, whose copy b/x's replaced. b/x is gone then; the second run
# copied a/x's file over DEST/x/f, the only copy left of b/x's, and removed
# a/x's: b/x's bytes were gone from everywhere. Now a SOURCE whose
# same-named sibling is missing is not moved (named, exit 1): every byte
# survives, on one filesystem and across two.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

# every_byte: the contents A and B are each somewhere under $T.
every_byte() {
	grep -rqx "content of a" "$T" --include=f || fail "$1: a/x's bytes are gone"
	grep -rqx "content of b" "$T" --include=f || fail "$1: b/x's bytes are gone"
}

for where in samefs tmpfs; do
	rm -rf a b D && mkdir -p a/x b/x D
	if [ "$where" = tmpfs ]; then
		[ "$(id -u)" = 0 ] || { note "not root: the tmpfs case is left out"; continue; }
		mount -t tmpfs fcpmerge D || fail "cannot mount a tmpfs"
		t_mounts_+=("$T/D")
	fi
	echo "content of a" >a/x/f
	echo "content of b" >b/x/f
	run_fcp --move a/x b/x D/
	check_rc 1 "$where: the first run keeps a/x's file (its copy replaced)"
	check_eq "$(cat D/x/f)" "content of b" "$where: the later SOURCE's file in DEST"
	check_eq "$(cat a/x/f)" "content of a" "$where: a/x's file kept"
	check_absent b/x
	every_byte "$where, first run"
	run_fcp --move a/x b/x D/
	check_rc 1 "$where: the same command again"
	check_grep "not moving 'a/x': another SOURCE named 'x' is missing" "$T/err"
	check_eq "$(cat D/x/f)" "content of b" "$where: b/x's moved file"
	check_eq "$(cat a/x/f)" "content of a" "$where: a/x's file"
	every_byte "$where, second run"

	# b/x is not all gone (its file 'keep' cannot replace a/x's
	# directory there), so no sibling is missing, and DEST/x was there
	# before the first run (found by the scenario tester, seed 12001833):
	# the second run copied a/x's f over the only copy of b/x's.
	rm -rf a b D/x && mkdir -p a/x/keep b/x D/x
	echo "content of a" >a/x/f
	echo k >a/x/keep/k
	echo "content of b" >b/x/f
	echo kb >b/x/keep
	run_fcp --move a/x b/x D/
	check_rc 1 "$where: a file in the way of a directory, and a/x's file replaced"
	check_eq "$(cat D/x/f)" "content of b" "$where: the later SOURCE's file in DEST"
	check_absent b/x/f
	every_byte "$where, first run into an existing DEST/x"
	run_fcp --move a/x b/x D/
	check_rc 1 "$where: the same command again"
	check_eq "$(cat D/x/f)" "content of b" "$where: b/x's moved file, kept"
	check_eq "$(cat a/x/f)" "content of a" "$where: a/x's file, kept"
	every_byte "$where, second run into an existing DEST/x"
	# All moved: the mark the run put on DEST/x goes with the sources.
	rm -rf a b D/x && mkdir -p a/x b/x D/x
	echo "content of a" >a/x/fa
	echo "content of b" >b/x/fb
	run_fcp --move a/x b/x D/
	check_rc 0 "$where: two SOURCEs of one name moved into an existing DEST/x"
	check_absent a/x
	check_absent b/x
	getfattr --absolute-names -d -m - D/x 2>/dev/null | grep -q 'user\.fastcp' &&
		fail "$where: a mark left on D/x after everything was moved"
	if [ "$where" = tmpfs ]; then umount D; fi
done
echo PASS
