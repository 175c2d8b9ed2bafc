#!/bin/bash
# --verify reads the copy back from storage, not from the page cache
# (issue 19, "Verify that means it"). The destination is faultfs with
# --corrupt-write: it stores the first byte of every write inverted, while
# the kernel's page cache keeps the bytes as written (and keeps them across
# opens). A read-back through the cache would see a good copy.
#   - Without --verify the copy "succeeds" (exit 0) and is wrong on the
#     backing store, while a read through the mount still shows the good
#     bytes: only a read that bypasses the cache can tell. --check, which
#     reads DEST from storage, finds each bad copy.
#   - With --verify, on every data path (small files in the io_uring batch,
#     the same with --no-io-uring, a medium file, a sparse one, a large one
#     in chunks): each file is copied twice (the retry), then reported with
#     its path, exit 1; nothing under its final name, no temporary name
#     left; the summary counts the failures.
#   - --events: each file that did not verify is a "failed" event with
#     its path and the reason.
#   - --move --verify keeps every source whose copy did not verify.
#   - A corruption of the first write only (--corrupt-count=1) is healed by
#     the retry: exit 0, a good copy, counted as verified.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd cmp truncate dd
FCP_TIMEOUT=180

S=$T/src
mkdir -p "$S/small" "$S/medium" "$S/sparse" "$S/big"
# Whole pages: the page cache keeps a page the copy wrote whole.
for i in 1 2 3; do head -c 65536 /dev/urandom >"$S/small/s$i"; done
head -c $((1 << 20)) /dev/urandom >"$S/medium/m"
truncate -s 4M "$S/sparse/h"
dd if=/dev/urandom of="$S/sparse/h" bs=64K count=1 conv=notrunc status=none
dd if=/dev/urandom of="$S/sparse/h" bs=64K count=4 seek=16 conv=notrunc status=none
# Above FCP_LARGE_MIN (64 MiB, lib/engine/engine.h): three 32 MiB chunks.
head -c $((65 << 20)) /dev/urandom >"$S/big/b"

B=$T/back
mkdir -p "$B"
M=$T/m
faultfs_mount "$B" "$M" --corrupt-write='*'

# Without --verify: exit 0, a bad copy that the page cache hides.
mkdir -p "$B/plain"
run_fcp --reflink=never -T "$S/small" "$M/plain"
check_rc 0 "without --verify the corrupted copy is not noticed"
for i in 1 2 3; do
	! cmp -s "$S/small/s$i" "$B/plain/s$i" || fail "faultfs did not corrupt s$i: the test proves nothing"
	cmp "$S/small/s$i" "$M/plain/s$i" ||
		fail "s$i read through the mount is bad too: a cached read-back would also catch it, the test cannot tell"
done
# --check reads DEST from storage too: each bad copy is found, though the
# page cache still holds its good bytes (a cached read said "equal").
# Both ways: small files a batch at a time through io_uring
# (check_uring.c), and one by one (plan.c).
for how in "" --no-io-uring; do
	run_fcp --check $how -T "$S/small" "$M/plain"
	check_rc 1 "--check $how of copies bad in storage, good in the page cache"
	for i in 1 2 3; do
		check_grep "^content differs: '$M/plain/s$i'\$" "$T/out"
	done
done

# check_verify_failed DIR FILE...: each FILE (under $S/DIR) reported as not
# verified; nothing of it in the copy, no temporary name.
check_verify_failed() {
	local dir=$1 f
	shift
	check_rc 1 "--verify of corrupted $dir"
	for f; do
		check_grep "cannot verify copy of '$S/$dir/$f': read back from storage, it differs from the source \(copied twice\)" "$T/err"
		check_absent "$B/v$dir/$f" "a copy that failed verification has its final name"
		grep -F "\"path\":\"$S/$dir/$f\"" "$T/ev" | grep '"event":"failed"' |
			grep -q '"reason":"cannot verify copy of: read back from storage' ||
			fail "no failed event for $dir/$f with the reason"
	done
	check_grep "fastcp: $# items? failed" "$T/err"
	check_no_temp "$B/v$dir"
}

for dir in small medium sparse big; do
	mkdir -p "$B/v$dir"
	run_fcp --verify --reflink=never --events "$T/ev" -T "$S/$dir" "$M/v$dir"
	check_verify_failed "$dir" $(ls "$S/$dir")
done
mkdir -p "$B/vsync"
run_fcp --verify --no-io-uring -T "$S/small" "$M/vsync"
check_rc 1 "--verify --no-io-uring of corrupted files"
for i in 1 2 3; do
	check_grep "cannot verify copy of '$S/small/s$i'" "$T/err"
	check_absent "$B/vsync/s$i"
done
check_no_temp "$B/vsync"
# --move: a source whose copy did not verify is not removed.
cp -a "$S/small" "$T/mv"
run_fcp --move --verify "$T/mv" "$M/"
check_rc 1 "--move --verify of corrupted files"
for i in 1 2 3; do cmp "$S/small/s$i" "$T/mv/s$i" || fail "--move removed or changed a source whose copy failed: s$i"; done
umount "$M" || umount -l "$M"

# One bad write: the retry heals it, in the batch and on the synchronous path.
n=0
for what in small/s1 medium/m big/b; do
	n=$((n + 1))
	faultfs_mount "$B" "$T/once$n" --corrupt-write='*' --corrupt-count=1
	mkdir -p "$B/once$n"
	run_fcp -v --verify --reflink=never -T "$S/${what%/*}" "$T/once$n/once$n"
	check_rc 0 "$what: a corruption of the first write is not healed by the retry"
	cmp "$S/$what" "$B/once$n/${what#*/}" || fail "$what: the copy on the backing store differs"
	check_grep "verified [0-9]+ files? " "$T/err"
	umount "$T/once$n" || umount -l "$T/once$n"
done
echo "PASS"
