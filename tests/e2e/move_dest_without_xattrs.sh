#!/bin/bash
# --move onto a filesystem that keeps no extended attributes (ramfs): the
# source's xattrs and ACL would be gone with the source, so the item is not
# moved. It exited 0 with "warning: cannot preserve extended attributes"
# and removed the source: the xattrs and the ACL were lost for good.
#   - A file with a user xattr and an ACL, a directory with a user xattr,
#     and a plain file: the two with xattrs fail, named as moves that would
#     lose them, exit 1; both stay in SOURCE with their xattrs and ACL;
#     the plain file moves.
#   - --no-preserve=xattr says to move without them: exit 0, SOURCE gone.
#   - A plain copy is unchanged: exit 0, with cp's warning.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "mounting ramfs needs root"
need_cmd getfattr setfattr setfacl getfacl

mkdir -p s/d r
echo content >s/f
echo plain >s/plain
echo inside >s/d/inner
setfattr -n user.kept -v 1 s/f 2>/dev/null || skip "no user xattrs on $(stat -f -c %T .)"
setfacl -m u:nobody:r s/f || skip "no ACLs on $(stat -f -c %T .)"
setfattr -n user.dirs -v 2 s/d
mount -t ramfs ramfs r || skip "cannot mount ramfs"
t_mounts_+=("$T/r")
setfattr -n user.x -v 1 r 2>/dev/null && skip "this kernel's ramfs keeps user xattrs"

run_fcp --move s/f s/d s/plain r/
check_rc 1 "a move that would lose xattrs"
check_grep "cannot move without losing the extended attributes of 's/f'" "$T/err" "the file named"
check_grep "cannot move without losing the extended attributes of 's/d'" "$T/err" "the directory named"
check_nogrep "warning: cannot preserve" "$T/err" "a loss said as a warning"
[ -f s/f ] || fail "the file with xattrs left SOURCE"
[ -d s/d ] || fail "the directory with xattrs left SOURCE"
check_eq "$(getfattr --only-values -n user.kept s/f 2>/dev/null)" 1 "the file's xattr in SOURCE"
check_eq "$(getfattr --only-values -n user.dirs s/d 2>/dev/null)" 2 "the directory's xattr in SOURCE"
getfacl -p s/f 2>/dev/null | grep -q '^user:nobody:r--' || fail "the file's ACL in SOURCE"
check_absent s/plain "the plain file was not moved"
check_eq "$(cat r/plain)" plain "the plain file at DEST"
check_eq "$(cat s/f)" content "the file's content in SOURCE"

run_fcp --move --no-preserve=xattr s/f s/d r/
check_rc 0 "the move told to leave xattrs out"
check_absent s/f "the file after --no-preserve=xattr"
check_absent s/d "the directory after --no-preserve=xattr"
check_eq "$(cat r/f)" content "the file at DEST"
check_eq "$(cat r/d/inner)" inside "the directory's file at DEST"

echo again >s2
setfattr -n user.kept -v 1 s2
run_fcp s2 r/
check_rc 0 "a plain copy onto ramfs"
check_grep "warning: cannot preserve extended attributes of 's2'" "$T/err" "the copy's warning"
[ -f s2 ] || fail "a plain copy removed its source"
echo PASS
