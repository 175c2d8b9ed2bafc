#!/bin/bash
# -s and -l make links, not copies: a file in DEST with the source's bytes
# and times is still no link to it. Where a run goes on into a copy (the
# same SOURCE's copy a failed run left marked, or --sync), such a file was
# kept as "up to date" and -s/-l exited 0 with no link made (found by the
# scenario soak, seeds 12002605 and 12002670).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p s/p
echo a >s/p/f
ln -s nowhere s/p/dang
mkdir d
# A copy that failed an item (a dangling link under -L): it has its name
# and keeps its mark, so the same SOURCE goes on into it.
run_fcp -L s/p d/new
check_rc 1 "-L over a dangling link"
run_fcp -s "$T/s/p" d/new
check_rc 0 "-s into the copy"
check_eq "$(readlink d/new/f)" "$T/s/p/f" "-s: the file there became the link"
run_fcp -s "$T/s/p" d/new
check_rc 0 "-s again"
check_eq "$(readlink d/new/f)" "$T/s/p/f" "-s again: the link stays"

rm -rf d && mkdir d
cp -a s/p d/q
rm d/q/dang
run_fcp --sync -l s/p/. d/q
check_rc 0 "--sync -l over a copy"
check_eq "$(stat -c %i d/q/f)" "$(stat -c %i s/p/f)" "--sync -l: the copy became a hard link"
check_eq "$(cat s/p/f)" a "the source"
echo "-s and -l make their links over copies"
