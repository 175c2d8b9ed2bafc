#!/bin/bash
# A rotational source without the hardware, as root: does reading in the
# physical order that fastcp computes for a rotational source (a
# directory's files walked in inode order, and read in the order of their
# first extents: an io_uring batch's reads and the files it hands back)
# beat reading in walk order?
#
# The source filesystem is an image served by `fastcp-bench seekfs`: every
# read through it waits as a seeking disk would (a seek growing with the
# distance from the end of the previous read, half a rotation, the
# transfer; one read at a time). The image is attached read-only as a loop
# device over the FUSE file, marked rotational and mounted ro. Two commands,
# cold, a fresh XFS destination per run, rounds interleaved, every copy
# verified (fastcp-bench compare):
#   physical  the loop marked rotational (what fastcp sees on an HDD);
#   walk      the same fastcp with the loop marked non-rotational: it reads
#             in readdir order. The flag is read by nothing else in fastcp
#             (the worker count, the engines and the read sizes do not
#             depend on it), nor on this path in the kernel (the loop
#             device has no I/O scheduler, the read-only filesystem
#             allocates nothing): the two runs differ in the order of the
#             reads alone.
# Each command is a small wrapper that sets the flag and records what the
# modelled disk did in its run: the table's wall times are followed by the
# disk's busy time and its seeks per run, which do not depend on how noisy
# the machine is.
#   bash scripts/bench-rotational.sh [RESULTS_DIR]
# Result in RESULTS_DIR/rotational-FSTYPE-KIND-sSCALE-ageAGE.{md,json,svg}, the
# order of the runs in .err. Environment:
#   KIND=small SCALE=0.1   the workload (fastcp-bench gen KIND --scale SCALE)
#   AGE=1        lay the tree out aged: each directory's files created in a
#                shuffled order, a third of them then deleted and created
#                again, so that names, readdir order and the inodes differ
#                (0: as gen writes it, in name order)
#   FSTYPE=xfs   the source filesystem (xfs or ext4: ext4 lists a
#                directory in hash order, XFS in the order of its slots)
#   ROUNDS=3     SEEK_MS=15 SETTLE_MS=1 RPM=7200 RATE=150M  (seekfs)
#   BASELINE=PATH  a third command: another fastcp binary (a build before a
#                change) with the loop marked rotational, as "baseline"
#   IMAGE_SIZE=1G  the source image (sparse); a full stroke spans it
#   BENCH_ROT_DIR=/tmp/fcp-bench-rot  where the image and the mounts live
# Images are kept for the next run under a name that says how they were
# made; everything mounted or attached is undone on every exit.
set -eu
. "$(dirname "$0")/bench-common.sh"
kind=${KIND:-small} scale=${SCALE:-0.1} age=${AGE:-1} fstype=${FSTYPE:-xfs}
rounds=${ROUNDS:-3} size=${IMAGE_SIZE:-1G}
base=${BENCH_ROT_DIR:-/tmp/fcp-bench-rot}
case $fstype in
xfs) mkfs="mkfs.xfs -q -f" roopts=ro,norecovery ;;
ext4) mkfs="mkfs.ext4 -q -F" roopts=ro,noload ;;
*) echo "bench-rotational.sh: FSTYPE must be xfs or ext4" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "bench-rotational.sh: needs root (loop devices, FUSE, cache drops)" >&2; exit 2; }
[ -c /dev/fuse ] || { echo "bench-rotational.sh: no /dev/fuse" >&2; exit 2; }
mkdir -p "$out" "$base/build" "$base/disk" "$base/src" "$base/work"
out=$(cd "$out" && pwd)
base=$(cd "$base" && pwd)
name=rotational-$fstype-$kind-s$scale-age$age
image=$base/$fstype-$kind-s$scale-age$age-$size.img

