#!/bin/sh
# The remaining figures of BENCHMARKS.md (issue 4's targets), as root:
#   1. kernel transitions per small file: strace -c -f, fastcp against cp -a
#   2. memory: peak RSS for the million workload (/usr/bin/time -v)
#   3. reflink: N files of 16 MiB cloned against --reflink=never, on one
#      XFS and one btrfs loopback filesystem (fastcp-bench compare)
#   sh scripts/bench-targets.sh [RESULTS_DIR] [CLONE_FILES]
set -eu
. "$(dirname "$0")/bench-common.sh"
files=${2:-250}
base=/tmp/fcp-targets
mkdir -p "$out" "$base"
cleanup() { for m in "$base"/m-*; do umount_image "$m" 2>/dev/null || true; done; }
trap cleanup EXIT
fs() { # TYPE SIZE -> mount point
	img="$base/$1.img" m="$base/m-$1"
	mkdir -p "$m"
	umount_image "$m" 2>/dev/null || true
	rm -f "$img"
	truncate -s "$2" "$img"
	case $1 in
	xfs) mkfs.xfs -q -f -m reflink=1 "$img" ;;
	btrfs) mkfs.btrfs -q -f "$img" >/dev/null ;; # it prints notes even with -q
	esac
	mount_image "$img" "$m" "$source_loop"
	echo "$m"
}

# 1. syscalls per file, small workload (10,000 files), warm, same fs
m=$(fs xfs 4G)
$B gen small "$m/src" --scale 0.2 --seed 1 >/dev/null
find "$m/src" -type f -exec cat {} + >/dev/null
strace -c -f -o "$out/strace-fastcp.txt" $F "$m/src" "$m/fastcp" 2>/dev/null
strace -c -f -o "$out/strace-cp.txt" cp -a "$m/src" "$m/cp"
umount_image "$m"

# 2. memory: the million workload (1,000,000 files of 0-100 bytes)
m=$(fs xfs 12G)
$B gen million "$m/src" --seed 1 >/dev/null
/usr/bin/time -v $F "$m/src" "$m/copy" 2> "$out/million-time.txt"
/usr/bin/time -v cp -a "$m/src" "$m/cp" 2> "$out/million-time-cp.txt"
umount_image "$m"

# 3. reflink: clone against a real copy on one filesystem
for t in xfs btrfs; do
	m=$(fs $t 12G)
	mkdir -p "$m/src" "$m/work"
	i=0
	while [ $i -lt "$files" ]; do
		head -c 16M /dev/urandom > "$m/src/f$i"
		i=$((i + 1))
	done
	$B compare --rounds 3 --warmup 1 --cold --work-dir "$m/work" "$m/src" -- \
		"$F {src} {dst}" "$F --reflink=never {src} {dst}" 'cp -a --reflink=never {src} {dst}' \
		> "$out/reflink-$t.md"
	umount_image "$m"
done
