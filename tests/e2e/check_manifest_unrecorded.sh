#!/bin/bash
# A check of DEST alone against a manifest says equal only when it is
# (review M10). A tree copied without --manifest and then brought up to
# date by --sync --manifest: the files found up to date are recorded too
# (with their source's hash), so a byte flipped later in one of them (size
# and mtime kept) is found by --check --manifest FILE DEST. A file of DEST
# that the manifest does not record (copied after, without --manifest) is
# said ("not in the manifest"), counted as not compared, and the check
# exits 1, never 0. A --sync re-run over an unchanged, recorded tree keeps
# the records as they are (same hash, same verified time).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd sqlite3
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"
cd "$T" || fail "cd $T"

rows() { sqlite3 "$1" "select path, hex(xxh128), ifnull(verified, '-') from files where side = 0 order by path"; }

mkdir -p src/sub
for i in 1 2 3 4; do head -c $((i * 5000)) /dev/urandom >"src/f$i"; done
head -c $((3 << 20)) /dev/urandom >src/sub/medium
ln src/f1 src/sub/f1_link
nfiles=$(find src -type f | wc -l)

run_fcp -H -T src dst
check_rc 0 "first copy, without --manifest"
echo changed >src/f4 # one file the sync copies again, the others up to date
run_fcp -H --sync --manifest m.db -T src dst
check_rc 0 "sync with --manifest"
check_eq "$(sqlite3 m.db 'select count(*) from files where side = 0 and xxh128 is not null')" \
	"$nfiles" "every file of DEST recorded with a hash"
run_fcp --check --manifest m.db dst
check_rc 0 "check of the intact copy"
check_eq "$(cat "$T/out")" "" "no difference in the intact copy"

# A file the sync found up to date, damaged since: found.
t_rot dst/f2 1000
t_rot dst/sub/medium $((2 << 20))
run_fcp --check --manifest m.db dst
check_rc 1 "check after bit rot in files found up to date"
check_grep "^content differs: 'dst/f2'$" "$T/out"
check_grep "^content differs: 'dst/sub/medium'$" "$T/out"
cp -p src/f2 dst/f2 && cp -p src/sub/medium dst/sub/medium

# A re-run over the unchanged tree keeps the records (none read again).
run_fcp -H --sync --manifest m.db -T src dst
check_rc 0 "sync with --manifest, repaired files copied again"
rows m.db >rows1
run_fcp -H --sync --manifest m.db -T src dst
check_rc 0 "sync with --manifest over an unchanged tree"
rows m.db >rows2
check "cmp" rows1 rows2
run_fcp --check --manifest m.db dst
check_rc 0 "check after the repair"

# A file DEST holds that the manifest does not record: never "equal".
echo extra >dst/sub/later
run_fcp -v --check --manifest m.db dst
check_rc 1 "check with a file the manifest does not record"
check_grep "^not in the manifest: 'dst/sub/later'$" "$T/out"
check_eq "$(wc -l <"$T/out")" 1 "lines of the check"
check_grep "1 file in 'dst' not in the manifest" "$T/err"
check_grep "1 file not compared" "$T/err"
run_fcp --json --check --manifest m.db dst
check_rc 1 "check with --json"
check_grep '"not_compared": ?1' "$T/out"
# The job's own files inside DEST (the manifest, its -wal and -shm, the
# --log file) are not files of the copy.
rm dst/sub/later
cp m.db dst/m.db
run_fcp --check --manifest dst/m.db --log dst/sub/check.log dst
check_rc 0 "check with the manifest and its log inside DEST"
check_eq "$(cat "$T/out")" "" "the job's own files are not files of the copy"
check_file dst/sub/check.log

# Another filesystem mounted below DEST is not entered, and not called
# equal either (root only: it takes a mount).
if [ "$(id -u)" = 0 ]; then
	rm -f dst/sub/check.log dst/m.db*
	mkdir dst/mp
	mount -t tmpfs tmpfs dst/mp || fail "mount tmpfs"
	t_mounts_+=("$T/dst/mp")
	echo unseen >dst/mp/file
	run_fcp --check --manifest m.db dst
	check_rc 1 "check with a mount below DEST"
	check_grep "^not read, another mount: 'dst/mp'$" "$T/out"
	check_nogrep "dst/mp/file" "$T/out"
	check_grep "1 other filesystem mounted in 'dst' not read" "$T/err"
fi
echo "PASS"
