#!/bin/bash
# Without its ACLs (--no-preserve=xattr), a copy must not give the owning
# group the rights of the ACL mask: with an access ACL, the mode's group
# bits are the mask (the union of the named entries), not the group's own
# entry. The copy's group bits are the source's group entry (limited by the
# mask): never more than the owning group had. Checked on both the io_uring
# batch path and the synchronous one, for files, a directory and a FIFO.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd setfacl getfacl

mkdir -p s/d
printf 'a\n' >s/a
printf 'b\n' >s/b
mkfifo s/p
chmod 0640 s/a s/b s/p
chmod 0750 s/d
# group r, a named user rw: the mask becomes rw, shown as the group bits.
setfacl -m u:65534:rw s/a s/p || skip "setfacl refused on $(stat -f -c %T .)"
# group rwx limited by a mask of r: the group had r only.
setfacl -m g::rwx,m::r s/b
setfacl -m u:65534:rwx s/d
check_eq "$(stat -c %a s/a s/b s/d s/p | tr '\n' ' ')" "660 640 770 660 " "source modes (the mask)"

for path in --reflink=never --no-io-uring; do
	rm -rf c
	run_fcp -v "$path" --no-preserve=xattr s c
	check_rc 0
	[ "$path" = --no-io-uring ] || check_grep "io_uring\)" "$T/all" "the io_uring path was not taken"
	check_eq "$(stat -c %a c/a c/b c/d c/p | tr '\n' ' ')" "640 640 750 640 " \
		"group bits without the ACL $path"
	[ -z "$(getfacl -cs c/a c/d 2>/dev/null)" ] || fail "ACL copied with --no-preserve=xattr"
done

# With the ACLs kept, the copy has them and the mode shows the mask again.
run_fcp s k
check_rc 0
check_eq "$(stat -c %a k/a k/b k/d k/p | tr '\n' ' ')" "660 640 770 660 " "modes with the ACLs kept"
check_eq "$(getfacl -c k/a | grep '^group::')" "group::r--" "group entry kept"
# A destination that refuses ACLs (btrfs mounted noacl): the same rule,
# whatever was asked. Needs root to mount; the rest above ran already.
if [ "$(id -u)" = 0 ]; then
	t_mount_fs btrfs 128M "$T/m"
	mount -o remount,noacl "$T/m" || skip "cannot remount btrfs noacl"
	run_fcp s m/c
	check_rc 0
	check_eq "$(stat -c %a m/c/a m/c/b m/c/d m/c/p | tr '\n' ' ')" "640 640 750 640 " \
		"group bits on a destination without ACLs"
else
	note "not root: the destination without ACLs is not tried"
fi
echo "acl group bits ok"
