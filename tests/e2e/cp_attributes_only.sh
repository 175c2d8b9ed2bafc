#!/bin/bash
# cp's --attributes-only (issue 20), beside GNU cp: no data is copied. A
# new file is made empty with its source's mode, owner, times and xattrs;
# a file already there keeps its data and gets the source's metadata.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p src/sub out/sub
	echo "src a" >src/a; echo "src b" >src/sub/b; echo "src c" >src/c
	chmod 640 src/a; chmod 600 src/sub/b
	setfattr -n user.k -v v src/a 2>/dev/null
	touch -d 2021-02-03 src/a src/sub/b
	ln -s a src/link; ln src/c src/c2
	echo "old a, longer" >out/a; chmod 755 out/a; echo "old b" >out/sub/b
}

for cmd in "--attributes-only src new" "--attributes-only -T src out" \
	   "--attributes-only src/a src/c out"; do
	cp_twins setup
	cp_both $cmd
	cp_same
done
cp_twins setup
cp_both --attributes-only -T src out
check_eq "$(cat "$T/fcp/out/a")" "old a, longer" "data kept"
check_eq "$(stat -c '%a %Y' "$T/fcp/out/a")" "$(stat -c '%a %Y' "$T/fcp/src/a")" "metadata"
cp_both --attributes-only src new
check_eq "$(stat -c '%s %a %Y' "$T/fcp/new/sub/b")" "0 600 $(stat -c %Y "$T/fcp/src/sub/b")" "new"
echo PASS
