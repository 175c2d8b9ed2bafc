#!/bin/bash
# --check and --sync/-c ask the same questions: what --check calls a
# difference, -c, --sync and --mirror -c copy again, and afterwards --check
# finds none and a second run copies nothing.
#  - holes filled in DEST (the same bytes, fully allocated where the
#    source is sparse): the file is copied again and gets its holes back,
#    here and on tmpfs and XFS (where root can mount them); on ramfs,
#    which fills a hole once it is read, it is no difference and not
#    copied again on every run;
#  - DEST names hard-linked together whose sources are separate files: the
#    names are split, each on an inode of its own;
#  - source names hard-linked whose DEST names are separate: joined;
#  - a mix: two linked names and a third, separate one, all one inode in
#    DEST: the third is split off, the two stay linked;
#  - --dedup=hardlink's links: accepted by --check --dedup=hardlink and
#    kept by -c --dedup=hardlink; without the option, said and split.
# The bytes are compared with cmp, the allocation with stat %b, the links
# with the inode numbers.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd cp truncate cmp stat

ino() { stat -c %i "$1"; }
blocks() { stat -c %b "$1"; }

# check_clean DEST: --check finds nothing, and -c again changes nothing.
check_clean() {
	run_fcp --check -T src "$1"
	check_rc 0 "--check after the repair of $1"
	check_eq "$(cat "$T/out")" "" "differences left in $1"
	run_fcp --mirror -c -vv -T src "$1"
	check_rc 0 "second --mirror -c of $1"
	check_nogrep "' -> '" "$T/out"
}

# --- Holes filled -----------------------------------------------------
mkdir src
truncate -s 8M src/sp && printf 'hi' | dd of=src/sp bs=1 seek=4194304 conv=notrunc status=none
[ "$(blocks src/sp)" -lt 100 ] || skip "this filesystem does not keep holes"

dests=(dst)
if [ "$(id -u)" = 0 ]; then
	t_mount_fs tmpfs 64M "$T/tmpfs"
	dests+=(tmpfs/dst)
	if command -v mkfs.xfs >/dev/null; then
		t_mount_fs xfs 300M "$T/xfs"
		dests+=(xfs/dst)
	fi
fi
n=0
for d in "${dests[@]}"; do
	run_fcp -T src "$d"
	check_rc 0 "copy to $d"
	cp --sparse=never src/sp "$d/sp.tmp" && touch -r src/sp "$d/sp.tmp" && mv "$d/sp.tmp" "$d/sp"
	touch -r src "$d"
	[ "$(blocks "$d/sp")" -gt 10000 ] || skip "cp --sparse=never kept holes in $d"
	run_fcp --check -T src "$d"
	check_rc 1 "--check of filled holes in $d"
	check_grep "^holes filled \(allocated [0-9]+ != [0-9]+\): '$d/sp'$" "$T/out"
	# Each way of copying again in turn: -c, --mirror -c, --sync.
	case $((n++ % 3)) in
	0) run_fcp -c -vv -T src "$d" ;;
	1) run_fcp --mirror -c -vv -T src "$d" ;;
	2) run_fcp --sync -vv -T src "$d" ;;
	esac
	check_rc 0 "repair of filled holes in $d"
	check_grep "^'src/sp' -> '$d/sp'" "$T/out"
	check cmp src/sp "$d/sp"
	[ "$(blocks "$d/sp")" -lt 1000 ] || fail "$d/sp still allocates $(blocks "$d/sp") blocks"
	check_clean "$d"
done

# On ramfs a hole that is read is filled (its page cache is its storage),
# so a copy read by -c or --check loses its holes whatever made it: no
# difference there, and no reason to copy it again on every run.
if [ "$(id -u)" = 0 ] && grep -qw ramfs /proc/filesystems; then
	mkdir ramfs
	mount -t ramfs ramfs "$T/ramfs" && t_mounts_+=("$T/ramfs") || fail "mount ramfs"
	run_fcp -T src ramfs/dst
	check_rc 0 "copy to ramfs"
	for i in 1 2 3; do
		run_fcp -c -vv -T src ramfs/dst
		check_rc 0 "-c to ramfs, run $i"
		check_nogrep "' -> '" "$T/out"
	done
	[ "$(blocks ramfs/dst/sp)" -gt 10000 ] || note "ramfs kept the holes of a copy read"
	check cmp src/sp ramfs/dst/sp
	run_fcp --check -T src ramfs/dst
	check_rc 0 "--check of the copy on ramfs"
	check_eq "$(cat "$T/out")" "" "differences said on ramfs"
