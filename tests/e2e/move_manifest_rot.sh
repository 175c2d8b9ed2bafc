#!/bin/bash
# --move never takes the manifest's word that DEST holds a source's bytes.
# A move into a copy made before compares each file's content before its
# source goes (a file of the same name, size and mtime may hold other
# bytes), and that comparison reads both sides: a recorded hash is of what
# was read while the file's times were as they are, and bit rot, or a
# change its times do not show (a filesystem whose ctime is its mtime, as
# FAT's is, and the mtime put back), leaves them so. Here a byte of one
# copy in DEST and one of another file's source change that way after
# both were recorded: the move copies them again and removes the sources
# only then; DEST ends with every source's bytes.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd sqlite3 cmp
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"


mkdir -p bsrc/src bdst
faultfs_mount bsrc s --ctime-mtime
faultfs_mount bdst d --ctime-mtime
for f in rotted changed same; do head -c 20000 /dev/urandom >"s/src/$f"; done
# An old time with nanoseconds: nothing racy (job.h), the records trusted.
touch -d @1000000000.123456789 s/src/*

run_fcp --sync --verify --manifest m.db -T s/src d/dst
check_rc 0 "copy with --verify"
# The sources recorded too, as read.
run_fcp --json --sync --checksum --manifest m.db -T s/src d/dst
check_rc 0 "sync with --checksum"
check_grep '"hashed_trusted": ?3' "$T/out" "the copies' hashes given by the manifest"
check_eq "$(sqlite3 m.db 'select count(*) from files where verified is not null')" 6 \
	"both sides of each file recorded as read"

was_d=$(t_looks d/dst/rotted) was_s=$(t_looks s/src/changed)
t_rot d/dst/rotted 777
t_rot s/src/changed 4321
check_eq "$(t_looks d/dst/rotted)" "$was_d" "the rot in DEST shows in no time, size or inode"
check_eq "$(t_looks s/src/changed)" "$was_s" "the source's change shows in none either"
mkdir want && cp -p s/src/* want/

run_fcp --move --manifest m.db -T s/src d/dst
check_rc 0 "the move"
for f in rotted changed same; do
	check cmp "want/$f" "d/dst/$f"
	check_absent "s/src/$f"
done
echo "PASS"
