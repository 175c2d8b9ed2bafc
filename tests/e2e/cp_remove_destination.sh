#!/bin/bash
# cp's --remove-destination and -f/--force (issue 20), beside GNU cp:
# fastcp always replaces a destination file whole (a new inode renamed
# over it), which is what --remove-destination asks of cp: a hard link of
# the old file elsewhere keeps the old data, a symlink in the way is
# replaced, not written through. Plain cp writes into the old inode
# instead (fastcp(1), "Differences from cp").
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p src out keep
	echo new >src/a; echo new >src/b; echo new >src/c
	echo old >out/a; ln out/a keep/a-link          # another name of the old file
	echo target >keep/target; ln -s ../keep/target out/b  # a symlink in the way
	echo old >out/c; chmod 444 out/c                # not writable
}

for opts in "--remove-destination" "--remove-destination -f"; do
	cp_twins setup
	cp_both $opts -T src out
	cp_same
	check_eq "$(cat "$T/fcp/keep/a-link")/$(cat "$T/fcp/keep/target")" old/target "$opts"
done
# cp -f replaces what it cannot open for writing; fastcp, everything.
for opts in "-f" "--force"; do
	cp_twins setup
	cp_both $opts src/c out/c
	cp_same
done
# Without it, cp writes through: fastcp does not (the difference).
cp_twins setup
cp_both -T src out
check_eq "$(cat "$T/gnu/keep/target")" new "cp writes through a symlink"
check_eq "$(cat "$T/fcp/keep/target")" target "fastcp replaces the symlink"
check_eq "$(cat "$T/fcp/keep/a-link")" old "fastcp replaces the file"
echo PASS