fi

# --- Hard links: DEST linked, source separate ---------------------------
rm -rf src dst
mkdir src
echo same >src/a && cp -p src/a src/b
run_fcp -T src dst
check_rc 0 "copy of separate files"
rm dst/b && ln dst/a dst/b && touch -r src dst
run_fcp --check -T src dst
check_rc 1 "--check of names linked in DEST only"
check_grep "^hard links differ: 'dst/[ab]'$" "$T/out"
run_fcp --mirror -c -vv -T src dst
check_rc 0 "--mirror -c of names linked in DEST only"
[ "$(ino dst/a)" != "$(ino dst/b)" ] || fail "dst/a and dst/b still one inode"
check cmp src/a dst/a
check cmp src/b dst/b
check_clean dst

# --- Hard links: source linked, DEST separate ---------------------------
rm -rf src dst
mkdir src
echo same >src/a && ln src/a src/b
run_fcp -T src dst
check_rc 0 "copy of linked files"
rm dst/b && cp -p dst/a dst/b && touch -r src dst
run_fcp --check -T src dst
check_rc 1 "--check of names linked in the source only"
check_grep "^hard links differ: 'dst/[ab]'$" "$T/out"
run_fcp --mirror -c -vv -T src dst
check_rc 0 "--mirror -c of names linked in the source only"
check_eq "$(ino dst/b)" "$(ino dst/a)" "dst/a and dst/b one inode"
check cmp src/a dst/a
check_clean dst

# --- A mix: x and y linked, z separate; all three one inode in DEST ----
rm -rf src dst
mkdir src
echo same >src/x && ln src/x src/y && cp -p src/x src/z
run_fcp -T src dst
check_rc 0 "copy of the mix"
rm dst/z && ln dst/x dst/z && touch -r src dst
run_fcp --check -T src dst
check_rc 1 "--check of the mix"
check_grep "^hard links differ: " "$T/out"
run_fcp --mirror -c -vv -T src dst
check_rc 0 "--mirror -c of the mix"
check_eq "$(ino dst/y)" "$(ino dst/x)" "dst/x and dst/y one inode"
[ "$(ino dst/z)" != "$(ino dst/x)" ] || fail "dst/z still the inode of dst/x"
for f in x y z; do check cmp "src/$f" "dst/$f"; done
check_clean dst

# --- --dedup=hardlink links copies of one content on purpose ------------
# The same option given to --check and to -c accepts those links and
# keeps them; without it they are links the source has not.
if "$FASTCP" --help 2>&1 | grep -q -- --dedup; then
	rm -rf src dst
	mkdir src
	echo same >src/a && cp -p src/a src/b
	run_fcp --dedup=hardlink -T src dst
	check_rc 0 "--dedup=hardlink copy"
	[ "$(ino dst/b)" = "$(ino dst/a)" ] || skip "--dedup=hardlink did not link here"
	run_fcp --check --dedup=hardlink -T src dst
	check_rc 0 "--check --dedup=hardlink of its own copy"
	check_eq "$(cat "$T/out")" "" "differences said of a --dedup=hardlink copy"
	run_fcp --mirror -c --dedup=hardlink -vv -T src dst
	check_rc 0 "--mirror -c --dedup=hardlink of its own copy"
	check_nogrep "' -> '" "$T/out"
	check_eq "$(ino dst/b)" "$(ino dst/a)" "--dedup=hardlink links kept"
	run_fcp --check -T src dst
	check_rc 1 "--check without --dedup of a --dedup=hardlink copy"
	check_grep "^hard links differ: 'dst/[ab]'$" "$T/out"
	run_fcp --mirror -c -T src dst
	check_rc 0 "--mirror -c without --dedup of a --dedup=hardlink copy"
	[ "$(ino dst/a)" != "$(ino dst/b)" ] || fail "dst/a and dst/b still one inode"
	check_clean dst
fi
echo "PASS"
