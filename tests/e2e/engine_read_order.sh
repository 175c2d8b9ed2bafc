#!/bin/bash
# On a rotational source, a directory's files are opened in ascending inode
# order (roughly their physical order), across batches and within each,
# whatever the order of their names or of readdir. The source is a loopback
# XFS marked rotational; one worker, so the order is the walk's alone.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "loopback filesystems need root"
need_cmd strace

t_mount_fs xfs 300M "$T/src"
rot=/sys/block/$(basename "${t_loops_[0]}")/queue/rotational
[ -w "$rot" ] || skip "cannot mark the loop device rotational ($rot)"
echo 1 >"$rot" 2>/dev/null && [ "$(cat "$rot")" = 1 ] ||
	skip "cannot mark the loop device rotational ($rot)"

# 90 files (three batches) created in shuffled name order, then 30 of them
# removed and 30 new ones made, which take freed inodes and directory
# slots: neither names nor readdir follow the inodes.
D=$T/src/dir
mkdir "$D"
for i in $(seq 1 90 | shuf --random-source=<(yes)); do
	echo "$i" >"$D/f$i"
done
for i in $(seq 3 3 90); do rm "$D/f$i"; done
for i in $(seq 1 30 | shuf --random-source=<(yes 2)); do
	echo "new $i" >"$D/g$i"
done
sync
want=$(ls -i -U "$D" | sort -n | awk '{ print $2 }' | tr '\n' ' ')
readdir=$(ls -U "$D" | tr '\n' ' ')
[ "$want" != "$readdir" ] || note "readdir happens to follow the inodes here"

for uring in --no-io-uring ""; do
	rm -rf "$T/out"
	# shellcheck disable=SC2086
	strace -f -qq -o "$T/trace" -e trace=openat "$FASTCP" -j 1 $uring "$D" "$T/out" ||
		fail "fastcp -j 1 $uring under strace"
	check_eq "$(ls "$T/out" | wc -l)" 90 "files copied"
	if [ -n "$uring" ]; then
		got=$(grep -oE 'openat\([0-9]+, "[fg][0-9]+", O_RDONLY' "$T/trace" |
			sed -E 's/.*"(.*)".*/\1/' | tr '\n' ' ')
		check_eq "$got" "$want" "order of the source opens"
	else
		# io_uring opens are not system calls of their own: only check
		# that the copy is whole and exact with it too.
		for f in "$D"/*; do cmp "$f" "$T/out/${f##*/}" || fail "${f##*/} differs"; done
	fi
done
echo "read order: ok"
