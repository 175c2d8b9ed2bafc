#!/bin/bash
# A directory bind-mounted inside itself (mount --bind d d/sub) is a loop of
# the filesystem, not of symlinks: it is reported as one ("filesystem loop
# detected: 'd/sub' is the same directory as 'd'"), once, with exit 1, and
# the rest of the tree is copied. A new root copy with the loop in it gets
# its name without it (with --atomic: it keeps its temporary name). Under -L
# a symlink to an ancestor is still a symlink loop. DEST reached again
# through a bind mount is a directory cycle, said so.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "a bind mount needs root"

mkdir -p d/sub d/other
printf 'x\n' >d/file
printf 'y\n' >d/other/y
t_bind d d/sub

for opt in -P -L; do
	rm -rf copy && mkdir copy
	# -T into an existing directory: the files land whatever is decided
	# about a new root copy that met an error.
	run_fcp $opt -T d/ copy
	check_rc 1 "bind-mount cycle ($opt)"
	check_grep "^fastcp: filesystem loop detected: 'd/sub' is the same directory as 'd/'$" "$T/err"
	check_nogrep "symbolic links" "$T/err"
	check_eq "$(grep -c 'loop' "$T/err")" 1 "loop lines ($opt)"
	check_file copy/file
	check_file copy/other/y
	check_no_temp copy
done

# A new root copy: made under a temporary name, given its name without
# the loop; with --atomic, left under the temporary name.
run_fcp d new
check_rc 1 "bind-mount cycle in a new root copy"
check_grep "filesystem loop detected" "$T/err"
check_grep "the copy of 'd' has its name 'new' without the 1 item that failed" "$T/err"
check_file new/file
check_file new/other/y
check_absent new/sub "the loop's copy"
run_fcp --atomic d new2
check_rc 1 "bind-mount cycle in a new root copy (--atomic)"
check_absent new2 "an --atomic root copy with a loop in it under its final name"
check_grep "unfinished copy of 'd' is left as '.*\.fcp-" "$T/err"
rm -rf .fcp-*

umount d/sub || fail "umount d/sub"

# DEST reached again through a bind mount in the source: the copy would
# copy itself. A directory cycle, said so, not ELOOP's "Too many levels of
# symbolic links", which names no symlink here.
mkdir -p s/in t
printf 'z\n' >s/f
t_bind t s/in
run_fcp s t/
check_rc 1 "DEST bound inside the source"
check_grep "^fastcp: directory cycle, cannot copy the destination into itself: 's/in/\.fcp-[^']*'$" "$T/err"
check_nogrep "symbolic links" "$T/err"
umount s/in || fail "umount s/in"

# A symlink that leads back up, followed: a symlink loop, as before.
mkdir -p l/a
ln -s .. l/a/up
rm -rf copy && mkdir copy
run_fcp -L -T l copy
check_rc 1 "symlink loop under -L"
check_grep "symlink loop at 'l/a/up'" "$T/err"
check_nogrep "filesystem loop" "$T/err"
echo "filesystem loops reported as such"
