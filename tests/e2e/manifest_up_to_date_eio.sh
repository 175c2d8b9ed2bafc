#!/bin/bash
# --sync/--mirror --manifest records a file found up to date in DEST with
# its source's hash, read for it. A read error there is a failed item
# (exit 1) said with the source's path and its cause, never swallowed: the
# file is recorded without a hash (a check counts it as not compared), not
# with a hash nobody read, and the copy in DEST is left as it was.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd sqlite3
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"
cd "$T" || fail "cd $T"

mkdir -p src/data dst
head -c 65536 /dev/urandom >src/data/bad.img
head -c 5000 /dev/urandom >src/data/good
run_fcp --sync src/data dst/
check_rc 0 "first sync, without --manifest"
cp -p dst/data/bad.img before.img

faultfs_mount src fsrc --match=bad.img --eio-at=28672 --eio-len=4096
run_fcp --mirror --manifest m.db fsrc/data dst/
check_rc 1 "mirror with --manifest, an up-to-date file's source unreadable"
check_grep "fsrc/data/bad.img'?: Input/output error" "$T/err"
check_grep "manifest" "$T/err"
check_eq "$(sqlite3 m.db "select count(*) from files where side = 0 and path like '%bad.img' and xxh128 is not null")" \
	0 "no hash recorded for the file whose source could not be read"
check_eq "$(sqlite3 m.db "select count(*) from files where side = 0 and path like '%good' and xxh128 is not null")" \
	1 "the readable file recorded with its hash"
check cmp before.img dst/data/bad.img
check cmp src/data/good dst/data/good

# A check against that manifest does not call the unrecorded file equal.
run_fcp --check --manifest m.db dst
check_rc 1 "check with a file recorded without a hash"
check_grep "1 file recorded without a hash" "$T/err"

# Readable again: recorded with its hash, and the check passes.
run_fcp --mirror --manifest m.db src/data dst/
check_rc 0 "mirror with --manifest, the source readable"
check_eq "$(sqlite3 m.db "select count(*) from files where side = 0 and xxh128 is not null")" \
	2 "both files recorded with a hash"
run_fcp --check --manifest m.db dst
check_rc 0 "check after the readable run"
echo "PASS"
