#!/bin/bash
# --mirror deleting a directory of DEST that the source lacks, where one
# entry deep in it cannot be deleted (its directory made immutable): that
# entry is named once, as "cannot delete", with its path; the directories
# above it stay without a word of their own (they are not "held for
# excluded entries", nor failed again), everything else is deleted, the
# copy itself is done, and the exit status is 1 with one failed item.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "chattr +i needs root"

mkdir -p s d/old/deep/stuck d/old/other
echo new >s/f
echo x >d/old/deep/stuck/f
echo y >d/old/deep/y
echo z >d/old/other/z
chattr +i d/old/deep/stuck 2>/dev/null ||
	skip "chattr +i not supported on $T"
run_fcp --mirror -T s d
rc=$RC
chattr -i d/old/deep/stuck
RC=$rc
check_rc 1 "an entry that cannot be deleted"
check_grep "^fastcp: cannot delete 'd/old/deep/stuck/f': Operation not permitted" "$T/err"
check_eq "$(grep -c "cannot delete" "$T/err")" 1 "lines saying 'cannot delete'"
check_nogrep "excluded" "$T/err"
check_grep "^fastcp: 1 item failed" "$T/err"
check_eq "$(cat d/f)" new "the copied file"
check_eq "$(cat d/old/deep/stuck/f)" x "the entry that could not be deleted"
[ ! -e d/old/deep/y ] && [ ! -e d/old/other ] || fail "the rest of d/old was not deleted"
echo "one entry that cannot be deleted is named once, the rest is deleted"
