#!/bin/bash
# --move never removes anything below a mount point inside SOURCE. A bind
# mount of another directory of the same filesystem has its parent's
# st_dev: the source removal took it for part of SOURCE and emptied it,
# deleting files that lie outside SOURCE (their copies in DEST were made,
# but the user's directory outside the tree was emptied). Mount points are
# now told by mount id: the bind mount stays whole and is named (exit 1).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "bind mounts need root"

for dest in tmpfs samefs; do
	mkdir -p src/bind outside/deep
	echo PRECIOUS >outside/precious
	echo DEEP >outside/deep/d
	echo f >src/f
	cp -a outside outside.saved
	t_bind "$T/outside" "$T/src/bind"
	if [ $dest = tmpfs ]; then
		t_mount_fs tmpfs 16m "$T/dstfs"
		run_fcp --move -T src dstfs/d
	else
		# One filesystem, a directory in the way: copied, not renamed.
		mkdir -p dstfs/d && echo old >dstfs/d/old
		run_fcp --move -T src dstfs/d
	fi
	umount "$T/src/bind"
	diff -r outside.saved outside || fail "$dest: the bind-mounted directory outside SOURCE changed"
	check_rc 1
	check_grep "not removing 'src/bind': a mount point is not moved across" "$T/err"
	check_eq "$(cat dstfs/d/f)" f "$dest: the rest is moved"
	check_absent src/f
	check_eq "$(cat dstfs/d/bind/precious)" PRECIOUS "$dest: its copy"
	[ $dest = tmpfs ] && umount "$T/dstfs"
	rm -rf src outside outside.saved dstfs
done
echo PASS
