#!/bin/bash
# A copy to a new name that failed an item gets the name (the failed item
# named, exit 1); the same command again, the cause removed, finishes that
# copy in place. It went inside it (NEW/SRC, cp's placement beside a
# directory) because the copy's marker came off at the end of every
# unstopped run: it stays now while an item failed (found by the scenario
# tester). A run that ends whole removes it, and the command after that
# copies inside, as cp does.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_root "the unreadable file is made by running as another user"
need_cmd setpriv getfattr

mkdir -p w/photos/2024
for i in 1 2 3 4 5; do head -c $((i * 3000)) /dev/urandom >"w/photos/2024/img$i.jpg"; done
echo notes >w/photos/notes.txt
chmod 000 w/photos/2024/img3.jpg
chown -R 65534:65534 w
chmod 755 w "$T"
setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null ||
	skip "cannot run as nobody here"
as_nobody() {
	(cd w && setpriv --reuid=65534 --regid=65534 --clear-groups "$FASTCP" "$@") >"$T/out" 2>"$T/err"
	ran_ $? fastcp "$*"
}

as_nobody photos new
check_rc 1 "a copy with an unreadable file"
check_grep "img3.jpg" "$T/err"
check_dir w/new "the copy with a failed item has its name"
check_absent w/new/2024/img3.jpg

chmod 644 w/photos/2024/img3.jpg
as_nobody photos new
check_rc 0 "the same command again"
check_absent w/new/photos "the copy copied into itself"
check_tree w/photos w/new
check_no_temp w
getfattr -d -m - --absolute-names w/new 2>/dev/null | grep -q 'user\.fastcp' &&
	fail "a marker left on the finished copy"
# Whole now: the same command again copies inside it, as cp does.
as_nobody photos new
check_rc 0
check_dir w/new/photos "after a whole run, cp's placement"
echo PASS
