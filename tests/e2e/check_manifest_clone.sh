#!/bin/bash
# A clone moves no bytes through fastcp, yet a copy with --manifest records
# its hash (issue 33, item 9): the source, whose blocks the clone shares,
# is read to hash it. On XFS with reflink: the files are cloned (--debug
# says so), each is recorded with the hash a later check computes, and a
# byte flipped in a clone is found by --check --manifest FILE DEST. The
# same for --dedup=hardlink's second names and a source hard link's.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd sqlite3
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"
t_mount_fs xfs 400M "$T/xfs"

mkdir -p xfs/src
head -c 5000 /dev/urandom >xfs/src/small
head -c $((5 << 20)) /dev/urandom >xfs/src/medium
head -c $((70 << 20)) /dev/urandom >xfs/src/large
cp xfs/src/medium xfs/src/twin
ln xfs/src/small xfs/src/small_link
n=$(find xfs/src -type f | wc -l)

run_fcp --debug --manifest m.db -T xfs/src xfs/dst
check_rc 0 "cloned copy"
check_grep "'xfs/src/large' -> 'xfs/dst/large': clone" "$T/err"
check_grep "'xfs/src/medium' -> 'xfs/dst/medium': clone" "$T/err"
check_eq "$(sqlite3 m.db 'select count(*) from files where side = 0 and xxh128 is not null')" "$n" \
	"clones recorded with a hash"
run_fcp --check --manifest m.db xfs/dst
check_rc 0 "check of the clones"
t_rot xfs/dst/large $((50 << 20))
t_rot xfs/dst/small 7
run_fcp --check --manifest m.db xfs/dst
check_rc 1 "check after bit rot in clones"
check_grep "^content differs: 'xfs/dst/large'$" "$T/out"
check_grep "^content differs: 'xfs/dst/small'$" "$T/out"
check_grep "^content differs: 'xfs/dst/small_link'$" "$T/out"
check_eq "$(wc -l <"$T/out")" 3 "lines of the check"

run_fcp --dedup=hardlink --manifest dd.db -T xfs/src xfs/dd
check_rc 0 "copy with --dedup=hardlink"
check_eq "$(stat -c %i xfs/dd/medium)" "$(stat -c %i xfs/dd/twin)" "duplicates linked"
check_eq "$(sqlite3 dd.db 'select count(*) from files where side = 0 and xxh128 is not null')" "$n" \
	"linked duplicates recorded with a hash"
run_fcp --check --manifest dd.db xfs/dd
check_rc 0 "check of the deduplicated copy"
echo "PASS"
