#!/bin/bash
# --move on one filesystem of a SOURCE directory that holds a mount point
# below it (a bind mount of another directory): the directory was renamed
# whole, the mount went along, nothing was named, exit 0. The man page
# promises, as across filesystems: nothing on or below a mount point inside
# a SOURCE is removed, its copy is made, the mount point is named, exit 1.
# Now such a directory is copied and removed, not renamed.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "bind mounts need root"
need_cmd mountpoint

for where in mnt deep/er/mnt; do
	mkdir -p other/d "src/$where" src/x/y
	echo PRECIOUS >other/o
	head -c 70000 /dev/urandom >other/d/big
	echo s >src/s
	echo y >src/x/y/f
	t_sums other >"$T/other.before"
	t_sums src >"$T/src.before"
	# Where the mount would be if renamed along: unmounted at exit too.
	t_mounts_+=("$T/D/$where")
	t_bind "$T/other" "$T/src/$where"
	run_fcp --move src D
	moved_along=no
	mountpoint -q "D/$where" && moved_along=yes
	mountpoint -q "src/$where" || { umount "D/$where"; fail "$where: the mount moved along (exit $RC)"; }
	# The origin, seen through the mount, untouched byte for byte.
	t_sums "src/$where" >"$T/seen"
	umount "src/$where"
	check_eq "$moved_along" no "$where: a mount at the copy's place"
	t_sums other >"$T/other.after"
	cmp -s "$T/other.before" "$T/other.after" || fail "$where: the bind mount's origin changed"
	cmp -s "$T/other.before" "$T/seen" || fail "$where: the mount's content changed"
	check_rc 1
	check_grep "not removing 'src/$where': a mount point is not moved across" "$T/err"
	# The rest is moved: in D byte for byte, gone from SOURCE.
	check_eq "$(cat D/s)" s "$where: src/s moved"
	check_eq "$(cat D/x/y/f)" y "$where: src/x/y/f moved"
	check_absent src/s
	check_absent src/x
	cmp -s other/d/big "D/$where/d/big" || fail "$where: the mount's copy"
	# Every source byte is somewhere: in D, or still in SOURCE.
	(cd D && find . -type f ! -path "./$where/*" -print0 | sort -z | xargs -0 sha256sum) >"$T/D.sums"
	grep -v " \./$where/" "$T/src.before" | cmp -s - "$T/D.sums" || fail "$where: moved bytes differ"
	rm -rf src D other
done
echo PASS
