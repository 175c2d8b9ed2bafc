#!/bin/sh
# The floor of a workload on this machine ("The limit on small files" in
# docs/benchmarks/2026-11-30-issue-4-targets.md): fastcp-bench floor (the tree written from memory: create,
# write, close per file, 2 threads, then syncfs) against fastcp and a peer
# (the tar pipe, or cp -a, the fastest peer on large files), interleaved in
# each round, every run on a fresh XFS loopback filesystem, the source read
# before each run (warm), sync inside the time.
#   sh scripts/bench-floor.sh [RESULTS_DIR] [WORKLOAD] [ROUNDS] [tar|cp]
# Needs root and the source tree of scripts/benchmarks.sh.
set -eu
. "$(dirname "$0")/bench-common.sh"
w=${2:-small} rounds=${3:-3} peer=${4:-tar}
base=/tmp/fcp-bench src=/tmp/fcp-bench/src/$w
img=$base/work/floor.img mnt=$base/work/floor
mkdir -p "$out" "$mnt"
[ -d "$src" ] || { echo "no $src: run scripts/benchmarks.sh first" >&2; exit 1; }
now() { date +%s.%N; }
run() { # NAME COMMAND...: one timed run on a fresh filesystem (NAME -: untimed)
	name=$1
	shift
	truncate -s 4G "$img"
	mkfs.xfs -q -f -m reflink=1 "$img"
	mount_image "$img" "$mnt"
	# The source in the cache (tar writing to /dev/null itself reads nothing).
	tar -C "$src" -cf - . | cat >/dev/null
	sync
	t0=$(now)
	"$@" >"$mnt.log" 2>&1 || { cat "$mnt.log"; umount_image "$mnt"; exit 1; }
	t1=$(now)
	sync -f "$mnt"
	t2=$(now)
	umount_image "$mnt"
	rm -f "$img"
	# The floor times itself: its load of the source into memory is not
	# part of what it measures.
	own=$(sed -n 's/.*, total \([0-9.]*\) s$/\1/p' "$mnt.log")
	[ "$name" != - ] || return 0
	echo "$name $(echo "$t1 $t0 $t2 ${own:-}" | awk '{w = NF > 3 ? $4 : $1 - $2
		printf "%.3f %.3f", w + $3 - $1, $3 - $1}')" | tee -a "$res"
}
case $peer in
tar) peercmd="mkdir '$mnt/out' && tar -C '$src' -cf - . | tar -C '$mnt/out' -xf -" ;;
cp) peercmd="cp -a '$src' '$mnt/out'" ;;
*) echo "peer: tar or cp, not $peer" >&2; exit 2 ;;
esac
res=$out/$w-floor.txt
: >"$res"
echo "# NAME TOTAL_S SYNC_AFTER_S (source $src, $rounds rounds)" | tee -a "$res"
# A warm-up run (the peer), not recorded: the first run of a loop was
# often its slowest on this machine ("Noise" in docs/benchmarks/protocol.md).
run - sh -c "$peercmd"
for r in $(seq 1 "$rounds"); do
	run floor $B floor --threads 2 "$src" "$mnt/out"
	run fastcp $F "$src" "$mnt/out"
	run "$peer" sh -c "$peercmd"
done
echo "# medians:" | tee -a "$res"
for name in floor fastcp "$peer"; do
	grep "^$name " "$res" | awk '{print $2}' | sort -n | awk -v n="$name" \
		'{v[NR] = $1} END {print "# " n, (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}' |
		tee -a "$res"
done
