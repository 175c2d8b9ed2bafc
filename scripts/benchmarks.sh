#!/bin/sh
# Reproduce BENCHMARKS.md: every workload, cold and warm, fastcp against the
# other copiers (tables in RESULTS_DIR/WORKLOAD-MODE.md, the order of the
# runs in .err), source on an XFS loopback filesystem, destination on a fresh
# XFS loopback filesystem for every run (as issue 4 of the project asks).
# The source's loop device reads with direct I/O as a disk does;
# SOURCE_LOOP=buffered mounts it through a buffered loop instead (see
# mount_image in bench-common.sh). A source already mounted stays as it is.
#   sh scripts/benchmarks.sh [RESULTS_DIR] [WORKLOADS...]
# ROUNDS=N sets the timed rounds of each table (default 3), MODES the cache
# modes (default "cold warm").
# SCALE=K multiplies every workload's size below (default 1; the trees of
# another scale are generated beside the others as WORKLOAD-xK); a larger
# tree outgrows the page cache's dirty limits, where a gain may vanish.
# PEERS=DIR adds mpiFileUtils' dcp (DIR/bin/dcp, DIR/lib; built outside the
# repository, see its peers' notes), run by mpirun on 2 ranks.
# TOOLS="..." chooses the commands of the tables, by these names (default
# all but fastcp-mpi and the two read policies): fastcp fastcp-j8 cp rsync
# tar fpsync rclone dcp (with PEERS) fastcp-mpi (build/fastcp-mpi by mpirun
# on 2 ranks) fastcp-direct (--direct-read=always) fastcp-buffered
# (--direct-read=never).
# INFLIGHT=1 runs every command under scripts/inflight.py: the requests in
# flight on the source's device and on DEST's, sampled every 2 ms, into
# RESULTS_DIR/WORKLOAD-MODE.inflight and a table beside the other,
# WORKLOAD-MODE-inflight.md.
# SCALES="1 2" runs every table at each scale in turn (SCALE=K is one).
# The workload "slow" is small at a tenth of its size read through a source
# of 1 ms a round trip (compare --source-latency 1).
# REPORT=1 makes the run that BENCHMARKS.md's table is generated from: the
# workloads (default all five) at every scale, then the re-runs
# (scripts/bench-sync.sh) and --verify and --check (scripts/bench-trust.sh)
# into the same RESULTS_DIR, then scripts/bench-report.py, which rewrites
# the generated part of BENCHMARKS.md and docs/benchmarks/summary.svg.
# RESULTS_DIR/commit records the commit measured, for that report.
# SRC_FS_SIZE (default 24G, sparse) sizes the sources' filesystem image.
# Needs root (loop devices, cache drops), ~16 GB free in /tmp, fpart and rclone
# (apt-get install fpart rclone) for the last two peers.
set -eu
. "$(dirname "$0")/bench-common.sh"
shift 2>/dev/null || true
workloads=${*:-small folders large mixed}
[ -z "${REPORT:-}" ] || [ $# -gt 0 ] || workloads="small folders large mixed slow"
rounds=${ROUNDS:-3}
modes=${MODES:-cold warm}
base=/tmp/fcp-bench
mkdir -p "$out" "$base/src" "$base/work"
out=$(cd "$out" && pwd) # the runs below happen in another directory
# The report names the commit of its one run; a checkout with changes is
# not that commit, and says so.
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$top" diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
echo "$commit" >"$out/commit"
# A source mounted the other way than SOURCE_LOOP asks is mounted again.
if mountpoint -q "$base/src"; then
	dio=$(losetup -n -O DIO "$(findmnt -n -o SOURCE --mountpoint "$base/src")" 2>/dev/null | tr -d ' ')
	want=1; [ "$source_loop" = direct ] || want=0
	[ "$dio" = "$want" ] || umount_image "$base/src"
fi
if ! mountpoint -q "$base/src"; then
	truncate -s "${SRC_FS_SIZE:-24G}" "$base/src.img"
	mkfs.xfs -q -f -m reflink=1 "$base/src.img"
	mount_image "$base/src.img" "$base/src" "$source_loop"
fi
# How the source was read, for the report: a loop device with direct I/O
# (as a disk) or a buffered one, found from the mount, not assumed.
dev=$(findmnt -n -o SOURCE --mountpoint "$base/src")
case $(losetup -n -O DIO "$dev" 2>/dev/null | tr -d ' ') in
1) echo "a loop device with direct I/O, as a disk" ;;
0) echo "a buffered loop device (a second page cache no disk has)" ;;
*) echo "$dev" ;;
esac >"$out/source"
cd "$base/src"
# Scales: small and large at full size; folders at half (1.5 GB) and mixed
# at a tenth (1.1 GB) of the seeds' sizes, to fit the machine's time; all
# of them times SCALE.
scales=${SCALES:-${SCALE:-1}}
for k in $scales; do
	sfx=; [ "$k" = 1 ] || sfx=-x$k
	for w in $workloads; do
		kind=$w
		case $w in folders) base_scale=0.5 ;; mixed|slow) base_scale=0.1 ;; *) base_scale=1 ;; esac
		[ "$w" = slow ] && kind=small
		[ -d "$w$sfx" ] || $B gen "$kind" "$w$sfx" --seed 1 --scale "$(awk "BEGIN { print $base_scale * $k }")"
	done
