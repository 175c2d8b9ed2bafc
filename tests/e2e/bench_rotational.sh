#!/bin/bash
# fastcp-bench seekfs and scripts/bench-rotational.sh, their plumbing at a
# tiny scale. seekfs serves an image's bytes unchanged, charges a far read
# more than a near one and a sequential one no seek at all; a read-only
# loop device over its file works; the script times both orders, reports
# the modelled disk's side of each run, lays the tree out with readdir
# order unlike inode order, and leaves nothing mounted, attached or
# running, also when stopped by SIGTERM mid-run. No timing is asserted.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
need_root "loop devices and FUSE mounts need root"
[ -c /dev/fuse ] || skip "no /dev/fuse"
need_cmd mkfs.xfs losetup dd cmp shuf
[ -x "$FASTCP_BENCH" ] && [ -x "$FASTCP" ] || fail "build/fastcp or build/fastcp-bench missing (run make all)"
B=$FASTCP_BENCH
script=$top_/scripts/bench-rotational.sh

# The model, on a 64 MiB image of random bytes.
head -c $((64 << 20)) /dev/urandom >img
mkdir disk
check "$B" seekfs --help >/dev/null
if ! pid=$("$B" seekfs --seek-ms 15 --settle-ms 1 --rpm 7200 --rate 100M img disk 2>err); then
	cat err
	grep -q "without libfuse3" err && skip "fastcp-bench was built without libfuse3"
	fail "seekfs did not serve img"
fi
t_mounts_+=("$T/disk")
check_eq "$(stat -c %s disk/image)" $((64 << 20)) "size of the served image"
stat_of() { awk -v k="$1" '$1 == k { print $2 }' disk/stats; }
# seek_ns charged for a 4 KiB direct read at KiB offset $1
charge() {
	local a b
	a=$(stat_of seek_ns)
	dd if=disk/image of=/dev/null bs=4096 count=1 skip=$(($1 / 4)) iflag=direct status=none ||
		fail "direct read at $1 KiB"
	b=$(stat_of seek_ns)
	echo $((b - a))
}
first=$(charge 0)
seq_=$(charge 4)
near=$(charge 1024)
far=$(charge 60000)
back=$(charge 59000)
note "seek charged: first $first, sequential $seq_, near $near, far $far, back near $back (ns)"
check_eq "$first" 0 "seek charged for a read at the start"
check_eq "$seq_" 0 "seek charged for a sequential read"
[ "$near" -gt 0 ] || fail "no seek charged for a read 1 MiB further"
[ "$far" -gt "$near" ] || fail "a far read ($far ns) charged no more than a near one ($near ns)"
[ "$back" -gt 0 ] && [ "$back" -lt "$far" ] ||
	fail "a near read backwards charged $back ns (far: $far ns)"
check_eq "$(stat_of reads)" 5 "reads served"
check_eq "$(stat_of seeks)" 3 "seeks counted"
cmp disk/image img || fail "seekfs serves other bytes than the image's"
# A read-only loop device over the served file reads through it.
loop=$(losetup -r -f --show disk/image) || fail "no loop device over the FUSE file"
t_loops_+=("$loop")
r0=$(stat_of reads)
cmp -n $((1 << 20)) "$loop" img || fail "the loop device reads other bytes"
[ "$(stat_of reads)" -gt "$r0" ] || fail "the loop device's reads did not reach seekfs"
losetup -d "$loop"
umount disk || fail "cannot unmount seekfs"
# The loop device lets its file go asynchronously: the server ends once it
# has (30 s at most, on a loaded machine).
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "the seekfs server $pid outlived its mount"
rm img

# The script, at a tiny scale; the image it makes is kept for the rerun.
leftovers() {
	grep -E " $T/b/" /proc/mounts
	losetup -a | grep -F "$T/b/"
	pgrep -f "seekfs .*$T/b/" | sed 's/^/server /'
}
export SCALE=0.002 ROUNDS=1 BENCH_ROT_DIR=$T/b IMAGE_SIZE=300M
bash "$script" "$T/r" >out 2>&1
rc=$?
cat out
check_eq "$rc" 0 "exit status of bench-rotational.sh"
check_eq "$(leftovers)" "" "left mounted, attached or running"
md=$T/r/rotational-xfs-small-s0.002-age1.md
check_grep '^\| 1 \| `[^`]*/fastcp-physical \{src\} \{dst\}` \| 1/1 \| [0-9.]+ ' "$md" "the physical row"
check_grep '^\| 2 \| `[^`]*/fastcp-walk \{src\} \{dst\}` \| 1/1 \| [0-9.]+ ' "$md" "the walk row"
check_grep 'page cache dropped before each run \(cold\).*a fresh xfs loopback filesystem' "$md"
check_grep '^\| physical \| 1 \| [0-9.]+ \| [0-9.]+ \| [1-9][0-9]* \| [1-9][0-9]* \|$' "$md" \
	"the disk's side of the physical run"
check_grep '^\| walk \| 1 \| [0-9.]+ \| [0-9.]+ \| [1-9][0-9]* \| [1-9][0-9]* \|$' "$md" \
	"the disk's side of the walk run"
check_grep 'files, 6 directories' "$md" "the tree copied"

# The aged tree: in some directory, readdir order is not inode order.
img=$(ls "$T"/b/*.img)
check_eq "$(echo "$img" | wc -l)" 1 "images kept"
mkdir m
loop=$(losetup -r -f --show "$img") || fail "cannot attach $img"
t_loops_+=("$loop")
mount -o ro,norecovery "$loop" m || fail "cannot mount $img"
t_mounts_+=("$T/m")
differ=0
for d in $(find m/tree -type d); do
	[ "$(ls -U "$d")" = "$(ls -i -U "$d" | sort -n | awk '{ print $2 }')" ] || differ=$((differ + 1))
done
note "$differ directories whose readdir order is not their inode order"
[ "$differ" -gt 0 ] || fail "the aged tree lists every directory in inode order"
umount m && losetup -d "$loop"

# Stopped mid-run: nothing is left.
bash "$script" "$T/r" >out2 2>&1 &
spid=$!
for _ in $(seq 300); do
	pgrep -f "fastcp-bench compare .*$T/b/" >/dev/null && break
	sleep 0.1
done
pgrep -f "fastcp-bench compare .*$T/b/" >/dev/null || { cat out2; fail "the rerun did not reach compare"; }
kill -TERM $spid
wait $spid
check_eq "$?" 143 "exit status after SIGTERM"
check_eq "$(leftovers)" "" "left mounted, attached or running after SIGTERM"
echo PASS
