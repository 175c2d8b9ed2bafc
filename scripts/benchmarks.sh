#!/bin/sh
# Reproduce BENCHMARKS.md: every workload, cold and warm, fastcp against the
# other copiers (tables in RESULTS_DIR/WORKLOAD-MODE.md, the order of the
# runs in .err), source on an XFS loopback filesystem, destination on a fresh
# XFS loopback filesystem for every run (as issue 4 of the project asks).
#   sh scripts/benchmarks.sh [RESULTS_DIR] [WORKLOADS...]
# ROUNDS=N sets the timed rounds of each table (default 3), MODES the cache
# modes (default "cold warm").
# With CORE=1, only warm tables against cp, rsync and the tar pipe
# (files WORKLOAD-warm-core.*): a check of the warm tables without rclone,
# after which the next run was seen to be slow whoever it was.
# Needs root (loop devices, cache drops), ~16 GB free in /tmp, fpart and rclone
# (apt-get install fpart rclone) for the last two peers.
set -eu
. "$(dirname "$0")/bench-common.sh"
shift 2>/dev/null || true
workloads=${*:-small folders large mixed}
rounds=${ROUNDS:-3}
modes=${MODES:-cold warm}
base=/tmp/fcp-bench
mkdir -p "$out" "$base/src" "$base/work"
out=$(cd "$out" && pwd) # the runs below happen in another directory
if ! mountpoint -q "$base/src"; then
	truncate -s 12G "$base/src.img"
	mkfs.xfs -q -f -m reflink=1 "$base/src.img"
	mount -o loop "$base/src.img" "$base/src"
fi
cd "$base/src"
# Scales: small and large at full size; folders at half (1.5 GB) and mixed
# at a tenth (1.1 GB) of the seeds' sizes, to fit the machine's time.
[ -d small ] || $B gen small small --seed 1
[ -d folders ] || $B gen folders folders --seed 1 --scale 0.5
[ -d large ] || $B gen large large --seed 1
[ -d mixed ] || $B gen mixed mixed --seed 1 --scale 0.1
for w in $workloads; do
	if [ "${CORE:-}" = 1 ]; then
		$B compare --rounds "$rounds" --warmup 1 --warm --fresh-fs xfs --fs-size 4G --work-dir "$base/work" \
			--json "$out/$w-warm-core.json" "$base/src/$w" -- \
			"$F {src} {dst}" "$F -j 8 {src} {dst}" 'cp -a {src} {dst}' 'rsync -a {src}/ {dst}/' \
			'mkdir {dst} && tar -C {src} -cf - . | tar -C {dst} -xf -' \
			> "$out/$w-warm-core.md" 2> "$out/$w-warm-core.err"
		continue
	fi
	for mode in $modes; do
		$B compare --rounds "$rounds" --warmup 1 --$mode --fresh-fs xfs --fs-size 4G --work-dir "$base/work" \
			--json "$out/$w-$mode.json" --svg "$out/$w-$mode.svg" "$base/src/$w" -- \
			"$F {src} {dst}" "$F -j 8 {src} {dst}" 'cp -a {src} {dst}' 'rsync -a {src}/ {dst}/' \
			'mkdir {dst} && tar -C {src} -cf - . | tar -C {dst} -xf -' \
			'fpsync -n 2 {src}/ {dst}/' 'rclone copy --links {src} {dst}' \
			> "$out/$w-$mode.md" 2> "$out/$w-$mode.err"
	done
done
