#!/bin/bash
# --move into a destination that already holds a file of the same name,
# size and mtime but other bytes (a camera card whose numbering started
# again): the quick check calls it "in place", yet the source may go only
# where this run wrote its copy or compared the content equal. Every
# modifier (-b, -n, --update=none, -u, -i, --sync, --mirror, --checksum),
# on one filesystem and across two, and a replacement that fails: every
# source byte is in the source or under its final name in DEST, the file
# that was there is replaced only as documented (kept by -n, -u, -i "no";
# backed up by -b), nothing outside DEST changes, and a source left is
# named and exits 1. Also the rename path (a file onto a file) with -n,
# -u, -i and -b: the file in the way is kept, asked about or backed up.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd cmp chattr
t_mount_fs tmpfs 64m "$T/mnt"
t_mount_fs ext4 64m "$T/ext"

# The card: IMG_0001 collides with the archive's (same size and mtime,
# other bytes), IMG_0002 is new, IMG_0003 is the same photo in both.
R=$T/ref
mkdir -p "$R/card/DCIM" "$R/archive/DCIM" "$R/other"
head -c 30000 /dev/urandom >"$R/card/DCIM/IMG_0001.JPG"
head -c 30000 /dev/urandom >"$R/archive/DCIM/IMG_0001.JPG"
head -c 12345 /dev/urandom >"$R/card/DCIM/IMG_0002.JPG"
head -c 23456 /dev/urandom >"$R/card/DCIM/IMG_0003.JPG"
cp "$R/card/DCIM/IMG_0003.JPG" "$R/archive/DCIM/IMG_0003.JPG"
head -c 777 /dev/urandom >"$R/archive/DCIM/IMG_0009.JPG"
echo "not to be touched" >"$R/other/keep"
touch -d @1500000000.123456789 "$R"/card/DCIM/* "$R"/archive/DCIM/*
cmp -s "$R/card/DCIM/IMG_0001.JPG" "$R/archive/DCIM/IMG_0001.JPG" && fail "random photos equal"

# setup BASE SRCBASE: a fresh card in SRCBASE, a fresh archive and the
# directory beside it in BASE.
setup() {
	rm -rf "$1/archive" "$1/other" "$2/card"
	mkdir -p "$1" "$2"
	cp -a "$R/archive" "$R/other" "$1/" && cp -a "$R/card" "$2/" || fail "setup"
}

# check_photos SRC DST KEPT: every photo of the card is whole in the source
# or under its name in DST (a source left is unchanged); the archive's own
# photo is where the modifier puts it (KEPT: "kept" in its place, "backup"
# in IMG_0001.JPG~, "replaced"); the card's IMG_0001 left in the source
# exactly when the archive's was kept.
check_photos() {
	local src=$1 dst=$2 kept=$3 f n
	for f in IMG_0001.JPG IMG_0002.JPG IMG_0003.JPG; do
		n=$R/card/DCIM/$f
		if [ -e "$src/$f" ]; then
			cmp -s "$n" "$src/$f" || fail "$kept: the source $f was altered"
		else
			cmp -s "$n" "$dst/$f" || fail "$kept: $f is gone from the source and not in DEST: lost"
		fi
	done
	cmp -s "$R/archive/DCIM/IMG_0003.JPG" "$dst/IMG_0003.JPG" || fail "$kept: the same photo in DEST"
	check_absent "$src/IMG_0002.JPG" "$kept: the new photo's source after its copy"
	check_absent "$src/IMG_0003.JPG" "$kept: a source whose content was found in DEST"
	case $kept in
	kept)
		cmp -s "$R/archive/DCIM/IMG_0001.JPG" "$dst/IMG_0001.JPG" ||
			fail "$kept: the archive's IMG_0001 was not kept"
		check_file "$src/IMG_0001.JPG" "$kept: the card's IMG_0001 (its name is taken in DEST)"
		# Named once: kept (-n, -u, -i) where the source goes, or
		# its replacement's failure.
		check_grep "(not removing|cannot rename copy of) '$src/IMG_0001.JPG'" "$T/err"
		check_grep "^fastcp: 1 item failed$" "$T/err"
		;;
	backup)
		cmp -s "$R/archive/DCIM/IMG_0001.JPG" "$dst/IMG_0001.JPG~" ||
			fail "$kept: the archive's IMG_0001 is not in its backup"
		check_absent "$src/IMG_0001.JPG" "$kept: the card's IMG_0001 after its copy"
		;;
	replaced)
		check_absent "$src/IMG_0001.JPG" "$kept: the card's IMG_0001 after its copy"
		;;
	esac
}

# move_case SRCBASE BASE KEPT RC [OPTIONS...]: move the card's DCIM into
# BASE/archive with OPTIONS (stdin: -i's answers in $ANSWERS).
move_case() {
	local sb=$1 b=$2 kept=$3 rc=$4 ino
	shift 4
	setup "$b" "$sb"
	ino=$(stat -c %i "$b/archive/DCIM/IMG_0003.JPG")
	run_fcp --move "$@" "$sb/card/DCIM" "$b/archive" <<<"${ANSWERS:-}"
	check_rc "$rc" "fastcp --move $* ($kept)"
	check_photos "$sb/card/DCIM" "$b/archive/DCIM" "$kept"
	check_eq "$(stat -c %i "$b/archive/DCIM/IMG_0003.JPG")" "$ino" \
		"the same photo in DEST is left as it is ($*)"
	cmp -s "$R/other/keep" "$b/other/keep" || fail "a file outside DEST changed ($*)"
	if [ "$kept" = kept ] || [ "$rc" = 1 ]; then
		check_file "$sb/card/DCIM/IMG_0001.JPG"
	else
		check_absent "$sb/card/DCIM" "the card's DCIM after a whole move ($*)"
	fi
	check_no_temp "$b/archive"
}

for where in one two; do
	# One filesystem: the rename of DCIM meets a non-empty DCIM and the
	# move goes item by item. Two: the copy, then the removals.
	if [ $where = one ]; then sb=$T/mnt/s b=$T/mnt/d; else sb=$T/s b=$T/mnt/d; fi
	note "$where filesystem(s): $sb -> $b"
	move_case "$sb" "$b" replaced 0
	cmp -s "$R/card/DCIM/IMG_0001.JPG" "$b/archive/DCIM/IMG_0001.JPG" || fail "the card's IMG_0001 in DEST"
	move_case "$sb" "$b" replaced 0 --sync
	move_case "$sb" "$b" replaced 0 --checksum
	move_case "$sb" "$b" replaced 0 --mirror
	check_absent "$b/archive/DCIM/IMG_0009.JPG" "--mirror: the extra in DEST"
	move_case "$sb" "$b" backup 0 -b
	cmp -s "$R/card/DCIM/IMG_0001.JPG" "$b/archive/DCIM/IMG_0001.JPG" || fail "-b: the card's IMG_0001 in DEST"
	move_case "$sb" "$b" kept 1 -n
	move_case "$sb" "$b" kept 1 --update=none
	move_case "$sb" "$b" kept 1 -u
	ANSWERS=n move_case "$sb" "$b" kept 1 -i
	ANSWERS=y move_case "$sb" "$b" replaced 0 -i
done

# The replacement fails (the file there is immutable): its source stays.
sb=$T/s b=$T/ext/d
setup "$b" "$sb"
chattr +i "$b/archive/DCIM/IMG_0001.JPG" || skip "chattr +i refused on ext4"
run_fcp --move "$sb/card/DCIM" "$b/archive"
chattr -i "$b/archive/DCIM/IMG_0001.JPG"
check_rc 1 "a move whose one replacement failed"
check_photos "$sb/card/DCIM" "$b/archive/DCIM" kept
check_no_temp "$b/archive"

# The rename path: a file onto a file of one filesystem. Without a
# modifier it replaces it, as mv does; -n, -u (the file there is newer),
# -i "no" keep it and the source; -b keeps it as a backup.
rename_case() {
	local want=$1 rc=$2
	shift 2
	rm -rf "$T/mnt/r" && mkdir "$T/mnt/r"
	echo "the source" >"$T/mnt/r/a" && echo "the file there" >"$T/mnt/r/b"
	touch -d @1500000000 "$T/mnt/r/a" && touch -d @1600000000 "$T/mnt/r/b"
	run_fcp --move "$@" "$T/mnt/r/a" "$T/mnt/r/b" <<<"${ANSWERS:-}"
	check_rc "$rc" "fastcp --move $* a b"
	case $want in
	replaced)
		check_absent "$T/mnt/r/a" && check_eq "$(cat "$T/mnt/r/b")" "the source" "$*: b" ;;
	kept)
		check_eq "$(cat "$T/mnt/r/a")" "the source" "$*: the source stays"
		check_eq "$(cat "$T/mnt/r/b")" "the file there" "$*: the file there is kept"
		check_grep "not removing '$T/mnt/r/a'" "$T/err" ;;
	backup)
		check_absent "$T/mnt/r/a"
		check_eq "$(cat "$T/mnt/r/b")" "the source" "$*: b"
		check_eq "$(cat "$T/mnt/r/b~")" "the file there" "$*: the backup" ;;
	esac
}
rename_case replaced 0
rename_case kept 1 -n
rename_case kept 1 -u
ANSWERS=n rename_case kept 1 -i
ANSWERS=y rename_case replaced 0 -i
rename_case backup 0 -b
echo "--move with a file of the same name, size and mtime in DEST: nothing lost"
