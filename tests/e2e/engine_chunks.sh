#!/bin/bash
# Large files are copied in 32 MiB chunks by several workers: the result
# must be byte-exact, keep every hole (data on both sides of chunk borders,
# holes spanning whole chunks, a trailing hole), and be the same with one
# worker (no chunks), with io_uring on or off, and on every engine.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

mkdir s
head -c $((100 * 1024 * 1024 + 12345)) /dev/urandom > s/dense
truncate -s 300M s/sparse
for off in 0 33554430 67108864 100000000 134217727 200000000; do
	head -c 5000 /dev/urandom | dd of=s/sparse bs=1 seek=$off conv=notrunc status=none
done
truncate -s 70M s/allhole
touch -d '2003-04-05 06:07:08.5' s/dense s/sparse s/allhole

for variant in "-j 1" "-j 4" "-j 8 --reflink=never" "-j 3 --no-io-uring" "-j 2 --fsync"; do
	rm -rf d
	# shellcheck disable=SC2086
	run_fcp $variant s d
	check_rc 0 "fastcp $variant"
	check_tree s d
	check cmp s/dense d/dense
	check cmp s/sparse d/sparse
	check_no_temp d
done
# More large files than CPUs, all in chunks at once: each lands whole,
# with its own metadata, and the directory's metadata comes after all
# of them.
mkdir m
for i in 1 2 3 4 5; do
	head -c $((65 * 1024 * 1024 + i)) /dev/urandom > m/big$i
	touch -d "2001-02-0$i 03:04:05.$i" m/big$i
done
cp --reflink=never s/sparse m/sparse
touch -d '2000-01-01 00:00:00.25' m
for variant in "-j 8" "-j 3 --reflink=never" "-j 8 --verify"; do
	rm -rf d
	# shellcheck disable=SC2086
	run_fcp $variant m d
	check_rc 0 "fastcp $variant, six large files"
	check_tree m d
	check_no_temp d
done

# The copy of a sparse file is small on disk, not 300 MiB.
used=$(du -k d/sparse | cut -f1)
[ "$used" -lt 1024 ] || fail "sparse copy uses $used KiB"

# Each chunk written goes to the device at once (sync_file_range of its
# 32 MiB, by another worker), without waiting for the final sync; one
# worker copies the file whole and leaves it to the kernel.
if command -v strace >/dev/null; then
	for j in 4 1; do
		rm -rf d
		strace -f -qq -o "$T/trace" -e trace=sync_file_range "$FASTCP" -j $j s/dense d ||
			fail "fastcp -j $j under strace"
		check cmp s/dense d
		got=$(grep -oE 'sync_file_range\([0-9]+, [0-9]+, [0-9]+' "$T/trace" | cut -d' ' -f2,3 | sort -n | tr '\n' ' ')
		want="0, 33554432 33554432, 33554432 67108864, 33554432 100663296, 33554432 "
		[ $j = 1 ] && want=
		check_eq "$got" "$want" "writeback of each chunk, -j $j"
	done
else
	# The rest ran; an unchecked part makes the test a SKIP, never a PASS.
	skip "the writeback of chunks needs strace, which is not installed (the rest passed)"
fi

# A large file none of which is cached is read around the page cache
# (O_DIRECT, direct.c) by every runner: after its copy none of it is
# cached. Once cached, it is read through the cache.
if ! "$FASTCP" --version --verbose | grep -q "when none of the file is cached"; then
	skip "this kernel has no cachestat(2): large files are read through the cache (the rest passed)"
elif ! command -v fincore >/dev/null || ! dd if=s/dense of=/dev/null bs=4096 count=1 iflag=direct status=none; then
	skip "no fincore, or no O_DIRECT where the test runs (the rest passed)"
fi
sync s/dense && dd if=s/dense iflag=nocache count=0 status=none
[ "$(t_cached s/dense)" = 0 ] || skip "the page cache kept the source (the rest passed)"
rm -rf d
run_fcp -j 4 s/dense d
check_rc 0 "fastcp -j 4, a large file not cached"
check_eq "$(t_cached s/dense)" 0 "bytes of the source cached by its copy"
cat s/dense >/dev/null
rm -rf d
run_fcp -j 4 s/dense d
check_rc 0 "fastcp -j 4, a large file cached"
check cmp s/dense d
echo "all variants identical"
