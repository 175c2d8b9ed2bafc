#!/bin/bash
# -K (--keep-directory-symlink, --keep-dirlinks) writes through the
# symlinks in DEST the user asked it to follow, and nowhere else (issue
# 35). A symlink that leads into a SOURCE (another operand's too), to a
# SOURCE itself, to a directory that holds one, or to the directory it is
# in or one above it (DEST itself, its parent) is not followed: the item
# fails, named, exit 1, and no byte of SOURCE or of anything outside DEST
# changes; nor where a bind mount of a SOURCE's directory could hide that
# it leads into it. Circles of symlinks end. --delete, --mirror and
# --delete-excluded with -K are bad usage (exit 2), nothing touched.
# --move through a followed symlink removes a source only where its copy
# was made there (a file -u kept stays), never into a mount point, and a
# refused symlink's sources all stay. Hard links whose names the symlink
# to a mount point parts are linked on each side. A dry run fails the same items with
# the same words.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

# What a tree holds, every entry: type, size, mode, mtime, target, bytes.
state() {
	(cd "$1" && find . -printf '%p %y %s %m %T@ %l\n' | sort && t_sums .)
}
mkdir -p w/src/b w/src/a w/src/s w/src/x/y w/src/z w/src/c w/src/p w/dest w/x2 w/tree
cd w || fail "cd w"
printf 'src a\n' >src/a/x
printf 'src b\n' >src/b/x
printf 'keep b\n' >src/b/only_b
printf 'src s\n' >src/s/x
printf 'in x\n' >src/x/f
printf 'in y\n' >src/x/y/g
printf 'z\n' >src/z/f
printf 'c\n' >src/c/f
printf 'p\n' >src/p/f
ln -s ../src/b dest/a   # into SOURCE
ln -s ../src dest/s     # SOURCE itself
ln -s . dest/c          # DEST itself
ln -s .. dest/p         # above DEST
ln -s ../x2 dest/x      # followed; inside it, a symlink to itself:
ln -s ../x2 x2/y
ln -s z2 dest/z         # a circle of symlinks
ln -s z dest/z2
touch -d "$T_TIME1" src/*/* src/x/y/g src/* src x2 dest
src_before=$(state src)
x2_before=$(state x2)
dest_before=$(state dest)

# Before anything: the refused items said in a dry run as in the run.
run_fcp -K --dry-run -T src dest
check_rc 1 "-K --dry-run"
grep "not followed\|cannot replace" "$T/err" | sort >"$T/dry.err"
run_fcp -K -T src dest
check_rc 1 "-K into SOURCE, DEST, above it, a circle"
check_grep "not followed, a symlink into a SOURCE: 'dest/a'" "$T/err"
check_grep "not followed, a symlink into a SOURCE: 'dest/s'" "$T/err"
check_grep "not followed, a symlink to the directory it is in, or one above it: 'dest/c'" "$T/err"
check_grep "not followed, a symlink to the directory it is in, or one above it: 'dest/p'" "$T/err"
check_grep "not followed, a symlink to the directory it is in, or one above it: 'dest/x/y'" "$T/err"
check_grep "cannot replace non-directory 'dest/z'" "$T/err"
check_eq "$(grep "not followed\|cannot replace" "$T/err" | sort)" "$(cat "$T/dry.err")" \
	"the dry run's failures and the run's"
check_eq "$(state src)" "$src_before" "SOURCE changed"
check_eq "$(cat x2/f)" "in x" "the followed symlink's directory"
check_eq "$(readlink x2/y)" "../x2" "the symlink inside it"
check_eq "$(ls x2 | sort | tr '\n' ' ')" "f y " "what the followed directory holds"
for l in a s c p x z z2; do check_link "dest/$l"; done
check_eq "$(ls -A dest | sort | tr '\n' ' ')" "a b c p s x z z2 " "what DEST holds"
check_eq "$(cat dest/b/only_b)" "keep b" "a directory of SOURCE without a symlink in DEST"

# A directory that holds SOURCE; another operand's SOURCE.
mkdir -p tree/src/h tree/src/q solo dest2/src
printf 'h\n' >tree/src/h/f
printf 'q\n' >tree/src/q/f
printf 'solo\n' >solo/f
ln -s ../tree dest2/h
ln -s ../../solo dest2/src/q
tree_before=$(state tree)
solo_before=$(state solo)
run_fcp -K -T tree/src dest2
check_rc 1 "-K to a directory that holds SOURCE"
check_grep "not followed, a symlink to a directory that holds a SOURCE: 'dest2/h'" "$T/err"
run_fcp -K -t dest2 tree/src solo
check_rc 1 "-K into another SOURCE"
check_grep "not followed, a symlink into a SOURCE: 'dest2/src/q'" "$T/err"
check_eq "$(state tree)" "$tree_before" "SOURCE changed (tree)"
check_eq "$(state solo)" "$solo_before" "SOURCE changed (solo)"
check_link dest2/h
check_link dest2/src/q

# --delete, --mirror, --delete-excluded: bad usage, nothing touched.
all_before=$(state .)
for d in --delete --mirror --delete-excluded "--mirror --dry-run"; do
	# shellcheck disable=SC2086
	run_fcp -K $d -T src dest
	check_rc 2 "-K $d"
	check_grep "cannot be combined with --delete, --mirror or --delete-excluded" "$T/err"
done
run_fcp --delete --keep-dirlinks -T src dest
check_rc 2 "--delete --keep-dirlinks"
check_eq "$(state .)" "$all_before" "-K with --delete changed something"

# --move: each source goes only where its copy was made through the
# symlink; what -u kept there (newer) stays, and so does its source.
mkdir -p mv/src/m mv/far/m mv/dest mv/src/r
printf 'moved a\n' >mv/src/m/a
printf 'source b\n' >mv/src/m/b
printf 'newer b\n' >mv/far/m/b
printf 'r\n' >mv/src/r/f
touch -d "$T_TIME1" mv/src/m/a mv/src/m/b
touch -d "$T_TIME2" mv/far/m/b
ln -s ../far/m mv/dest/m
ln -s ../src/m mv/dest/r # into SOURCE: refused, all of r stays
run_fcp -K -u --move -T mv/src mv/dest
check_rc 1 "-K --move (b kept by -u, r refused)"
check_eq "$(cat mv/far/m/a)" "moved a" "the moved file's copy"
check_absent mv/src/m/a "the moved file's source"
check_eq "$(cat mv/src/m/b)" "source b" "the kept file's source"
check_eq "$(cat mv/far/m/b)" "newer b" "the file -u kept"
check_eq "$(cat mv/src/r/f)" "r" "a source behind a refused symlink"
check_grep "not followed, a symlink into a SOURCE: 'mv/dest/r'" "$T/err"
check_grep "not removing 'mv/src/m/b'" "$T/err"
check_link mv/dest/m
check_link mv/dest/r
check_eq "$(ls -A mv/src/m)" "b" "what stays of the moved directory"

# Mount points and bind mounts (root).
[ "$(id -u)" = 0 ] || skip "mount points and bind mounts need root (the rest passed)"
t_mount_fs tmpfs 16M "$T/w/mnt"
mkdir -p mp/src/in mp/dest mp/bm
printf 'to the mount\n' >mp/src/in/f
# Names of one inode on both sides of the mount: linked on each side.
printf 'four names\n' >mp/src/in/h1
ln mp/src/in/h1 mp/src/in/h2
ln mp/src/in/h1 mp/src/h3
ln mp/src/in/h1 mp/src/h4
ln -s ../../mnt mp/dest/in
run_fcp -K -T mp/src mp/dest
check_rc 0 "-K into a mount point"
check_eq "$(cat mnt/f)" "to the mount" "the copy on the mounted filesystem"
for h in mnt/h1 mnt/h2 mp/dest/h3 mp/dest/h4; do
	check_eq "$(cat $h)" "four names" "$h, a hard link on one side of a mount point"
done
check_eq "$(stat -c %i mnt/h1)" "$(stat -c %i mnt/h2)" "the names beyond the mount point: one inode"
check_eq "$(stat -c %i mp/dest/h3)" "$(stat -c %i mp/dest/h4)" "the names in DEST: one inode"
rm mnt/*
run_fcp -K --move -T mp/src mp/dest
check_rc 1 "-K --move into a mount point"
check_grep "not moved into a mount point inside DEST" "$T/err"
check_eq "$(cat mp/src/in/f)" "to the mount" "a source not moved into a mount point"
check_eq "$(cat mp/src/in/h1 mp/src/in/h2)" "four names
four names" "the names not moved into a mount point"
check_absent mp/src/h3 "a source moved beside the mount point"
check_eq "$(cat mp/dest/h3 mp/dest/h4)" "four names
four names" "the moved names' copies"
# A bind mount of a SOURCE's directory, elsewhere: the symlink to it
# leads into SOURCE, which no walk by ".." can see.
t_bind src/b mp/bm
ln -s ../mp/bm dest/bb
mkdir src/bb
printf 'would replace\n' >src/bb/x
src_before=$(state src)
run_fcp -K -T src dest
check_rc 1 "-K to a bind mount of SOURCE's directory"
check_grep "not followed, a symlink onto another mount of a SOURCE's filesystem .*: 'dest/bb'" \
	"$T/err"
check_eq "$(state src)" "$src_before" "SOURCE changed (bind mount)"
check_eq "$(cat src/b/x)" "src b" "a SOURCE file behind a bind mount"
echo "keep-directory-symlink safety ok"
