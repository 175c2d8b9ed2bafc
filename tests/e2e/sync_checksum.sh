#!/bin/bash
# --checksum (-c), issue 18: the data is decided by content (XXH3-128 of
# both sides), not by size and mtime. A copy of the same size and mtime but
# other bytes is left alone by --sync (rsync's quick check cannot see it)
# and copied again by --checksum; the same bytes with another mtime are
# only given the mtime (the same inode); a file of another size is copied.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd cmp

mkdir src
head -c 70000 /dev/urandom >src/same_stamp
head -c 5000 /dev/urandom >src/same_bytes
printf 'short\n' >src/resized
for i in 1 2 3; do printf 'unchanged %d\n' "$i" >"src/u$i"; done
run_fcp -T src dst
check_rc 0 "first copy"
check_tree src dst

# Same size and mtime, other content: flip one byte in the middle.
printf 'X' | dd of=dst/same_stamp bs=1 seek=35000 conv=notrunc status=none
[ "$(head -c 35001 src/same_stamp | tail -c 1)" != X ] ||
	printf 'Y' | dd of=dst/same_stamp bs=1 seek=35000 conv=notrunc status=none
touch -m -r src/same_stamp dst/same_stamp
printf 'longer now\n' >dst/resized && touch -m -r src/resized dst/resized

run_fcp -v --sync -T src dst
check_rc 0 "--sync"
check_not cmp -s src/same_stamp dst/same_stamp # the quick check cannot see it

if ! grep -q 'define HAVE_XXHASH 1' "$(dirname "$FASTCP")/config.h" 2>/dev/null; then
	run_fcp -c -T src dst
	check_rc 2 "--checksum without libxxhash"
	check_grep "checksum is not available" "$T/err"
	skip "built without libxxhash: --checksum refused as it should be"
fi
touch -m -d @1500000000 dst/same_bytes     # same bytes, another mtime
i_bytes=$(stat -c %i dst/same_bytes)
run_fcp -v -c -T src dst
check_rc 0 "--checksum"
check_tree src dst
check_grep "^fastcp: copied 1 file \(" "$T/err"
check_eq "$(stat -c %i dst/same_bytes)" "$i_bytes" "same bytes: copied again instead of updated"
# u1..u3 and resized (fixed by --sync) unchanged, and the root directory:
# only the run's own rename in it moved its mtime, which is put back
# (check_tree) and is no change; same_bytes updated.
check_grep "^fastcp: 5 unchanged, 1 with metadata updated, 0 deleted$" "$T/err"
run_fcp -v -c -T src dst
check_rc 0 "--checksum again"
check_grep "^fastcp: copied 0 files" "$T/err"

# Small files are compared a batch at a time through io_uring
# (check_uring.c); one by one they must be decided alike.
printf 'X' | dd of=dst/same_stamp bs=1 seek=100 conv=notrunc status=none
[ "$(head -c 101 src/same_stamp | tail -c 1)" != X ] ||
	printf 'Y' | dd of=dst/same_stamp bs=1 seek=100 conv=notrunc status=none
touch -m -r src/same_stamp dst/same_stamp
run_fcp -v -c --no-io-uring -T src dst
check_rc 0 "--checksum --no-io-uring"
check_tree src dst
check_grep "^fastcp: copied 1 file \(" "$T/err"
echo "checksum: content decides"
