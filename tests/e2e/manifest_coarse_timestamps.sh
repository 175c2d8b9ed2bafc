#!/bin/bash
# A recorded hash is trusted only where the file's times would show a
# change made after it was read (fcp_statx_racy, job.h). A filesystem of
# whole-second times whose ctime is its mtime (as FAT keeps them): a
# rewrite that keeps the size and puts the mtime back leaves every time
# as it was. And a file changed within the tick of the clock it was read
# in keeps its times on any filesystem whose clock is coarse (here: one
# whose ctime is its mtime, the copy made right after its source was
# written). Such records are kept as unverified, never as the reason not
# to read: a --sync --checksum, or a check against the source, after such
# a change reads the file and finds it. A file of old times on the same
# filesystem is still trusted.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd sqlite3 cmp
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"

verified() { sqlite3 "$1" "select verified is not null from files where side = 0 and path = '$2'"; }

# Whole seconds, the ctime the mtime.
mkdir -p src b1
head -c 9000 /dev/urandom >src/f
touch -d @1000000000 src/f src
faultfs_mount b1 fat --ctime-mtime --whole-seconds
run_fcp --sync --verify --manifest m1.db -T src fat/dst
check_rc 0 "copy onto whole-second times"
check_eq "$(verified m1.db f)" 0 "read back, but recorded as unverified"
was=$(t_looks fat/dst/f)
t_rot fat/dst/f 100
check_eq "$(t_looks fat/dst/f)" "$was" "the change shows in no time, size or inode"
run_fcp --check --manifest m1.db -T src fat/dst
check_rc 1 "check against the source after the change"
check_grep "^content differs: 'fat/dst/f'$" "$T/out"
run_fcp --sync --checksum --manifest m1.db -T src fat/dst
check_rc 0 "sync with --checksum after the change"
check cmp src/f fat/dst/f

# Times with nanoseconds, the ctime the mtime: a file written just before
# the copy (racy), one of old times (trusted).
mkdir -p b2
faultfs_mount b2 fast --ctime-mtime
mkdir fast/src
head -c 9000 /dev/urandom >fast/src/old
touch -d @1000000000.123456789 fast/src/old
head -c 9000 /dev/urandom >fast/src/new
run_fcp --sync --verify --manifest m2.db -T fast/src fast/dst
check_rc 0 "copy right after the source was written"
check_eq "$(verified m2.db new)" 0 "the new file's record unverified"
check_eq "$(verified m2.db old)" 1 "the old file's record verified"
was=$(t_looks fast/dst/new)
t_rot fast/dst/new 200
check_eq "$(t_looks fast/dst/new)" "$was" "the change shows in no time, size or inode"
run_fcp --json --sync --checksum --manifest m2.db -T fast/src fast/dst
check_rc 0 "sync with --checksum after the change"
check cmp fast/src/new fast/dst/new
check_grep '"files": ?1,' "$T/out" "the changed file copied again"
check_grep '"hashed_trusted": ?1,' "$T/out" "the old file's copy trusted still"
echo "PASS"
