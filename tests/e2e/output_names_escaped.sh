#!/bin/bash
# Lines for people name one file each: a name with a newline and a name
# spelled with a backslash and "012" were printed alike ('d/a\012b') by
# --dry-run and --check; a byte that is no UTF-8 went out raw. Now a
# backslash is doubled and such a byte is written \ooo, as a control
# character is.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p s d
echo x >'s/a\012b'
echo y >"s/a
b"
echo z >"s/c$(printf '\377')d"
echo w >"s/é"
run_fcp --dry-run -T s d
check_rc 0
check_grep "^copy 'd/a\\\\\\\\012b'$" "$T/all" "the backslash name, its backslash doubled"
check_grep "^copy 'd/a\\\\012b'$" "$T/all" "the newline name"
check_grep "^copy 'd/c\\\\377d'$" "$T/all" "the byte that is no UTF-8"
check_grep "^copy 'd/é'$" "$T/all" "a UTF-8 name as it is"
run_fcp --check -T s d
check_rc 1
check_eq "$(grep -c "^missing in DEST: 'd/a" "$T/all")" 2 "lines of the two names"
check_eq "$(grep "^missing in DEST: 'd/a" "$T/all" | sort -u | wc -l)" 2 "different lines for the two names"
echo "every line names one file"
