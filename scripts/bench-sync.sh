#!/bin/sh
# The repeat-copy tables of issue 18, as root: cold, a fresh XFS loopback
# filesystem for the destination of every run, source on an XFS loopback
# filesystem, the small workload at every scale of SCALES (50,000 files at 1):
#   unchanged  the destination is an up-to-date copy (prepared by cp -a):
#              fastcp --sync against rsync -a, rclone copy (and dsync),
#              and the floor of every tool that stats both sides: two
#              finds in parallel that stat every name and compare nothing;
#   changed    the same, then one destination file rewritten (same size,
#              other bytes, a new mtime), which must be copied again;
#   mirror     the source is the workload with every tenth file deleted
#              (5,000 at scale 1), the destination a copy of the whole
#              workload: fastcp --mirror against rsync -a --delete,
#              rclone sync (and dsync -D).
# Every result is verified against the source (fastcp-bench compare), so a
# tool that leaves the destination different is FAILED, not timed.
#   sh scripts/bench-sync.sh [RESULTS_DIR]
# Tables in RESULTS_DIR/sync-TABLE-sSCALE.{md,json,svg}, the order of the
# runs in .err. Environment:
#   SCALES="1 2"  ROUNDS=5 (timed rounds; one warm-up run before them)
#   PEERS=DIR     mpiFileUtils prefix (DIR/bin/dsync, DIR/lib): adds dsync
#                 (run by mpirun -np 2); left out when unset
#   FASTCP_SYNC_CMD, FASTCP_MIRROR_CMD  fastcp's commands, with {src} and
#                 {dst} (default: "$F --sync -T {src} {dst}", "$F --mirror
#                 -T {src} {dst}", $F a copy of build/fastcp)
#   BENCH_SYNC_DIR=/tmp/fcp-bench-sync  where the source filesystem is
#                 made (an image of SRC_FS_SIZE, default 8G, sparse)
# Needs root (loop devices, cache drops), rsync and rclone.
set -eu
. "$(dirname "$0")/bench-common.sh"
scales=${SCALES:-1 2}
rounds=${ROUNDS:-5}
base=${BENCH_SYNC_DIR:-/tmp/fcp-bench-sync}
mkdir -p "$out" "$base/src" "$base/work"
out=$(cd "$out" && pwd)
base=$(cd "$base" && pwd)

mounted=
cleanup() {
	[ -z "$mounted" ] || umount_image "$base/src" || true
	rm -rf "$bin"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# fastcp's own commands: refuse to time a fastcp that lacks them
sync_cmd=${FASTCP_SYNC_CMD:-"$F --sync -T {src} {dst}"}
mirror_cmd=${FASTCP_MIRROR_CMD:-"$F --mirror -T {src} {dst}"}
for opt in SYNC MIRROR; do
	eval "given=\${FASTCP_${opt}_CMD:-}"
	lower=$(echo $opt | tr A-Z a-z)
	if [ -z "$given" ] && ! "$F" --help 2>&1 | grep -q -- "--$lower"; then
		echo "bench-sync.sh: this fastcp has no --$lower; set FASTCP_${opt}_CMD" >&2
		exit 2
	fi
done
for tool in rsync rclone; do
	command -v $tool >/dev/null || { echo "bench-sync.sh: $tool is missing" >&2; exit 2; }
done
dsync=
if [ -n "${PEERS:-}" ]; then
	[ -x "$PEERS/bin/dsync" ] || { echo "bench-sync.sh: no $PEERS/bin/dsync" >&2; exit 2; }
	dsync="LD_LIBRARY_PATH=$PEERS/lib mpirun --allow-run-as-root --oversubscribe --bind-to none"
	dsync="$dsync -np 2 -x LD_LIBRARY_PATH $PEERS/bin/dsync"
fi

if ! mountpoint -q "$base/src"; then
	truncate -s "${SRC_FS_SIZE:-8G}" "$base/src.img"
	mkfs.xfs -q -f -m reflink=1 "$base/src.img"
	mount_image "$base/src.img" "$base/src" "$source_loop"
	mounted=1
fi

# table NAME SRC [compare options] -- COMMANDS... (at $scale)
table() {
	name=sync-$1-s$scale src=$2
	shift 2
	$B compare --rounds "$rounds" --warmup 1 --cold --fresh-fs xfs --work-dir "$base/work" \
		--json "$out/$name.json" --svg "$out/$name.svg" "$@" \
		> "$out/$name.md" 2> "$out/$name.err" || rc=1
	echo "$name: $(grep -c '^| [0-9]' "$out/$name.md") rows, $out/$name.md"
	# the source must not have been changed by a run
	[ -z "$(find "$src" -newer "$base/stamp-$scale" | head -n 1)" ] ||
		{ echo "bench-sync.sh: a run changed the source $src" >&2; rc=1; }
}

# Not a copier: the lstat of every name of both trees, at once.
floor="find {src} -printf '%s %T@\\n' >/dev/null & find {dst} -printf '%s %T@\\n' >/dev/null; wait"

rc=0
for scale in $scales; do
	full=$base/src/small-s$scale minus=$base/src/small-s$scale-minus10
	if [ ! -d "$full" ]; then # made under another name: never half a tree
		rm -rf "$full.tmp"
		$B gen small "$full.tmp" --seed 1 --scale "$scale" >/dev/null
		mv "$full.tmp" "$full"
	fi
	if [ ! -d "$minus" ]; then
		rm -rf "$minus.tmp"
		cp -a "$full" "$minus.tmp"
		(cd "$minus.tmp" && find . -type f | sort | awk 'NR % 10 == 0' | xargs -r rm -f --)
		mv "$minus.tmp" "$minus"
	fi
	touch "$base/stamp-$scale"
	# the first file of more than 16 bytes, in name order
	f=$(cd "$full" && find . -type f -size +16c | sort | head -n 1)
	f=${f#./}

	table unchanged "$full" --prepare 'cp -a {src}/. {dst}' "$full" -- \
		"$sync_cmd" 'rsync -a {src}/ {dst}/' 'rclone copy --links {src} {dst}' \
		${dsync:+"$dsync {src} {dst}"} "$floor"
	table changed "$full" --prepare 'cp -a {src}/. {dst}' \
		--mutate "printf CHANGED! | dd of={dst}/$f conv=notrunc status=none" "$full" -- \
		"$sync_cmd" 'rsync -a {src}/ {dst}/' 'rclone copy --links {src} {dst}' \
		${dsync:+"$dsync {src} {dst}"}
	table mirror "$minus" --prepare "cp -a $full/. {dst}" "$minus" -- \
		"$mirror_cmd" 'rsync -a --delete {src}/ {dst}/' 'rclone sync --links {src} {dst}' \
		${dsync:+"$dsync -D {src} {dst}"}
done
exit $rc
