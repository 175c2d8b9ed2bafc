#!/bin/bash
# Bit rot a check found is remembered. A byte of a copy that changes while
# its size, mtime, ctime and inode stay (bit rot; here a filesystem whose
# ctime is its mtime, as FAT's is, and the mtime put back) is found by
# --check --manifest FILE DEST, exit 1. Its record then no longer counts
# as read from storage: the next check says it again, a check against the
# source reads the copy (it said "equal" from the record before), and a
# --sync --checksum --manifest reads it and copies it again. The recorded
# hash stays, as what the copy should hold.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd sqlite3 cmp
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"

verified() { sqlite3 m.db "select verified is not null from files where side = 0 and path = '$1'"; }

mkdir -p src backing
for i in 1 2 3; do head -c $((i * 7000)) /dev/urandom >"src/f$i"; done
# An old time with nanoseconds: nothing racy (job.h), the records trusted.
touch -d @1000000000.123456789 src/f*
faultfs_mount backing mnt --ctime-mtime
d=mnt/dst

run_fcp --sync --verify --manifest m.db -T src "$d"
check_rc 0 "copy with --verify"
check_eq "$(verified f2)" 1 "the copy's hash recorded as read back"
run_fcp --json --sync --checksum --manifest m.db -T src "$d"
check_rc 0 "a sync with --checksum"
check_grep '"hashed_trusted": ?3' "$T/out" "the copies' hashes given by the manifest"

was=$(t_looks "$d/f2")
t_rot "$d/f2" 1000
check_eq "$(t_looks "$d/f2")" "$was" "the rot shows in no time, size or inode"

for round in 1 2; do
	run_fcp --check --manifest m.db "$d"
	check_rc 1 "check of DEST alone after the rot ($round)"
	check_grep "^content differs: '$d/f2'$" "$T/out"
	check_eq "$(wc -l <"$T/out")" 1 "one line ($round)"
done
run_fcp --check --manifest m.db -T src "$d"
check_rc 1 "check against the source after the rot"
check_grep "^content differs: '$d/f2'$" "$T/out"
check_eq "$(verified f2)" 0 "its record no longer counts as read"
check_eq "$(verified f1)" 1 "an intact file's still does"
check_eq "$(sqlite3 m.db "select count(*) from files where side = 0 and path = 'f2' and xxh128 is not null")" \
	1 "its hash stays, as what it should hold"
run_fcp --check --manifest m.db "$d"
check_rc 1 "check of DEST alone after that"
check_grep "^content differs: '$d/f2'$" "$T/out"

run_fcp --sync --checksum --manifest m.db -T src "$d"
check_rc 0 "sync with --checksum after the rot"
check cmp src/f2 "$d/f2"
for i in 1 3; do check cmp "src/f$i" "$d/f$i"; done
run_fcp --check --manifest m.db "$d"
check_rc 0 "check of DEST alone once copied again"
check_eq "$(verified f2)" 1 "its new record is of bytes read"
echo "PASS"
