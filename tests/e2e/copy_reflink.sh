#!/bin/bash
# Reflink on real filesystems: on loopback XFS (reflink=1) and btrfs, the
# default (auto) and --reflink=always clone (FIEMAP shows shared extents),
# --reflink=never does not, and copies a file read with O_DIRECT exactly; a
# whole tree cloned on XFS is still exact; across
# two filesystems --reflink=always fails cleanly (exit 1, no file and no
# temporary file left; a tree's new root copy gets its name holding no
# data, said in the message) and auto falls back to a copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_root "loopback filesystems need root"

t_mount_fs xfs 300M "$T/xfs"
t_mount_fs btrfs 256M "$T/btrfs"

for fs in xfs btrfs; do
	M="$T/$fs"
	head -c 3M /dev/urandom >"$M/big"
	sync
	for mode in "" --reflink --reflink=auto --reflink=always; do
		run_fcp $mode "$M/big" "$M/clone$mode"
		check_rc 0 "$fs: fastcp $mode"
		cmp "$M/big" "$M/clone$mode" || fail "$fs: clone$mode differs"
		"$TREECMP" --shared "$M/clone$mode" || fail "$fs: fastcp $mode did not share extents"
	done
	run_fcp --reflink=never "$M/big" "$M/plain"
	check_rc 0
	cmp "$M/big" "$M/plain" || fail "$fs: --reflink=never copy differs"
	! "$TREECMP" --shared "$M/plain" || fail "$fs: --reflink=never shares extents"
	# Read with O_DIRECT on this filesystem: the same bytes, unaligned tail too.
	head -c 3146962 /dev/urandom >"$M/odd"
	run_fcp --reflink=never --direct-read=always "$M/odd" "$M/direct"
	check_rc 0 "$fs: --direct-read=always"
	cmp "$M/odd" "$M/direct" || fail "$fs: --direct-read=always copy differs"
done

# A whole tree on XFS, cloned: still exact (holes included).
t_mktree "$T/xfs/tree" nodeep
run_fcp "$T/xfs/tree" "$T/xfs/tree_clone"
check_rc 0
check_tree "$T/xfs/tree" "$T/xfs/tree_clone"
"$TREECMP" --shared "$T/xfs/tree_clone/files/big" || fail "tree copy on XFS did not clone files/big"

# Across filesystems: always fails cleanly, auto copies.
mkdir "$T/btrfs/cross"
run_fcp --reflink=always "$T/xfs/big" "$T/btrfs/cross/big"
check_rc 1 "--reflink=always across filesystems"
check_grep "big" "$T/err" "the error does not name the file"
check_absent "$T/btrfs/cross/big" "--reflink=always left a file"
check_no_temp "$T/btrfs/cross"
[ -z "$(ls -A "$T/btrfs/cross")" ] || fail "files left: $(ls -A "$T/btrfs/cross")"
run_fcp --reflink=always "$T/xfs/tree/files" "$T/btrfs/cross/files"
check_rc 1 "--reflink=always of a tree across filesystems"
# A copy with failed items only gets its name without them, and says so.
left=$T/btrfs/cross/files
check_dir "$left"
check_grep "the copy of '$T/xfs/tree/files' has its name '$left' without the" "$T/err"
check_eq "$(find "$T/btrfs/cross" -mindepth 1 -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies"
check_no_temp_inside "$left"
[ -z "$(find "$T/btrfs/cross" -type f -size +0)" ] || fail "--reflink=always left data files: $(find "$T/btrfs/cross" -type f -size +0 | head -3)"
rm -rf "$left"
run_fcp "$T/xfs/big" "$T/btrfs/cross/auto"
check_rc 0 "--reflink=auto across filesystems"
cmp "$T/xfs/big" "$T/btrfs/cross/auto" || fail "fallback copy differs"
echo "reflink ok"
