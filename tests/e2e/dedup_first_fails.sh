#!/bin/bash
# --dedup when the first copy of a content fails: the files waiting
# behind it are started again, the first of them becomes the new first
# copy, and every one of them is copied whole. The destination is faultfs
# with --corrupt-write=f1: f1's copy never verifies (--verify), while its
# three duplicates, found while f1 is still being written, wait for it.
# faultfs cannot clone either: the duplicates are copied in full, with one
# note. Nothing hangs, nothing is lost, only f1 fails.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd cmp
FCP_TIMEOUT=120

S=$T/src
mkdir -p "$S/sub"
head -c $((4 << 20)) /dev/urandom >"$S/f1"
for i in 2 3 4; do cp "$S/f1" "$S/sub/f$i"; done
B=$T/back
mkdir -p "$B"
faultfs_mount "$B" "$T/m" --corrupt-write=f1

for how in reflink hardlink; do
	run_fcp -j4 --verify --dedup=$how "$S" "$T/m/$how"
	check_rc 1 "--dedup=$how with a first copy that fails"
	check_grep "cannot verify copy of '$S/f1'" "$T/err"
	check_grep "fastcp: 1 item failed" "$T/err"
	left=$(find "$B" -mindepth 1 -maxdepth 1 -name ".fcp-*")
	[ -n "$left" ] || fail "$how: the copy with a failed item should keep its temporary name"
	for i in 2 3 4; do
		cmp "$S/sub/f$i" "$left/sub/f$i" || fail "$how: f$i was not copied whole"
	done
	check_absent "$left/f1"
	check_no_temp_inside "$left"
	rm -rf "$left"
done
exit 0
