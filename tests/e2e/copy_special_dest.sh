#!/bin/bash
# An existing FIFO, device node or socket at the destination is not replaced
# by anything but an entry of its own kind. cp -a would hang writing into a
# FIFO, write into a device (`cp disk.img /dev/sdX`) or fail on a socket;
# fastcp used to rename a regular file over any of them, exit 0. Now: a
# clear message naming the special file, exit 1, the special file left
# as it was, everything else copied; a FIFO over a FIFO, or a device over a
# device of the same kind, is re-created (archive mode, as cp -a).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "device nodes are made with mknod"
need_cmd python3

mksock() { python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$1"; }
kind() { stat -c '%F %t:%T' "$1"; }
MSG="will not replace special file '%s' with %s; remove it first"

mkdir -p s/tree
printf 'data\n' >s/reg
mkfifo s/fifo
mknod s/chr c 1 5
ln -s reg s/lnk
printf 'one\n' >s/tree/f_over_fifo
printf 'two\n' >s/tree/f_over_chr
printf 'ok\n' >s/tree/plain
ln s/tree/plain s/tree/h_over_fifo
ln -s plain s/tree/l_over_sock
mkfifo s/tree/p_over_p
chmod 0640 s/tree/p_over_p
mknod s/tree/c_over_c c 1 7
mknod s/tree/c_over_b c 1 7

# Single files onto special ones (DEST is the copy: the /dev/sdX case).
mkdir d
mkfifo d/fifo && mknod d/chr c 1 3 && mknod d/blk b 7 200 && mksock d/sock
for t in fifo chr blk sock; do
	before=$(kind "d/$t")
	run_fcp s/reg "d/$t"
	check_rc 1 "regular file onto a $t"
	check_grep "$(printf "$MSG" "d/$t" "a regular file")" "$T/err"
	check_eq "$(kind "d/$t")" "$before" "the $t at the destination"
done
run_fcp s/fifo d/chr
check_rc 1 "FIFO onto a character device"
check_grep "$(printf "$MSG" d/chr "a FIFO")" "$T/err"
check_eq "$(kind d/chr)" "character special file 1:3"
run_fcp s/lnk d/fifo
check_rc 1 "symlink onto a FIFO"
check_grep "$(printf "$MSG" d/fifo "a symlink")" "$T/err"
run_fcp s/chr d/blk
check_rc 1 "character device onto a block device"
check_eq "$(kind d/blk)" "block special file 7:c8"
check_no_temp d

# A tree copied into an existing one, on both paths.
for path in --reflink=never --no-io-uring; do
	rm -rf c && mkdir -p c/tree
	mkfifo c/tree/f_over_fifo c/tree/h_over_fifo c/tree/p_over_p
	mknod c/tree/f_over_chr c 1 3
	mksock c/tree/l_over_sock
	mknod c/tree/c_over_c c 1 3
	mknod c/tree/c_over_b b 7 200
	run_fcp -v "$path" s/tree c
	check_rc 1 "tree with special files in the way $path"
	[ "$path" = --no-io-uring ] || check_grep "io_uring\)" "$T/all" "the io_uring path was not taken"
	for n in f_over_fifo f_over_chr h_over_fifo l_over_sock c_over_b; do
		check_grep "$(printf "$MSG" "c/tree/$n" '.*')" "$T/err"
	done
	check_eq "$(grep -c 'will not replace' "$T/err")" 5 "refusals"
	check_eq "$(kind c/tree/f_over_fifo)" "fifo 0:0"
	check_eq "$(kind c/tree/f_over_chr)" "character special file 1:3"
	check_eq "$(kind c/tree/h_over_fifo)" "fifo 0:0"
	check_eq "$(kind c/tree/l_over_sock)" "socket 0:0"
	check_eq "$(kind c/tree/c_over_b)" "block special file 7:c8"
	# Same kinds are re-created from the source.
	check_eq "$(stat -c '%F %a' c/tree/p_over_p)" "fifo 640" "a FIFO over a FIFO"
	check_eq "$(kind c/tree/c_over_c)" "character special file 1:7" "a device over a device"
	check_eq "$(cat c/tree/plain)" ok
	check_no_temp c
done
# A destination whose rename takes no flags (NFS, 9p, sshfs: faultfs
# --no-rename-flags): the commit's first rename (RENAME_NOREPLACE) is
# refused with EINVAL, and the file must still replace an old regular file
# and still not a FIFO.
mkdir -p back/c nf/s
printf 'new\n' >nf/s/f
printf 'n2\n' >nf/s/g
printf 'n3\n' >nf/s/h
faultfs_mount "$T/back" "$T/mnt" --no-rename-flags
mkfifo mnt/c/h || skip "faultfs cannot make a FIFO"
for path in --reflink=never --no-io-uring; do
	printf 'old\n' >mnt/c/f
	rm -f mnt/c/g
	run_fcp "$path" -T nf/s mnt/c
	check_rc 1 "onto a destination without rename flags $path"
	check_grep "$(printf "$MSG" mnt/c/h "a regular file")" "$T/err"
	check_eq "$(cat mnt/c/f mnt/c/g | tr '\n' ' ')" "new n2 " "files replaced and made $path"
	check_eq "$(stat -c %F mnt/c/h)" fifo
	check_no_temp mnt/c
done
echo "special destinations ok"
