#!/bin/bash
# Two names of one inode, and the copy of one of them fails (a non-empty
# directory stands at its destination name): the other name must still be
# copied, whichever of the two fastcp meets first, and the failure reported.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p src/a src/b
echo "shared content" > src/a/x
ln src/a/x src/b/x
for blocked in a b; do
	other=$([ $blocked = a ] && echo b || echo a)
	for j in 1 4; do
		rm -rf dst && mkdir -p "dst/src/$blocked/x/occupied"
		run_fcp -j $j src dst/
		check_rc 1 "fastcp -j $j with dst/src/$blocked/x blocked"
		check_grep "src/$blocked/x" "$T/err"
		check_file "dst/src/$other/x" "the other name of the inode was not copied"
		check_eq "$(cat "dst/src/$other/x")" "shared content" "content of dst/src/$other/x"
		check_dir "dst/src/$blocked/x/occupied" "the blocking directory was touched"
		check_no_temp dst
	done
done
echo "a failed name never takes the other names of its inode down"
