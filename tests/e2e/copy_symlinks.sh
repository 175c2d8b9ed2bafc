#!/bin/bash
# Symlink policies. keep (default, -P): links copied as they are. rewrite:
# absolute links into the copied tree re-pointed into the copy; relative,
# outside and dangling links untouched (also a target that merely shares the
# tree's name as a string prefix). skip: no symlinks in the copy. follow (-L):
# targets copied; loops reported as errors without hanging.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

S="$T/src"
mkdir -p "$S/dir" "$T/srcx"
printf 'file\n' >"$S/file"
printf 'inner\n' >"$S/dir/inner"
printf 'trap\n' >"$T/srcx/file"
ln -s "$S/file" "$S/abs_in"
ln -s "$S/dir" "$S/abs_in_dir"
ln -s "$S/dir/inner" "$S/dir/abs_in_deep"
ln -s "$S" "$S/dir/abs_root"
ln -s /etc/hostname "$S/abs_out"
ln -s file "$S/rel"
ln -s ../file "$S/dir/rel_up"
ln -s does/not/exist "$S/dangling"
ln -s "$S/missing" "$S/abs_dangling_in"
ln -s "${S}x/file" "$S/abs_prefix"     # "$T/srcx/file": not inside "$T/src"

target() { readlink "$1" || fail "not a symlink: $1"; }

# keep (default, -P, --symlinks=keep): an exact copy.
for opt in "" -P --symlinks=keep; do
	rm -rf "$T/keep"
	run_fcp $opt "$S" "$T/keep"
	check_rc 0 "fastcp $opt"
	check_tree "$S" "$T/keep"
done

# rewrite
run_fcp -v --symlinks=rewrite "$S" "$T/rw"
check_rc 0
D="$T/rw"
check_eq "$(target "$D/abs_in")" "$D/file" "rewritten abs_in"
check_eq "$(target "$D/abs_in_dir")" "$D/dir" "rewritten abs_in_dir"
check_eq "$(target "$D/dir/abs_in_deep")" "$D/dir/inner" "rewritten abs_in_deep"
check_eq "$(target "$D/dir/abs_root")" "$D" "rewritten link to the tree root"
check_eq "$(target "$D/abs_out")" /etc/hostname "link to outside the tree"
check_eq "$(target "$D/rel")" file "relative link"
check_eq "$(target "$D/dir/rel_up")" ../file "relative link"
check_eq "$(target "$D/dangling")" does/not/exist "dangling relative link"
check_eq "$(target "$D/abs_prefix")" "${S}x/file" "link outside the tree sharing its name as a prefix"
check_eq "$(cat "$D/abs_in")" file "rewritten link does not resolve"
# Everything except the link targets is as in the source.
# The summary counts the links: 3 relative, 7 absolute, 4 of them rewritten
# (abs_in, abs_in_dir, abs_in_deep, abs_root; a dangling one may count too).
check_grep '\b3 relative' "$T/all" "summary does not count 3 relative links"
check_grep '\b7 absolute' "$T/all" "summary does not count 7 absolute links"
check_grep '\b[45] rewritten' "$T/all" "summary does not count 4 rewritten links"

# A check, or a sync, of a rewritten copy compares with the targets the
# copy made: with --symlinks=rewrite it passes and the sync leaves them;
# without it the re-pointed links differ from their sources, and a sync puts
# the source's targets back.
run_fcp --check --symlinks=rewrite -T "$S" "$D"
check_rc 0
run_fcp --sync -v --symlinks=rewrite -T "$S" "$D"
check_rc 0
check_eq "$(target "$D/abs_in")" "$D/file" "a sync with rewrite left abs_in"
run_fcp --check -T "$S" "$D"
check_rc 1
cat "$T/out" "$T/err" >"$T/said"
check_grep "symlink target differs: '$D/abs_in'" "$T/said" "a check without rewrite does not name the re-pointed link"
run_fcp --sync --symlinks=keep -T "$S" "$D"
check_rc 0
check_eq "$(target "$D/abs_in")" "$S/file" "a sync without rewrite did not put the source's target back"
run_fcp --check --symlinks=rewrite -T "$S" "$D"
check_rc 1

