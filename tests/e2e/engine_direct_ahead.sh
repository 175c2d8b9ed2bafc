#!/bin/bash
# A large file none of which is cached is read around the page cache by
# its chunk runners with several reads in flight each, through io_uring
# (lib/engine/direct_ahead.c), instead of one synchronous 1 MiB pread after
# another: --debug says so, and strace sees no 1 MiB pread of it. The copy
# must be byte-exact with data on both sides of chunk borders, ranges the
# source allocated and never wrote (unwritten extents: zeros, read as such;
# --sparse=always makes them holes of the copy, and only them) and a last
# partial block; so with --verify and --sparse=always, and the same
# through the synchronous loop (--no-io-uring), which must then read it
# with preads. (A file with holes, fewer blocks than its size, is read
# through the cache: direct.c; engine_chunks.sh copies those.)
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd cmp dd fallocate
need_built HAVE_LIBURING "built without liburing: large files are read one request at a time"
"$FASTCP" --version --verbose | grep -q "when none of the file is cached" ||
	skip "this kernel has no cachestat(2): large files are read through the cache"
"$FASTCP" --version --verbose | grep -q "small files: io_uring" ||
	skip "no io_uring here: large files are read one request at a time"

t_mount_fs xfs 512M "$T/s"
t_mount_fs xfs 512M "$T/d"
MiB=$((1 << 20))
size=$((100 * MiB + 12345)) # chunks of 32 MiB: 4, the last with a partial block
# The whole size allocated, unwritten (st_blocks covers it, so it is read
# directly), then data written at: the start; across the border of chunks
# 0 and 1; 64 KiB alone; an extent starting at an
# odd block; the last 30 MiB, across the border of chunks 2 and 3, to the
# partial last block.
fallocate -l "$size" s/big || skip "no fallocate on XFS here"
put() { # OFFSET LENGTH
	head -c "$2" /dev/urandom | dd of=s/big bs=1M seek="$1" oflag=seek_bytes conv=notrunc iflag=fullblock status=none
}
put 0 $((5 * MiB))
put $((30 * MiB)) $((10 * MiB))
put $((45 * MiB)) $((64 << 10))
put $((50 * MiB + 3 * 4096)) $((3 * MiB + 8192))
put $((70 * MiB)) $((size - 70 * MiB))
check_eq "$(stat -c %s s/big)" "$size" "source size"
touch -d '2005-06-07 08:09:10.5' s/big
dd if=s/big of=/dev/null bs=4096 count=1 iflag=direct status=none || skip "no O_DIRECT on this XFS"

drop() {
	sync s/big
	dd if=s/big iflag=nocache count=0 status=none
	if command -v fincore >/dev/null; then
		[ "$(t_cached s/big)" = 0 ] || skip "the page cache kept the source"
	fi
}

# The data of a file: what SEEK_DATA finds, [start, end) per extent.
extents() {
	python3 - "$1" <<'EOF'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
end, off, out = os.fstat(fd).st_size, 0, []
while off < end:
    try:
        d = os.lseek(fd, off, os.SEEK_DATA)
    except OSError:
        break
    h = os.lseek(fd, d, os.SEEK_HOLE)
    out.append("%d-%d" % (d, h))
    off = h
print(" ".join(out))
EOF
}
need_cmd python3
want_ext="0-$((5 * MiB)) $((30 * MiB))-$((40 * MiB)) $((45 * MiB))-$((45 * MiB + (64 << 10))) $((50 * MiB + 3 * 4096))-$((53 * MiB + 5 * 4096)) $((70 * MiB))-$size"
check_eq "$(drop; extents s/big)" "$want_ext" "the source's data extents"

for opts in "" "--verify" "--sparse=always" "--no-io-uring"; do
	rm -rf d/c
	drop
	# shellcheck disable=SC2086
	run_fcp -j 2 --debug $opts s/big d/c
	check_rc 0 "copy $opts"
	check cmp s/big d/c
	check_eq "$(stat -c %Y.%s d/c)" "$(stat -c %Y.%s s/big)" "mtime and size of the copy ($opts)"
	if [ "$opts" = --sparse=always ]; then
		check_eq "$(extents d/c)" "$want_ext" "the copy's data extents ($opts)"
	fi
	check_grep "s/big' -> .*in chunks.*O_DIRECT" "$T/err" "s/big was not read directly in chunks ($opts)"
	if [ "$opts" = --no-io-uring ]; then
		check_nogrep "several reads in flight" "$T/err"
	else
		check_grep "s/big' -> .*several reads in flight per runner \(io_uring\)" "$T/err" \
			"s/big's chunks were not read with several reads in flight ($opts)"
	fi
	check_no_temp d
done

