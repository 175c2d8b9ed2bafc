#!/bin/bash
# --check says every entry only DEST has, temp-shaped ones too
# (.fcp-<hex>-<n>-<n>, a file or a directory): --check writes no temporary
# file of its own, so such an entry is a difference, exit 1, never "equal".
# One the SOURCE has is compared as any other name.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir src
echo x >src/x
echo "source's own" >src/.fcp-0123456789abcdef-2-2
check "$FASTCP" -a -T src dst
run_fcp --check -T src dst
check_rc 0 "--check of an exact copy holding a temp-shaped name of the source"
check_nogrep "fcp-" "$T/all" "the source's own temp-shaped name called a difference or a leftover"

cp -a dst dst1
echo stray >dst1/.fcp-0123456789abcdef-0-0
touch -r dst dst1
run_fcp --check -T src dst1
check_rc 1 "--check with a temp-shaped file only DEST has"
check_grep "^extra in DEST: 'dst1/\.fcp-0123456789abcdef-0-0'$" "$T/out"
check_eq "$(wc -l <"$T/out")" 1 "differences said"
check_eq "$(cat dst1/.fcp-0123456789abcdef-0-0)" stray "--check changed DEST"

cp -a dst dst2
mkdir dst2/.fcp-0123456789abcdef-0-0 && echo in >dst2/.fcp-0123456789abcdef-0-0/f
touch -r dst dst2
run_fcp --check -T src dst2
check_rc 1 "--check with a temp-shaped directory only DEST has"
check_grep "^extra in DEST: 'dst2/\.fcp-0123456789abcdef-0-0'$" "$T/out"
check_eq "$(cat dst2/.fcp-0123456789abcdef-0-0/f)" in "--check changed DEST"
echo "--check says temp-shaped entries only DEST has"
