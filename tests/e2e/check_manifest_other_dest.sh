#!/bin/bash
# A check of DEST alone (--check --manifest FILE DEST) with the manifest of
# another DEST, still there, is refused (exit 2) naming the DEST the
# manifest records: a sibling copy (backup/recent) must not be read as
# "missing in DEST" lines, and a parent (backup) must not be answered
# with another copy that happens to hold some of the same names. A copy
# moved away from the recorded DEST (a disk mounted elsewhere) is checked
# where it is.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"
cd "$T" || fail "cd $T"

mkdir -p photos/2024 backup/recent
for i in 1 2 3; do echo "photo $i" >"photos/p$i.jpg"; echo "old $i" >"photos/2024/o$i.jpg"; done
# The sibling holds some of the same names: the wrong copy a hint found.
cp photos/p1.jpg photos/p2.jpg backup/recent/
run_fcp --mirror --manifest photos.db -T photos backup/photos
check_rc 0 "mirror into backup/photos"

run_fcp --check --manifest photos.db backup/recent
check_rc 2 "check of another DEST, backup/recent"
check_grep "manifest 'photos.db' records the files of '$T/backup/photos', not of '$T/backup/recent'" "$T/err"
check_nogrep "missing in DEST" "$T/out"
check_nogrep "missing in DEST" "$T/err"

run_fcp --check --manifest photos.db backup
check_rc 2 "check of the parent, backup"
check_grep "was '$T/backup/photos' meant\\?" "$T/err"
check_nogrep "recent" "$T/err"

run_fcp --check --manifest photos.db backup/photos
check_rc 0 "check of the recorded DEST"

# Moved (as a disk mounted elsewhere): the recorded DEST holds nothing.
mv backup/photos moved
run_fcp --check --manifest photos.db moved
check_rc 0 "check of the copy where it is now"
echo bad >>moved/2024/o2.jpg
run_fcp --check --manifest photos.db moved
check_rc 1 "a damaged file of the moved copy"
echo "PASS"
