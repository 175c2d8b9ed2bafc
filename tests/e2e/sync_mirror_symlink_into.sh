#!/bin/bash
# A source symlink that leads to the DEST entry it would replace, into it,
# or to a directory above it inside DEST: --mirror (--delete, --sync, a
# plain copy) deleted the directory there and put the link in its place,
# so that what the link leads to was gone. The item is refused, as for a
# file ("a symlink to the file it would replace"), in the dry run too;
# every byte there stays. A symlink to somewhere else still replaces a
# directory.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

# setup: dst/d with files, a copy of nothing else; src/d made by the case.
setup() {
	rm -rf src dst outside
	mkdir -p src dst/d/sub outside
	echo PRECIOUS >dst/d/p
	echo DEEP >dst/d/sub/q
	echo out >outside/o
}

# kept: dst/d and everything in it as setup made them, outside too.
kept() {
	check_dir dst/d "$1: the directory replaced"
	check_eq "$(cat dst/d/p dst/d/sub/q outside/o)" "$(printf 'PRECIOUS\nDEEP\nout')" \
		"$1: bytes lost"
}

# LINK-TARGET WHY: the link src/d -> LINK-TARGET is refused with WHY.
while read -r target why; do
	for opts in "--mirror" "--delete" "--dry-run --mirror" "--sync"; do
		setup
		ln -s "$target" src/d
		run_fcp $opts -T src dst
		check_rc 1 "$opts, src/d -> $target"
		check_grep "not copied, a symlink $why it would replace: 'src/d'" "$T/err"
		check_nogrep "^delete " "$T/out" "$opts, src/d -> $target: a deletion listed"
		kept "$opts, src/d -> $target"
	done
done <<EOF
../dst/d to the directory
$T/dst/d to the directory
../dst/d/sub into the directory
../dst/d/p into the directory
$T/dst/d/sub/q into the directory
../dst to a directory above the entry
EOF

# The same below DEST's top, and through a symlink in the link's path.
setup
mkdir -p src/a dst/a/b && echo AB >dst/a/b/f && ln -s ../dst src/via
ln -s ../../src/via/a/b src/a/b
run_fcp --mirror -T src dst
check_rc 1 "src/a/b -> the directory it replaces, through a symlink"
check_grep "not copied, a symlink to the directory it would replace: 'src/a/b'" "$T/err"
check_eq "$(cat dst/a/b/f)" AB "src/a/b: bytes lost"
kept "below DEST's top"

# A symlink to somewhere else still takes a directory's place.
setup
ln -s ../outside src/d
run_fcp --mirror -T src dst
check_rc 0 "src/d -> outside"
check_link dst/d "a symlink elsewhere did not replace the directory"
check_eq "$(readlink dst/d)" ../outside "the symlink copied"
check_eq "$(cat outside/o)" out "outside changed"
echo PASS