build_loop= build_mnt= server= loop= src_mnt= compare=
cleanup() {
	set +e
	[ -z "$compare" ] || { kill -TERM "$compare" 2>/dev/null; wait "$compare"; }
	[ -z "$src_mnt" ] || umount "$base/src"
	[ -z "$loop" ] || losetup -d "$loop"
	if [ -n "$server" ]; then
		umount "$base/disk" || umount -l "$base/disk"
		for _ in $(seq 50); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$server" 2>/dev/null
	fi
	[ -z "$build_mnt" ] || umount "$base/build"
	[ -z "$build_loop" ] || losetup -d "$build_loop"
	rm -f "$image.tmp"
	rm -rf "$bin"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# age STAGE TREE: TREE gets STAGE's directories and files, each directory's
# files created in a shuffled order, then a third of them deleted and made
# again (taking freed directory slots, inodes and blocks).
age() {
	(cd "$1" && find . -type d) | while read -r d; do mkdir -p "$2/$d"; done
	(cd "$1" && find . -type d) | while read -r d; do
		find "$1/$d" -maxdepth 1 -type f -printf '%f\n' | shuf >"$base/names"
		while read -r f; do cp "$1/$d/$f" "$2/$d/$f"; done <"$base/names"
		shuf -n $(($(wc -l <"$base/names") / 3)) "$base/names" >"$base/again"
		while read -r f; do rm "$2/$d/$f"; done <"$base/again"
		while read -r f; do cp "$1/$d/$f" "$2/$d/$f"; done <"$base/again"
	done
	rm -f "$base/names" "$base/again"
}

if [ ! -f "$image" ]; then
	echo "making $image"
	rm -f "$image.tmp"
	truncate -s "$size" "$image.tmp"
	$mkfs "$image.tmp"
	build_loop=$(losetup -f --show "$image.tmp")
	mount "$build_loop" "$base/build"
	build_mnt=1
	if [ "$age" = 1 ]; then
		$B gen "$kind" "$base/build/stage" --seed 1 --scale "$scale" >/dev/null
		age "$base/build/stage" "$base/build/tree"
		rm -rf "$base/build/stage"
	else
		$B gen "$kind" "$base/build/tree" --seed 1 --scale "$scale" >/dev/null
	fi
	umount "$base/build"
	build_mnt=
	losetup -d "$build_loop"
	build_loop=
	mv "$image.tmp" "$image"
fi

server=$($B seekfs --seek-ms "${SEEK_MS:-15}" --settle-ms "${SETTLE_MS:-1}" --rpm "${RPM:-7200}" \
	--rate "${RATE:-150M}" "$image" "$base/disk")
loop=$(losetup -r -f --show "$base/disk/image")
rot=/sys/block/${loop#/dev/}/queue/rotational
echo 1 >"$rot"
mount -t "$fstype" -o "$roopts" "$loop" "$base/src"
src_mnt=1

# The wrappers: set the flag, copy, and log the disk's counters around it.
log=$base/runs.log
: >"$log"
orders="physical walk"
[ -z "${BASELINE:-}" ] || { cp "$BASELINE" "$bin/fastcp-baseline"; orders="$orders baseline"; }
for order in $orders; do
	flag=1 fcp=$F
	[ $order != walk ] || flag=0
	[ $order != baseline ] || fcp=$bin/fastcp-baseline
	cat >"$base/fastcp-$order" <<-EOF
	#!/bin/sh
	# fastcp SRC DST with the source's loop device marked rotational=$flag
	echo $flag >$rot || exit 2
	a=\$(cat $base/disk/stats)
	$fcp "\$1" "\$2"
	rc=\$?
	b=\$(cat $base/disk/stats)
	echo $order \$a \$b >>$log
	exit \$rc
	EOF
	chmod +x "$base/fastcp-$order"
done

set --
for order in $orders; do set -- "$@" "$base/fastcp-$order {src} {dst}"; done
$B compare --rounds "$rounds" --cold --fresh-fs xfs --work-dir "$base/work" \
	--json "$out/$name.json" --svg "$out/$name.svg" "$base/src/tree" -- "$@" \
	>"$out/$name.md" 2>"$out/$name.err" &
compare=$!
rc=0
wait "$compare" || rc=$?
compare=

# The disk's side of each run: busy time and seeks, medians per order.
awk -v m="${SEEK_MS:-15}" '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# ORDER then "name value" pairs: reads bytes seeks seek_ns busy_ns, before and after
{
	o = $1; n[o]++
	busy[o, n[o]] = ($21 - $11) / 1e9; seeks[o, n[o]] = $17 - $7
	seek[o, n[o]] = ($19 - $9) / 1e9; reads[o, n[o]] = $13 - $3
}
END {
	print ""
	print "| order | runs | disk busy (s) | of which seeking (s) | seeks | reads |"
	print "|---|---:|---:|---:|---:|---:|"
	split("physical walk baseline", os, " ")
	for (k = 1; k <= 3; k++) {
		o = os[k]
		if (!n[o]) continue
		for (i = 1; i <= n[o]; i++) { b[i] = busy[o, i]; s[i] = seeks[o, i]; z[i] = seek[o, i]; r[i] = reads[o, i] }
		printf "| %s | %d | %.2f | %.2f | %d | %d |\n", o, n[o], med(b, n[o]), med(z, n[o]), med(s, n[o]), med(r, n[o])
	}
	print ""
	print "Medians per run of the modelled disk (fastcp-bench seekfs: full stroke " m " ms), as it served each run."
}' "$log" >>"$out/$name.md"
{
	echo "Source: $fstype image of $size, $kind --scale $scale, aged=$age; seekfs --seek-ms ${SEEK_MS:-15}" \
		"--settle-ms ${SETTLE_MS:-1} --rpm ${RPM:-7200} --rate ${RATE:-150M}; loop $loop read-only."
} >>"$out/$name.md"
cat "$out/$name.md"
exit $rc
