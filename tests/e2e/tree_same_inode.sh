#!/bin/bash
# A name inside DEST that is the source file's own inode (a hard link a
# -l run made, a bind mount of the source's directory or of a single file
# inside DEST) is no copy of it. --in-place emptied it before reading it
# (both gone to 0 bytes), and --move took the "copy" for done and removed
# the source: its only data. Now the item fails "are the same file", the
# source keeps every byte, and nothing outside DEST changes; --move does
# not enter a mount point inside DEST at all.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "bind mounts need root"

# same_bytes SAVED DIR: DIR holds the files of SAVED, byte for byte.
same_bytes() {
	local f
	for f in $(cd "$1" && find . -type f); do
		cmp -s "$1/$f" "$2/$f" || fail "$2/$f lost bytes ($(stat -c %s "$2/$f" 2>/dev/null || echo gone) of $(stat -c %s "$1/$f"))"
	done
}

# 1. --in-place onto a bind mount of the source's own directory.
mkdir -p src/sub dst/sub
head -c 300000 /dev/urandom >src/sub/f
echo small >src/sub/g
cp -a src saved
t_bind "$T/src/sub" "$T/dst/sub"
run_fcp --inplace -T src dst
same_bytes saved src
check_rc 1
# The mounted directory is refused whole where the mount can be told
# (mount_source_in_dest.sh), else its file as the same file.
check_grep "'src/sub/f' and 'dst/sub/f' are the same file|not copied into a SOURCE directory mounted inside DEST: 'dst/sub' is 'src/sub'" "$T/err"
umount dst/sub
rm -rf src dst saved

# 2. --in-place onto a hard link of the source (a -l snapshot), links
# not kept: the same without a mount. -b and --remove-destination copy
# beside it and rename over the name, as cp does: the source stays whole.
for opt in "--inplace --no-preserve=links" "--in-place" "--in-place -u --sync" \
	   "--remove-destination" "-b --in-place"; do
	mkdir -p src
	head -c 300000 /dev/urandom >src/f
	echo other >src/o
	cp -a src saved
	run_fcp -l -T src snap
	check_rc 0
	check_eq "$(stat -c %i snap/f)" "$(stat -c %i src/f)" "-l made a hard link"
	# shellcheck disable=SC2086
	run_fcp $opt -T src snap
	same_bytes saved src
	same_bytes saved snap
	case $opt in
	--remove*|-b*|*-u*) check_rc 0 ;; # beside it, or nothing to do
	*)	check_rc 1
		check_grep "'src/f' and 'snap/f' are the same file" "$T/err" ;;
	esac
	rm -rf src snap saved
done

# 3. --move into a tmpfs DEST holding a bind mount of a source directory:
# the file "copied" onto itself was removed, exit 0; and so were, after
# the copy declined the mount point, the symlink, FIFO and empty
# directory it found there "the same" (they are the source's own).
mkdir -p src/sub/empty
echo PRECIOUS >src/sub/f
ln -s target src/sub/l
mkfifo src/sub/p
echo top >src/t
t_mount_fs tmpfs 16m "$T/dstfs"
mkdir -p dstfs/d/sub
t_bind "$T/src/sub" "$T/dstfs/d/sub"
run_fcp --move -v -T src dstfs/d
umount dstfs/d/sub
check_eq "$(cat src/sub/f 2>/dev/null)" PRECIOUS "the source's only copy"
check_eq "$(readlink src/sub/l)" target "the source's symlink"
[ -p src/sub/p ] || fail "the source's FIFO was removed"
[ -d src/sub/empty ] || fail "the source's empty directory was removed"
check_rc 1
# --move enters no mount point inside DEST (as --delete does not).
check_grep "not moved into a mount point inside DEST: 'dstfs/d/sub'|not copied into a SOURCE directory mounted inside DEST: 'dstfs/d/sub' is 'src/sub'" "$T/err"
check_eq "$(cat dstfs/d/t)" top "the rest is moved"
check_absent src/t
rm -rf src

# 4. --move on one filesystem: a single file bind-mounted in DEST, and a
# directory.
mkdir -p src/sub dst/sub
echo PRECIOUS >src/f
echo SUB >src/sub/s
echo o >src/o
: >dst/f
mount --bind src/f dst/f || skip "cannot bind-mount a file"
t_mounts_+=("$T/dst/f")
t_bind "$T/src/sub" "$T/dst/sub"
run_fcp --move -T src dst
umount dst/f
umount dst/sub
check_eq "$(cat src/f 2>/dev/null)" PRECIOUS "a bind-mounted file's source"
check_eq "$(cat src/sub/s 2>/dev/null)" SUB "a bind-mounted directory's source"
check_rc 1
check_eq "$(cat dst/o)" o "the rest is moved"
check_eq "$(stat -c %s dst/f)" 0 "the mount point under DEST as it was"
check_grep "'src/f' and 'dst/f' are the same file" "$T/err"
check_grep "not moved into a mount point inside DEST: 'dst/sub'|not copied into a SOURCE directory mounted inside DEST: 'dst/sub' is 'src/sub'" "$T/err"
echo PASS
