#!/bin/bash
# Not root, the owner of a copy cannot be kept, but its group can where the
# user is a member of it: cp tries fchown(fd, -1, gid) after the full change
# failed. So must fastcp, for files (both paths), directories, symlinks and
# FIFOs; a group the user is not in stays the user's own, silently, and the
# setuid/setgid bits go (as with cp: the owner they were meant for is gone).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "the source must belong to another user, and the copy is run as nobody"
need_cmd setpriv
getent group 100 >/dev/null || skip "no group 100 to make nobody a member of"

mkdir -p s/d
printf 'f\n' >s/f
printf 'o\n' >s/other
printf 's\n' >s/sg && chmod 2755 s/sg
printf 'x\n' >s/d/x
mkfifo s/p
ln -s f s/l
chown -R 0:100 s
chown -h 0:100 s/l
chown 0:65533 s/other
chmod -R go+rX s

for path in --reflink=never --no-io-uring; do
	rm -rf dst && mkdir dst && chown 65534:65534 dst
	FCP_WRAP="setpriv --reuid=65534 --regid=65534 --groups=100" \
		run_fcp -v "$path" s dst/c
	check_rc 0
	[ "$path" = --no-io-uring ] || check_grep "io_uring\)" "$T/all" "the io_uring path was not taken"
	check_eq "$(stat -c %n:%u:%g dst/c dst/c/f dst/c/sg dst/c/d dst/c/d/x dst/c/l dst/c/p | tr '\n' ' ')" \
		"dst/c:65534:100 dst/c/f:65534:100 dst/c/sg:65534:100 dst/c/d:65534:100 dst/c/d/x:65534:100 dst/c/l:65534:100 dst/c/p:65534:100 " \
		"owner:group of the copies $path"
	check_eq "$(stat -c %g dst/c/other)" 65534 "a group the user is not in"
	check_eq "$(stat -c %a dst/c/sg)" 755 "setgid bit after the owner was lost"
done
echo "group kept ok"