# rewrite with a relative SRC and DEST, into an existing directory: the new
# targets are still absolute paths into the copy.
mkdir "$T/into"
(cd "$T" && timeout 60 "$FASTCP" --symlinks=rewrite src into) || fail "rewrite into a directory"
check_eq "$(target "$T/into/src/abs_in")" "$T/into/src/file" "rewrite with relative paths"

# skip
run_fcp --symlinks=skip "$S" "$T/skip"
check_rc 0
[ -z "$(find "$T/skip" -type l)" ] || fail "--symlinks=skip copied symlinks: $(find "$T/skip" -type l)"
check_file "$T/skip/file"
check_file "$T/skip/dir/inner"

# follow: a tree without dangling links or loops is copied as plain files.
F="$T/fsrc"
mkdir -p "$F/sub"
printf 'data\n' >"$F/data"
ln -s data "$F/rel"
ln -s "$F/sub" "$F/dirlink"
printf 's\n' >"$F/sub/s"
ln -s "$S/file" "$F/outside"
for opt in -L --symlinks=follow; do
	rm -rf "$T/follow"
	run_fcp $opt "$F" "$T/follow"
	check_rc 0 "fastcp $opt"
	[ -z "$(find "$T/follow" -type l)" ] || fail "$opt left symlinks"
	check_file "$T/follow/rel"
	check_eq "$(cat "$T/follow/rel")" data
	check_file "$T/follow/dirlink/s"
	check_eq "$(cat "$T/follow/outside")" file
done

# follow with loops: reported, no hang, no endless tree, the rest copied.
L="$T/loops"
mkdir -p "$L/a/b"
printf 'ok\n' >"$L/ok"
ln -s .. "$L/a/b/up"          # to an ancestor
ln -s "$L" "$L/a/root"        # absolute, to the root
ln -s self "$L/self"          # a link to itself (ELOOP)
FCP_TIMEOUT=30 run_fcp -L "$L" "$T/lcopy"
check_rc 1 "follow with loops"
check_grep "a/b/up" "$T/err" "loop via a/b/up not reported"
check_grep "self" "$T/err" "self-referencing link not reported"
# With failed items only, the new copy gets its name without them.
check_grep "the copy of '$L' has its name '$T/lcopy' without the [0-9]+ items that failed" "$T/err"
check_eq "$(find "$T" -mindepth 1 -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies"
left=$T/lcopy
check_file "$left/ok"
count=$(find "$left" | wc -l)
[ "$count" -lt 50 ] || fail "loop expanded into $count entries"
check_no_temp_inside "$left"
rm -rf "$left"
check_no_temp "$T"

# follow into the destination: a link to the copy being made, or to a
# directory above it, would copy the copy into itself without end.
I="$T/into"
mkdir -p "$I/src/d" "$I/dst"
printf 'ok\n' >"$I/src/d/ok"
ln -s "$I/dst" "$I/src/to_dst"    # the destination itself
ln -s "$I" "$I/src/d/to_above"    # a directory holding it
FCP_TIMEOUT=30 run_fcp -L "$I/src" "$I/dst/copy"
check_rc 1 "follow into the destination"
check_grep "destination into itself: .*to_dst" "$T/err" "link to the destination not reported"
check_eq "$(find "$I/dst" -mindepth 1 -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies"
left=$I/dst/copy
check_file "$left/d/ok"
count=$(find "$I/dst" | wc -l)
[ "$count" -lt 60 ] || fail "copy into itself expanded into $count entries"
check_no_temp_inside "$left"
rm -rf "$left"
check_no_temp "$I"

# A symlink given as SOURCE: kept by default, followed with -L.
run_fcp "$S/abs_in" "$T/arg_keep"
check_rc 0
check_eq "$(target "$T/arg_keep")" "$S/file" "symlink argument"
run_fcp -L "$S/abs_in" "$T/arg_follow"
check_rc 0
check_file "$T/arg_follow"
echo "symlink policies ok"
