#!/bin/bash
# --manifest FILE, issue 19: every file copied is recorded (path relative
# to DEST, size, mtime, ctime, inode); --check and --checksum record the
# hashes they compute, and trust them while size, mtime, ctime and inode
# are unchanged: a second run opens none of the unchanged files (strace),
# and a file rewritten behind their back (same size, mtime put back) is
# read again and caught. --check --manifest FILE DEST reads every recorded
# file of DEST again and names what changed or went. A file that is not
# SQLite, another database, a newer schema or a damaged manifest is
# refused (exit 2), left as it was, and nothing is copied; so is one in a
# missing directory or on a read-only filesystem. Two runs sharing a
# manifest at once leave it whole.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
# flip FILE OFFSET: one byte changed for sure (random data may hold an X).
flip() {
	local b
	b=$(dd if="$1" bs=1 skip="$2" count=1 status=none)
	[ "$b" = X ] && b=Y || b=X
	printf '%s' "$b" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
need_fastcp
need_root "mounts a read-only tmpfs"
need_cmd strace sqlite3 cmp
need_built HAVE_SQLITE3 "built without SQLite (check_manifest_nosqlite.sh tests the refusal)"
need_built HAVE_XXHASH "built without libxxhash"

q() { sqlite3 "$T/m.db" "$1"; }
mkdir -p src/sub
for i in 1 2 3 4 5 6; do printf 'file %d\n' "$i" >"src/f$i"; done
for i in 1 2 3; do head -c $((i * 40000)) /dev/urandom >"src/sub/big$i"; done
ln src/f1 src/f1_link # a hard link's second name is recorded too
nfiles=$(find src -type f | wc -l)

run_fcp --manifest m.db -T src dst
check_rc 0 "copy with a manifest"
# Each with the hash of the bytes the copy wrote, not read back (verified NULL).
check_eq "$(q 'select count(*) from files where side = 0 and xxh128 is not null and verified is null')" \
	"$nfiles" "rows of copied files, hashed"
check_eq "$(q "select size || ' ' || ino from files where path = 'sub/big2'")" \
	"80000 $(stat -c %i dst/sub/big2)" "size and inode of a copied file"
# (f2: the second name of f1 moved f1's ctime after it was recorded.)
check_eq "$(q "select mtime from files where path = 'f2'")" \
	"$(stat -c %Y dst/f2)$(stat -c %y dst/f2 | sed 's/.*\.\([0-9]*\).*/\1/')" "mtime in ns"
check_eq "$(q "select ctime from files where path = 'f2'")" \
	"$(stat -c %Z dst/f2)$(stat -c %z dst/f2 | sed 's/.*\.\([0-9]*\).*/\1/')" "ctime in ns"
check_eq "$(q 'pragma journal_mode')" "wal" "journal mode"
check_eq "$(q 'pragma application_id')" "1717792817" "application_id"

# The first check reads both sides and records both hashes: as read from
# storage once the files' ctimes are 2 s older than the run (a change in
# the tick they were read in would not show: fcp_statx_racy).
sleep 2.1
run_fcp --check --manifest m.db -T src dst
check_rc 0 "first check"
check_eq "$(q 'select count(*) from files where xxh128 is not null and verified > 0')" \
	"$((2 * nfiles))" "hashes recorded for both sides"
# The second opens no file: every hash is trusted.
FCP_WRAP="strace -f -qq -o $T/trace -e trace=openat" run_fcp -v --check --manifest m.db -T src dst
check_rc 0 "second check"
check_nogrep "\"(f[0-9]|big[0-9])\"" "$T/trace"
check_grep "$((2 * nfiles)) hashes from the manifest" "$T/err"

# Rewritten behind the manifest's back, size and mtime put back: the
# ctime moved, so it is read again, and the change is seen.
flip dst/sub/big1 100
touch -m -r src/sub/big1 dst/sub/big1
FCP_WRAP="strace -f -qq -o $T/trace -e trace=openat" run_fcp --check --manifest m.db -T src dst
check_rc 1 "check after a rewrite"
check_eq "$(cat "$T/out")" "content differs: 'dst/sub/big1'"
check_grep "\"big1\"" "$T/trace"
check_nogrep "\"(f[0-9]|big[23])\"" "$T/trace"

# --checksum: the same trust; it copies the changed file again.
run_fcp -c --manifest m.db -T src dst
check_rc 0 "--checksum"
check cmp src/sub/big1 dst/sub/big1
sleep 2.1 # (its new copy's ctime out of the racy window)
run_fcp -c --manifest m.db -T src dst
check_rc 0 "--checksum records"
FCP_WRAP="strace -f -qq -o $T/trace -e trace=openat" run_fcp -c --manifest m.db -T src dst
check_rc 0 "--checksum again"
check_nogrep "\"(f[0-9]|big[0-9])\"" "$T/trace"

# DEST alone: every recorded file is read again, trusted or not.
FCP_WRAP="strace -f -qq -o $T/trace -e trace=openat,openat2" run_fcp --check --manifest m.db dst
check_rc 0 "re-verify of an intact copy"
for f in f1 f6 sub/big3; do check_grep "\"$f\"" "$T/trace"; done
flip dst/sub/big3 7
touch -m -r src/sub/big3 dst/sub/big3 # bit rot keeps size and mtime
rm dst/f4
printf 'longer\n' >>dst/f5
run_fcp --check --manifest m.db dst
check_rc 1 "re-verify after bit rot"
check_grep "^content differs: 'dst/sub/big3'$" "$T/out"
check_grep "^missing in DEST: 'dst/f4'$" "$T/out"
check_grep "^size 7 != 14: 'dst/f5'$" "$T/out"
check_eq "$(wc -l <"$T/out")" 3 "lines of the re-verify"

# Copies into DEST record the copy's path under DEST.
mkdir into
run_fcp --manifest m2.db src into
check_rc 0 "copy into a directory"
check_eq "$(sqlite3 m2.db "select count(*) from files where path like 'src/%'")" "$nfiles" "paths under DEST"
run_fcp --check --manifest m2.db into
check_rc 0 "re-verify of into/"

# Manifests that must not be used: refused, untouched, nothing copied.
refused() { # file why...
	local f=$1
	shift
	cp "$f" "$f.before"
	run_fcp --manifest "$f" src new
	check_rc 2 "manifest $f"
	check_grep "cannot use manifest '$f': $*" "$T/err"
	check_absent new "copied with a refused manifest"
	cmp -s "$f" "$f.before" || fail "a refused manifest was written: $f"
	run_fcp --check --manifest "$f" dst
	check_rc 2 "re-verify with manifest $f"
}
printf 'a list of files\n' >notes.txt
refused notes.txt "not an SQLite database"
sqlite3 other.db "create table t(a); insert into t values (1);"
refused other.db "another SQLite database"
cp m2.db newer.db && sqlite3 newer.db "pragma user_version = 9"
refused newer.db "made by a newer fastcp \(schema 9"
# Damage inside the file, its SQLite header intact.
cp m2.db damaged.db && sqlite3 damaged.db "pragma wal_checkpoint(truncate)" >/dev/null
size=$(stat -c %s damaged.db)
[ "$size" -gt 4096 ] || fail "manifest too small to damage: $size"
head -c $((size - 4096)) /dev/urandom | dd of=damaged.db bs=1 seek=4096 conv=notrunc status=none
refused damaged.db "(damaged|malformed|not a database)"
run_fcp --manifest nowhere/m.db src new
check_rc 2 "manifest in a missing directory"
check_grep "cannot use manifest 'nowhere/m.db': No such file or directory" "$T/err"
check_absent new
mkdir ro && mount -t tmpfs -o ro,size=1m tmpfs ro && t_mounts_+=("$T/ro") || fail "mount tmpfs"
run_fcp --manifest ro/m.db src new
check_rc 2 "manifest on a read-only filesystem"
check_grep "cannot use manifest 'ro/m.db': Read-only file system" "$T/err"
check_absent new

# Two runs at once on one manifest (and a third that only checks).
mkdir -p s1 s2 both
for i in $(seq 1 300); do printf '%d\n' "$i" >"s1/a$i"; printf 'x%d\n' "$i" >"s2/b$i"; done
"$FASTCP" --manifest shared.db s1 both 2>err1 & p1=$!
"$FASTCP" --manifest shared.db s2 both 2>err2 & p2=$!
wait $p1 || { cat err1; fail "first of two runs at once"; }
wait $p2 || { cat err2; fail "second of two runs at once"; }
"$FASTCP" -c --manifest shared.db s1 both 2>err1 & p1=$!
"$FASTCP" --check --manifest shared.db s2 both >out2 2>err2 & p2=$!
wait $p1 || { cat err1; fail "--checksum beside --check"; }
wait $p2 || { cat out2 err2; fail "--check beside --checksum"; }
check_eq "$(sqlite3 shared.db 'pragma integrity_check')" "ok" "integrity of a shared manifest"
check_eq "$(sqlite3 shared.db 'select count(*) from files where side = 0')" 600 "rows of both runs"
check_eq "$(sqlite3 shared.db 'select count(*) from files where side = 1')" 600 "hashed sources of both"
echo "PASS"
