#!/bin/bash
# On a rotational source, a directory's files are opened in ascending inode
# order (roughly their physical order), across batches and within each,
# whatever the order of their names or of readdir; and the files an io_uring
# batch hands back (here: too big for it) in the order of their first
# extent on the device, where that differs from their inodes' order. The
# source is a loopback XFS marked rotational; one worker, so the order is
# the walk's alone.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "loopback filesystems need root"
need_cmd strace xfs_io

# The names in DIR by ascending inode; the names matching PATTERN that the
# traced run opened for reading, in the order of the opens.
inode_order() { ls -i -U "$1" | sort -n | awk '{ print $2 }' | tr '\n' ' '; }
source_opens() {
	grep -oE "openat\\([0-9]+, \"$1\", O_RDONLY" "$T/trace" | sed -E 's/.*"(.*)".*/\1/' | tr '\n' ' '
}

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
want=$(inode_order "$D")
readdir=$(ls -U "$D" | tr '\n' ' ')
[ "$want" != "$readdir" ] || note "readdir happens to follow the inodes here"

for uring in --no-io-uring ""; do
	rm -rf "$T/out"
	# shellcheck disable=SC2086
	strace -f -qq -o "$T/trace" -e trace=openat "$FASTCP" -j 1 $uring "$D" "$T/out" ||
		fail "fastcp -j 1 $uring under strace"
	check_eq "$(ls "$T/out" | wc -l)" 90 "files copied"
	if [ -n "$uring" ]; then
		check_eq "$(source_opens '[fg][0-9]+')" "$want" "order of the source opens"
	else
		# io_uring opens are not system calls of their own: only check
		# that the copy is whole and exact with it too.
		for f in "$D"/*; do cmp "$f" "$T/out/${f##*/}" || fail "${f##*/} differs"; done
	fi
done
# Six files of 300,000 bytes (more than a batch copies itself), made empty
# in name order and then filled in the reverse order, each written out
# before the next: their data lies in the reverse order of their inodes.
B=$T/src/big
mkdir "$B"
for i in 1 2 3 4 5 6; do : >"$B/m$i"; done
for i in 6 5 4 3 2 1; do
	head -c 300000 /dev/urandom >"$B/m$i"
	sync
done
by_ino=$(inode_order "$B")
by_place=$(for f in "$B"/*; do
	xfs_io -r -c fiemap "$f" | awk -v f="${f##*/}" 'NR == 2 { split($3, a, "."); print a[1], f }'
done | sort -n | awk '{ print $2 }' | tr '\n' ' ')
check_eq "$(echo "$by_place" | wc -w)" 6 "files with a first extent"
[ "$by_place" != "$by_ino" ] || fail "setup: the data of big/ follows its inodes ($by_ino)"
# --reflink=never: the job's first batch would otherwise go the synchronous
# way, until a clone between these filesystems has been refused once.
if "$FASTCP" --version --verbose | grep -q 'io_uring batches'; then
	rm -rf "$T/out"
	strace -f -qq -o "$T/trace" -e trace=openat "$FASTCP" -j 1 --reflink=never "$B" "$T/out" ||
		fail "fastcp -j 1 under strace (big)"
	check_eq "$(source_opens 'm[0-9]+')" "$by_place" "order of the opens of the files handed back"
	for f in "$B"/*; do cmp "$f" "$T/out/${f##*/}" || fail "big/${f##*/} differs"; done
else
	note "no io_uring batches here: the order of the files they hand back is not checked"
fi
echo "read order: ok"
