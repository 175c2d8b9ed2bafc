#!/bin/bash
# A killed copy of one card is never "finished" by a copy of another card
# with the same device, mount point and DCIM inode (two ext4 cards swapped
# in one loop device), nor by a copy of a source directory removed and
# made again (its inode reused): finishing it would overwrite the first
# card's finished files in the hidden copy with the second's, and publish
# the first card's other files under the second card's name. Checked by
# bytes: every finished file of the killed copy keeps card 1's bytes, and
# the new copy is exactly card 2. On a filesystem without birth times
# (ext4 with 128-byte inodes) the identity cannot tell: the copy is held
# (exit 1, named, no second hidden copy), and renamed as the message says,
# the same command with --sync finishes it.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_root "loop mounts need root"
need_cmd mkfs.ext4 losetup sha256sum

# mkcard N INODE_SIZE: cam$N.img, an ext4 card with DCIM: IMG_10..29
# (cards 1 and 3, random) or IMG_10..19 (card 2, other random bytes).
mkcard() {
	local i last=29
	[ "$1" = 2 ] && last=19
	rm -rf "tree$1" && mkdir -p "tree$1/DCIM"
	for i in $(seq 10 "$last"); do head -c 400K /dev/urandom >"tree$1/DCIM/IMG_$i.JPG"; done
	truncate -s 64M "cam$1.img"
	mkfs.ext4 -q -F -I "$2" -d "tree$1" "cam$1.img" >/dev/null 2>&1 || skip "mkfs.ext4 -d failed"
	sleep 0.05
}

# kill_mid DIR ARGS...: run fastcp ARGS; SIGKILL it once its hidden copy
# in DIR holds three files of card 1 under their final names.
kill_mid() {
	local dir=$1 pid h i
	shift
	"$FASTCP" -j 2 --bwlimit 2M "$@" 2>/dev/null &
	pid=$!
	for ((i = 0; i < 800; i++)); do
		h=$(find "$dir" -maxdepth 1 -name '.fcp-*' -type d -print -quit)
		[ -n "$h" ] && [ "$(find "$h" -name 'IMG_*' -size 400k | wc -l)" -ge 3 ] && break
		sleep 0.025
	done
	kill -KILL "$pid"
	{ wait "$pid"; } 2>/dev/null
	[ -n "$h" ] || fail "the copy made no hidden copy"
	hidden=$h
	# The files the killed run finished: card 1's bytes.
	(cd "$hidden" && sha256sum IMG_*) >"$T/done.sums"
	grep -c . "$T/done.sums" >/dev/null || fail "no finished file in the hidden copy"
	(cd "$T/$tree/DCIM" && sha256sum -c --quiet "$T/done.sums" >/dev/null 2>&1) ||
		note "some files of the hidden copy are partial (kept as they are)"
}
# finished_intact: the killed run's files still hold what they held.
finished_intact() {
	(cd "$hidden" && sha256sum -c --quiet "$T/done.sums") ||
		fail "files of card 1's hidden copy were changed: $1"
}

# slot IMG: put IMG in the card slot (one loop device: the same st_dev).
loop=
slot() {
	if [ -z "$loop" ]; then
		loop=$(losetup -f --show "$1" 2>/dev/null) || skip "no loop device available"
		t_loops_+=("$loop")
		mkdir -p card
		mount "$loop" card 2>/dev/null || skip "cannot mount ext4"
		t_mounts_+=("$T/card")
		return
	fi
	umount card || fail "umount card"
	# The same loop device, another image (its cache goes with the
	# detach). Another process may take the device in between: rare.
	losetup -d "$loop" || fail "losetup -d $loop"
	losetup "$loop" "$1" 2>/dev/null || skip "the loop device was taken meanwhile"
	mount "$loop" card || fail "mount $1"
}

# 1. Two cards in one slot.
tree=tree1
mkcard 1 256
mkcard 2 256
mkdir backup
slot cam1.img
ino1=$(stat -c %d:%i card/DCIM)
kill_mid backup card/DCIM backup/
slot cam2.img
check_eq "$(stat -c %d:%i card/DCIM)" "$ino1" "card 2's DCIM device and inode"
run_fcp --sync card/DCIM backup/
check_rc 0 "card 2's copy"
"$TREECMP" card/DCIM backup/DCIM >/dev/null || fail "backup/DCIM is not exactly card 2"
check_eq "$(find backup/DCIM -type f | wc -l)" 10 "files in card 2's copy"
check_dir "$hidden" "card 1's hidden copy"
finished_intact "by card 2's copy"
check_eq "$(find backup -maxdepth 1 -name '.fcp-*' | wc -l)" 1 "hidden copies"
# Card 1 again, its name free: it finishes its own copy.
rm -rf backup/DCIM
slot cam1.img
run_fcp card/DCIM backup/
check_rc 0 "card 1 again"
check_grep "^fastcp: finishing '$T/$hidden'" "$T/err"
"$TREECMP" card/DCIM backup/DCIM >/dev/null || fail "backup/DCIM is not exactly card 1"
check_eq "$(find backup -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies left"


# 2. One filesystem; the source removed and made again (inode reused).
t_mount_fs ext4 64M "$T/fs"
mkdir -p fs/src fs/backup
cp -a tree1/DCIM fs/src/DCIM
ino1=$(stat -c %i fs/src/DCIM)
kill_mid fs/backup fs/src/DCIM fs/backup/
rm -rf fs/src/DCIM
mkdir fs/src/DCIM
cp -a tree2/DCIM/. fs/src/DCIM/
[ "$(stat -c %i fs/src/DCIM)" = "$ino1" ] || note "the inode was not reused this time"
run_fcp --sync fs/src/DCIM fs/backup/
check_rc 0 "the copy of the recreated source"
"$TREECMP" fs/src/DCIM fs/backup/DCIM >/dev/null || fail "fs/backup/DCIM is not the new source"
check_dir "$hidden" "the old source's hidden copy"
finished_intact "by the recreated source's copy"

# 3. No birth time (128-byte inodes): held, never guessed at.
mkcard 3 128
rm -rf backup && mkdir backup
slot cam3.img
tree=tree3
kill_mid backup card/DCIM backup/
run_fcp card/DCIM backup/
check_rc 1 "a copy whose identity cannot be told"
check_grep "not copied: 'card/DCIM': '$T/$hidden' may be the unfinished copy" "$T/err"
check_absent backup/DCIM "a copy made beside the held one"
check_eq "$(find backup -maxdepth 1 -name '.fcp-*' | wc -l)" 1 "hidden copies"
finished_intact "by a held copy"
# As the message says: renamed, the same command finishes it.
mv "$hidden" backup/DCIM
run_fcp --sync card/DCIM backup/
check_rc 0 "the same command into the renamed copy"
check_tree card/DCIM backup/DCIM
echo "a killed copy is finished only by a copy of the same card"
