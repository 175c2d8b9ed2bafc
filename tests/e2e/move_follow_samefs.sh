#!/bin/bash
# --move -L on one filesystem renamed the SOURCE directory whole, its
# symlinks moved as links, where a copy (and a move across filesystems)
# follows them; --move -H of a SOURCE that is a symlink renamed the link
# itself. Now -L, and -H for a symlink SOURCE, are never renamed: the copy
# follows the links as everywhere, each followed link stays in the source
# and is named (exit 1), and what it points to is copied and untouched.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p target src
echo T >target/t
echo a >src/a
ln -s ../target src/lnk
ln -s target toplink

run_fcp --move -L -T src dst
check_rc 1
check_grep "not removing 'src/lnk': a symlink followed \(-L\)" "$T/err"
check_dir dst/lnk "-L: the link's copy is what it points to"
check_eq "$(cat dst/lnk/t)" T "-L: its content"
check_eq "$(cat dst/a)" a "-L: the file moved"
check_absent src/a
check_link src/lnk "-L: the followed link stays in the source"
check_eq "$(cat target/t)" T "-L: what it points to is untouched"

run_fcp --move -H toplink dst2
check_rc 1
check_grep "not removing 'toplink': a symlink on the command line followed \(-H\)" "$T/err"
check_dir dst2 "-H: the copy is what the link points to"
check_eq "$(cat dst2/t)" T "-H: its content"
check_link toplink "-H: the link stays"
check_eq "$(cat target/t)" T "-H: what it points to is untouched"
echo PASS
