#!/bin/bash
# --dedup when the first copy of a content fails: the files waiting
# behind it are started again and the first of them becomes the new first
# copy. The destination is faultfs with --corrupt-write: a copy written
# there never verifies (--verify). With f1's writes corrupted, f1 fails
# and its three duplicates (which may have waited for it) are copied whole
# (faultfs cannot clone: in full, with one note). With every copy
# corrupted (hardlink), each failing first copy hands its waiters on until
# every name was tried and reported: nothing hangs, nothing goes unsaid.
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

# reflink: f1 fails however it was reached (a first copy, or a duplicate
# copied in full where the destination cannot clone); the others are whole.
run_fcp -j4 --verify --dedup=reflink "$S" "$T/m/c"
check_rc 1 "--dedup=reflink with a first copy that fails"
check_grep "cannot verify copy of '$S/f1'" "$T/err"
check_grep "fastcp: 1 item failed" "$T/err"
check_grep "the destination cannot clone" "$T/err"
# A failed item does not hold the rest back: the copy gets its name.
check_eq "$(find "$B" -mindepth 1 -maxdepth 1 -name ".fcp-*" | wc -l)" 0 "hidden copies"
left=$B/c
for i in 2 3 4; do
	cmp "$S/sub/f$i" "$left/sub/f$i" || fail "f$i was not copied whole"
done
check_absent "$left/f1"
check_no_temp_inside "$left"

# hardlink, every copy of the content failing: each first copy that fails
# hands its waiters on, until every name was tried and reported.
B2=$T/back2
mkdir -p "$B2"
faultfs_mount "$B2" "$T/m2" --corrupt-write='f[0-9]'
run_fcp -j4 --verify --dedup=hardlink "$S" "$T/m2/l"
check_rc 1 "--dedup=hardlink with every first copy failing"
check_grep "cannot verify copy of '$S/f1'" "$T/err"
for i in 2 3 4; do
	check_grep "cannot verify copy of '$S/sub/f$i'" "$T/err"
done
check_grep "fastcp: 4 items failed" "$T/err"
check_eq "$(find "$B2" -mindepth 1 -maxdepth 1 -name ".fcp-*" | wc -l)" 0 "hidden copies"
left=$B2/l
check_dir "$left"
check_no_temp_inside "$left"
[ -z "$(find "$left" -type f)" ] || fail "files left in the copy: $(find "$left" -type f)"
exit 0