done
dcp=
if [ -n "${PEERS:-}" ]; then
	[ -x "$PEERS/bin/dcp" ] || { echo "benchmarks.sh: no $PEERS/bin/dcp" >&2; exit 2; }
	dcp="LD_LIBRARY_PATH=$PEERS/lib mpirun --allow-run-as-root --oversubscribe --bind-to none"
	dcp="$dcp -np 2 -x LD_LIBRARY_PATH $PEERS/bin/dcp -p {src} {dst}"
fi
mpi="mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2"
tools=${TOOLS:-fastcp fastcp-j8 cp rsync tar fpsync rclone dcp}
set --
tags=
for t in $tools; do
	m=$#
	case $t in
	fastcp) set -- "$@" "$F {src} {dst}" ;;
	fastcp-j8) set -- "$@" "$F -j 8 {src} {dst}" ;;
	fastcp-direct) set -- "$@" "$F --direct-read=always {src} {dst}" ;;
	fastcp-buffered) set -- "$@" "$F --direct-read=never {src} {dst}" ;;
	cp) set -- "$@" 'cp -a {src} {dst}' ;;
	rsync) set -- "$@" 'rsync -a {src}/ {dst}/' ;;
	tar) set -- "$@" 'mkdir {dst} && tar -C {src} -cf - . | tar -C {dst} -xf -' ;;
	fpsync) set -- "$@" 'fpsync -n 2 {src}/ {dst}/' ;;
	# rclone as fast as it goes here (the peers' notes): no hash of each
	# copy read back (--ignore-checksum; fastcp reads none back either
	# unless --verify), two transfers for two cores, with metadata.
	rclone) set -- "$@" 'rclone copy --links --metadata --create-empty-src-dirs --ignore-checksum --transfers 2 --checkers 4 {src} {dst}' ;;
	dcp) [ -z "$dcp" ] || set -- "$@" "$dcp" ;;
	fastcp-mpi)
		[ -x "$top/build/fastcp-mpi" ] || { echo "benchmarks.sh: no build/fastcp-mpi" >&2; exit 2; }
		cp "$top/build/fastcp-mpi" "$bin/"
		set -- "$@" "$mpi $bin/fastcp-mpi {src} {dst}" ;;
	*) echo "benchmarks.sh: unknown tool '$t'" >&2; exit 2 ;;
	esac
	[ $# = "$m" ] || tags="$tags $t"
done
# INFLIGHT=1: each command run by inflight.py, tagged with its tool's name,
# into the log of the table being made (INFLIGHT_LOG, set below). Not for
# the report: its tables name the commands as a user runs them.
if [ -n "${INFLIGHT:-}" ] && [ -n "${REPORT:-}" ]; then
	echo "benchmarks.sh: INFLIGHT=1 and REPORT=1 do not go together" >&2
	exit 2
fi
if [ -n "${INFLIGHT:-}" ]; then
	n=$# i=0
	for c in "$@"; do
		i=$((i + 1))
		tag=$(echo $tags | cut -d' ' -f$i)
		q=$(printf %s "$c" | sed "s/'/'\\\\''/g")
		set -- "$@" "python3 $top/scripts/inflight.py run - $tag {src} {dst} '$q'"
	done
	shift "$n"
fi
for k in $scales; do
	sfx=; [ "$k" = 1 ] || sfx=-x$k
	fs_size=$(awk "BEGIN { s = 4 * $k; print (s < 4 ? 4 : int(s + 0.999)) }")G
	for w0 in $workloads; do
		w=$w0$sfx lat=
		[ "$w0" = slow ] && lat="--source-latency 1"
		for mode in $modes; do
			export INFLIGHT_LOG="$out/$w-$mode.inflight"
			rm -f "$INFLIGHT_LOG"
			# shellcheck disable=SC2086
			$B compare --rounds "$rounds" --warmup 1 --$mode --fresh-fs xfs --fs-size "$fs_size" --work-dir "$base/work" \
				$lat --json "$out/$w-$mode.json" --svg "$out/$w-$mode.svg" "$base/src/$w" -- \
				"$@" > "$out/$w-$mode.md" 2> "$out/$w-$mode.err"
			[ -z "${INFLIGHT:-}" ] ||
				python3 "$top/scripts/inflight.py" summary "$INFLIGHT_LOG" >"$out/$w-$mode-inflight.md"
		done
	done
done
if [ -n "${REPORT:-}" ]; then
	SCALES=$scales ROUNDS=$rounds sh "$top/scripts/bench-sync.sh" "$out"
	SCALES=$scales ROUNDS=$rounds TABLES="verify check" sh "$top/scripts/bench-trust.sh" "$out"
	python3 "$top/scripts/bench-report.py" "$out"
fi
