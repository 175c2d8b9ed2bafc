#!/bin/bash
# --in-place (issue 20): cp's own way of replacing a file, beside GNU cp.
# A regular file that is there is rewritten, the same inode, unless it
# has other names: then it is replaced whole, as cp -a does, and, unlike
# cp, with --no-preserve=links too (said once): its other names keep
# their data (cp_in_place_shared.sh). It gets the
# source's metadata (xattrs it has and the source lacks stay, as with cp). A symlink in the way is still replaced,
# never written through (cp writes through it: compared without one).
# Without --in-place fastcp renames a new file over it.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p src/sub out/sub keep
	echo "new a, longer than the old" >src/a; echo new >src/sub/b; echo new >src/c
	chmod 600 src/a; touch -d 2021-01-01 src/a
	echo "old a" >out/a; ln out/a keep/a-link; chmod 644 out/a
	setfattr -n user.old -v 1 out/a 2>/dev/null
	echo "old b, longer than the new" >out/sub/b; ln out/sub/b keep/b-link
}

CP_DROP=--in-place # cp's default
for cmd in "--in-place -T src out" "--in-place src/a out/a" "--in-place src/c out/sub/b"; do
	cp_twins setup
	cp_both $cmd
	cp_same
done
# One name: the same inode, with the source's metadata.
cp_twins setup
rm "$T/fcp/keep/a-link"
ino=$(stat -c %i "$T/fcp/out/a")
cp_both --in-place -T src out
check_eq "$(stat -c %i "$T/fcp/out/a")" "$ino" "the same inode"
check_eq "$(stat -c '%a %Y' "$T/fcp/out/a")" "600 $(stat -c %Y "$T/fcp/src/a")" "metadata"
check_eq "$(getfattr --only-values -n user.old "$T/fcp/out/a" 2>/dev/null)" 1 "its own xattr kept, as by cp"
# Without the source's mode (issue 33, item 17): the file keeps its own,
# as with cp; a private one is not widened to the new-file default.
cp_twins setup
chmod 600 "$T/gnu/out/a" "$T/fcp/out/a"; chmod 644 "$T/gnu/src/a" "$T/fcp/src/a"
rm "$T/fcp/keep/a-link" "$T/gnu/keep/a-link"
ino=$(stat -c %i "$T/fcp/out/a")
cp_both --in-place --no-preserve=mode src/a out/a
cp_same
check_eq "$(stat -c '%i %a' "$T/fcp/out/a")" "$ino 600" "the same inode, its own mode"
check_eq "$(cat "$T/fcp/out/a")" "new a, longer than the old" "the new data"
# Hard links not kept: a file with other names is still not rewritten
# (cp rewrites it): its other names keep their data.
cp_twins setup
cp_both --in-place --no-preserve=links -T src out
check_rc 0
check_eq "$(cat "$T/fcp/keep/b-link")" "old b, longer than the new" "a hard link keeps its data"
check_eq "$(cat "$T/fcp/out/sub/b")" new "the copy has the new data"
check_grep "2 files with other names replaced, not rewritten" "$T/err"
check_eq "$(cat "$T/fcp/keep/a-link")" "old a" "the other hard link keeps its data"

# A symlink in the way: replaced, its target untouched.
echo target >"$T/fcp/keep/target"; ln -sf ../keep/target "$T/fcp/out/c"
cd "$T/fcp" && run_fcp --in-place src/c out/c && cd "$T"
check_rc 0
check_file "$T/fcp/out/c"
check_eq "$(cat "$T/fcp/keep/target")" target "not written through a symlink"
# With --backup the old inode is the backup: a new file is made.
cp_twins setup
cp_both --in-place -b src/a out/a
check_eq "$(cat "$T/fcp/out/a~")" "old a" "backup keeps the old data"
check_eq "$(cat "$T/fcp/keep/a-link")" "old a" "backup: a new file"
# --verify reads the copy back through the descriptor that wrote it: the
# file opened in place is opened for reading too.
if grep -q 'define HAVE_XXHASH 1' "$(dirname "$FASTCP")/config.h" 2>/dev/null; then
	cp_twins setup
	rm "$T/fcp/keep/a-link"
	ino=$(stat -c %i "$T/fcp/out/a")
	cd "$T/fcp" && run_fcp --in-place --no-preserve=links --verify src/a out/a && cd "$T"
	check_rc 0 "--in-place --verify"
	check_eq "$(stat -c %i "$T/fcp/out/a")" "$ino" "--verify: the same inode"
	cmp -s "$T/fcp/src/a" "$T/fcp/out/a" || fail "--verify: the file holds the new data"
else
	note "no xxHash in this build: --in-place --verify not tried"
fi
echo PASS
