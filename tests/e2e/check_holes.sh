#!/bin/bash
# --check compares holes (issue 33, item 11): the copy promises them, so a
# copy whose holes were filled (written out as zeros: same size, same
# bytes) is a difference, "holes filled (allocated A != B)", exit 1. The
# destination's rounding is no difference: a correct copy of sparse files
# (one byte of data, many small extents, all hole) to this directory, to
# tmpfs and to XFS checks equal; --sparse=never, which fills them on
# purpose, does not compare them.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd cp truncate

mkdir src
truncate -s 10M src/one && printf 'data' | dd of=src/one bs=1 seek=5000000 conv=notrunc status=none
truncate -s 1M src/allhole
truncate -s 8M src/many
for i in $(seq 0 99); do printf 'x' | dd of=src/many bs=1 seek=$((i * 81920 + 7)) conv=notrunc status=none; done
head -c 300000 /dev/urandom >src/dense
[ "$(stat -c %b src/one)" -lt 100 ] || skip "this filesystem does not keep holes"

dests=(dst)
if [ "$(id -u)" = 0 ]; then
	t_mount_fs tmpfs 64M "$T/tmpfs"
	dests+=(tmpfs/dst)
	if command -v mkfs.xfs >/dev/null; then
		t_mount_fs xfs 300M "$T/xfs"
		dests+=(xfs/dst)
	fi
fi
for d in "${dests[@]}"; do
	run_fcp -a -T src "$d"
	check_rc 0 "copy to $d"
	run_fcp --check -a -T src "$d"
	check_rc 0 "check of a sparse copy in $d"
	check_eq "$(cat "$T/out")" "" "differences in $d"
done

# Holes written out as zeros: the bytes are the same, the holes are gone.
for f in one allhole many; do
	cp --sparse=never "src/$f" "dst/$f" && touch -r "src/$f" "dst/$f"
	check cmp "src/$f" "dst/$f"
done
[ "$(stat -c %b dst/one)" -gt 10000 ] || skip "cp --sparse=never kept holes here"
run_fcp --check -a -T src dst
check_rc 1 "check of a copy whose holes were filled"
check_grep "^holes filled \(allocated [0-9]+ != [0-9]+\): 'dst/one'$" "$T/out"
check_grep "^holes filled \(allocated 0 != [0-9]+\): 'dst/allhole'$" "$T/out"
check_grep "^holes filled \(allocated [0-9]+ != [0-9]+\): 'dst/many'$" "$T/out"
check_eq "$(wc -l <"$T/out")" 3 "lines of the check"
run_fcp --check --sparse=never -a -T src dst
check_rc 0 "--sparse=never does not compare holes"
echo "PASS"
