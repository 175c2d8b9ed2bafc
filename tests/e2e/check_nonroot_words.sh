#!/bin/bash
# --check creates nothing, so it never says it cannot create: run as an
# unprivileged user, a device only the source has is "missing in DEST"
# (not "cannot create device (not root)"), an equal device is equal, and a
# DEST directory it cannot open is "cannot read directory" (not "cannot
# create directory"); exit 1 for the differences and the unread directory.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "making device nodes and switching to another user need root"
need_cmd setpriv
id nobody >/dev/null 2>&1 || skip "no user nobody"
grp=$(id -gn nobody)

mkdir -p src/sub
echo a >src/sub/a
echo b >src/b
mknod src/cdev c 1 3 || skip "cannot make a device node here"
mknod src/same c 1 5
check "$FASTCP" -a -T src dst
rm dst/cdev
chmod 000 dst/sub
touch -r src dst
chmod -R a+rX src
chmod 755 dst
FCP_WRAP="setpriv --reuid=nobody --regid=$grp --clear-groups" run_fcp --check -T src dst
check_rc 1 "--check as nobody"
check_nogrep "cannot create" "$T/all" "--check said it cannot create"
check_grep "^missing in DEST: 'dst/cdev'$" "$T/out"
check_nogrep "dst/same|src/same" "$T/all" "an equal device called a difference"
check_grep "^fastcp: cannot read directory 'dst/sub': Permission denied$" "$T/err"
check_absent dst/cdev "--check created a device"
check_eq "$(stat -c %a dst/sub)" 0 "--check changed a directory's mode"
echo "--check says what differs, never that it cannot create"
