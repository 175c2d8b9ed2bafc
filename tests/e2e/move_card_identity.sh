#!/bin/bash
# A stopped --move of one card is never "finished" by a move of another
# card that has the same device, mount point and root inode: two ext4
# cards swapped in one loop device (same st_dev, DCIM inode 12 on both,
# same path). Card 1's move is stopped (one photo immutable): `photos`
# keeps its --move marker. Card 2's move must not merge into `photos`
# over card 1's photos (they were removed from card 1): it goes into
# photos/DCIM, as cp would place it. Every photo of both cards survives,
# byte for byte. The same card again still finishes its own move in place.
# A card without birth times: the re-run is refused, and -T finishes it.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "loop mounts and chattr need root"
need_cmd mkfs.ext4 losetup chattr

# Two cards, made from directories: DCIM gets the same inode on both.
for c in 1 2; do
	mkdir -p "tree$c/DCIM"
	for i in 1 2 3 4 5; do echo "camera $c photo $i" >"tree$c/DCIM/IMG_000$i.JPG"; done
	truncate -s 64M "cam$c.img"
	mkfs.ext4 -q -F -d "tree$c" "cam$c.img" >/dev/null 2>&1 || skip "mkfs.ext4 -d failed"
	# Other birth times even on a fast machine.
	sleep 0.05
done

# One slot (loop device) whose card is swapped: the same st_dev.
loop=$(losetup -f --show cam1.img 2>/dev/null) || skip "no loop device available"
t_loops_+=("$loop")
mkdir card
mount "$loop" card 2>/dev/null || skip "cannot mount ext4"
t_mounts_+=("$T/card")
# swap N: put card N in the slot.
swap() {
	umount card || fail "umount card"
	# The same loop device, another image (its cache goes with the
	# detach). Another process may take the device in between: rare.
	losetup -d "$loop" || fail "losetup -d $loop"
	losetup "$loop" "cam$1.img" 2>/dev/null || skip "the loop device was taken meanwhile"
	mount "$loop" card || fail "mount card $1"
	check_grep "^camera $1 photo" card/DCIM/IMG_0005.JPG
}
dev1=$(stat -c %d:%i card/DCIM)


chattr +i card/DCIM/IMG_0005.JPG || skip "chattr +i not supported"
run_fcp --move card/DCIM photos
chattr -i card/DCIM/IMG_0005.JPG
check_rc 1 "a move with one photo that cannot go"
check_file card/DCIM/IMG_0005.JPG
check_absent card/DCIM/IMG_0001.JPG "a copied photo stayed on card 1"
swap 2
check_eq "$(stat -c %d:%i card/DCIM)" "$dev1" "card 2's DCIM device and inode"

run_fcp --move card/DCIM photos
check_rc 0 "card 2's move"
# Card 1's photos 1-4 exist only in photos: each must still be there.
for i in 1 2 3 4; do
	check_eq "$(cat "photos/IMG_000$i.JPG")" "camera 1 photo $i" "card 1's photo $i in photos"
done
for i in 1 2 3 4 5; do
	check_eq "$(cat "photos/DCIM/IMG_000$i.JPG")" "camera 2 photo $i" "card 2's photo $i"
done

# Card 1 again: its own move is finished in place (its marker matches).
swap 1
run_fcp --move card/DCIM photos
check_rc 0 "card 1's move again"
check_eq "$(cat photos/IMG_0005.JPG)" "camera 1 photo 5" "card 1's photo 5 in photos"
check_eq "$(find photos -maxdepth 1 -type f | wc -l)" 5 "card 1's photos in photos"
check_absent card/DCIM "card 1's DCIM after its move finished"
# Every photo of both cards, once each.
for c in 1 2; do
	for i in 1 2 3 4 5; do
		n=$(grep -rlx "camera $c photo $i" photos | wc -l)
		check_eq "$n" 1 "copies of camera $c photo $i"
	done
done

# A card whose filesystem keeps no birth time (128-byte inodes): a stopped
# move's marker cannot tell it from another card; the move is refused
# (exit 1, nothing moved) with the way to finish it, -T, which does.
umount card
mkdir -p tree3/DCIM
for i in 1 2 3; do echo "camera 3 photo $i" >"tree3/DCIM/IMG_000$i.JPG"; done
truncate -s 64M cam3.img
mkfs.ext4 -q -F -I 128 -d tree3 cam3.img >/dev/null 2>&1 || skip "mkfs.ext4 -I 128 -d failed"
losetup -d "$loop" || fail "losetup -d $loop"
losetup "$loop" cam3.img 2>/dev/null || skip "the loop device was taken meanwhile"
mount "$loop" card || fail "mount card 3"
chattr +i card/DCIM/IMG_0003.JPG
run_fcp --move card/DCIM photos3
chattr -i card/DCIM/IMG_0003.JPG
check_rc 1 "card 3's stopped move"
run_fcp --move card/DCIM photos3
check_rc 1 "a move whose marker cannot be told from another card's"
check_grep "^fastcp: 'photos3' may be the copy a stopped move of 'card/DCIM' left, but" "$T/err"
check_absent photos3/DCIM "a move into the copy's DCIM"
check_file card/DCIM/IMG_0003.JPG "card 3's photo 3 on the card"
run_fcp --move -T card/DCIM photos3
check_rc 0 "the stopped move finished with -T"
for i in 1 2 3; do
	check_eq "$(cat "photos3/IMG_000$i.JPG")" "camera 3 photo $i" "card 3's photo $i"
done
check_absent card/DCIM "card 3's DCIM after its move"
echo "a stopped move is finished only by a move of the same card"