# --bwlimit holds the reads in flight too: 100 MiB at 40 MiB/s take 2.5 s
# (some burst allowed).
rm -rf d/c
drop
start=$(date +%s%N)
run_fcp -j 2 --debug --bwlimit 40M s/big d/c
ms=$((($(date +%s%N) - start) / 1000000))
check_rc 0 "copy at --bwlimit 40M"
note "100 MiB at --bwlimit 40M in $ms ms"
check cmp s/big d/c
check_grep "several reads in flight" "$T/err" "not read with reads in flight at --bwlimit"
[ "$ms" -ge 1800 ] || fail "100 MiB copied in $ms ms at --bwlimit 40M"

# A signal while reads are in flight: nothing under the final name, no
# temporary file left after SIGINT (the stopped runners wait for their
# reads and stop); after SIGKILL, nothing under the final name, and the
# same command then makes the whole copy. At 20 MiB/s the copy lasts 5 s;
# the signal comes once 8 MiB are written, a moment the test sees.
written() { find d -maxdepth 1 -name '.fcp*' -type f -exec du -k {} + 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
for sig in INT KILL; do
	rm -rf d/c d/.fcp*
	drop
	interruptible "$FASTCP" -j 2 --bwlimit 20M s/big d/c 2>"$T/err$sig" &
	pid=$!
	for ((i = 0; i < 1500; i++)); do
		[ "$(written)" -ge 8192 ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	[ "$(written)" -ge 8192 ] || { kill -KILL "$pid"; fail "the copy did not get under way before SIG$sig"; }
	kill -s "$sig" "$pid"
	{ wait "$pid"; } 2>/dev/null # no "Killed" line from the shell
	rc=$?
	check_eq "$rc" "$((128 + $(kill -l "$sig")))" "exit status after SIG$sig"
	check_absent d/c "a stopped copy under its final name after SIG$sig"
	[ "$sig" = INT ] && check_no_temp d
	run_fcp -j 2 s/big d/c
	check_rc 0 "the copy again after SIG$sig"
	check cmp s/big d/c
	rm -f d/.fcp* # what SIGKILL left (the copy names it)
done

# Each 1 MiB read reaches the source's device as one request: its slot is
# a huge page (lib/core/worker.c), not 256 scattered pages that a device of 128
# segments (the loop driver) splits in two. About 50 reads for its 48 MiB
# of data (unwritten extents are not read from the device), not 100.
# Without a huge page from the kernel, that cannot be seen here.
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
dev=$(basename "$(findmnt -n -o SOURCE -T s)")
if [ ! -r "/sys/block/$dev/stat" ] || ! grep -q '\[\(always\|madvise\)\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	nohuge="no transparent huge pages or no stat of the source's device here: the size of its reads was not seen (the rest passed)"
else
	rm -rf d/c
	drop
	read -r r1 _ s1 _ <"/sys/block/$dev/stat"
	h1=$(vmstat thp_fault_fallback)
	run_fcp -j 2 s/big d/c
	read -r r2 _ s2 _ <"/sys/block/$dev/stat"
	h2=$(vmstat thp_fault_fallback)
	check_rc 0 "copy for the read sizes"
	check cmp s/big d/c
	note "$((r2 - r1)) reads of the source's device, $(((s2 - s1) / 2 / (r2 - r1 > 0 ? r2 - r1 : 1))) KiB each; $((h2 - h1)) huge pages refused"
	if [ "$((r2 - r1))" -gt 75 ] && [ "$h2" != "$h1" ]; then
		nohuge="the kernel refused huge pages (memory fragmented): the size of the reads was not checked (the rest passed)"
	else
		[ "$((r2 - r1))" -le 75 ] || fail "$((r2 - r1)) reads of the device for 48 MiB: the 1 MiB reads were split"
	fi
fi

# The syscalls: no 1 MiB pread of the source with io_uring, and only preads
# (one at a time) without.
if command -v strace >/dev/null; then
	for opts in "" "--no-io-uring"; do
		rm -rf d/c
		drop
		# shellcheck disable=SC2086
		strace -f -qq -o "$T/trace" -e trace=pread64,io_uring_enter "$FASTCP" -j 2 $opts s/big d/c ||
			fail "fastcp $opts under strace"
		check cmp s/big d/c
		# Whole lines and the ends of those another thread interrupted.
		preads=$(grep -cE "pread64.*, $MiB, [0-9]+\) += $MiB" "$T/trace")
		enters=$(grep -c "io_uring_enter(" "$T/trace")
		note "$opts: $preads preads of 1 MiB, $enters io_uring_enter"
		if [ -z "$opts" ]; then
			check_eq "$preads" 0 "1 MiB preads of the source with io_uring"
			# About 100 reads of 1 MiB, at most four reaped by each.
			[ "$enters" -ge 20 ] || fail "$enters io_uring_enter for about 100 reads through io_uring"
		else
			[ "$preads" -ge 90 ] || fail "$preads preads of 1 MiB without io_uring, want 90 and more"
		fi
	done
else
	skip "no strace to count the reads (the rest passed)"
fi
[ -z "${nohuge:-}" ] || skip "$nohuge"
echo "large files read directly with several reads in flight, exact with unwritten extents and a partial tail"
