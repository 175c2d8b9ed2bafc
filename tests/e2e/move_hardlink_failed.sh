#!/bin/bash
# --move of a file with two names, one of which cannot be read (EIO under
# faultfs): the name that was copied was removed from the source, and the
# same command again found the other alone and copied it as a file of its
# own: the two names in DEST were no longer one file (found by the
# scenario soak, seed 12007152). Now both names stay until both are
# copied, and the run again links them.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p s/DCIM d
head -c 2769 /dev/urandom >s/DCIM/x.tmp
ln s/DCIM/x.tmp s/DCIM/hl5
sum=$(sha256sum <s/DCIM/x.tmp)
touch armed
faultfs_mount s f --armed="$T/armed" --match=hl5 --eio-at=0 --eio-len=4096
run_fcp --move f/DCIM d/
# (Which name is read depends on the directory's order: where the other
# name comes first, the file is read through it and linked, exit 0.)
[ "$RC" = 0 ] && [ "$(stat -c %i d/DCIM/x.tmp)" = "$(stat -c %i d/DCIM/hl5)" ] &&
	skip "the readable name came first in this directory's order: nothing failed"
check_rc 1 "a name that cannot be read"
check_eq "$(stat -c %h s/DCIM/x.tmp)" 2 "both names of the file stay in the source"
rm armed
run_fcp --move f/DCIM d/
check_rc 0 "the same command again"
check_eq "$(stat -c %i d/DCIM/x.tmp)" "$(stat -c %i d/DCIM/hl5)" "the two names in DEST, one file"
check_eq "$(sha256sum <d/DCIM/hl5)" "$sum" "the bytes"
check_absent s/DCIM
echo "a file's names move together"
