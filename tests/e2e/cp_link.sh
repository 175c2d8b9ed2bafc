#!/bin/bash
# cp's -l/--link and -s/--symbolic-link (issue 20), beside GNU cp: every
# non-directory of the copy is a hard link to its source (-l) or a symlink
# to the source's path (-s); directories are made as in a copy. What is in
# the way is replaced (cp needs -f for that; fastcp always replaces, by a
# rename). A relative -s link is made only in the current directory.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p src/sub out/src
	echo a >src/a; echo b >src/sub/b; ln -s a src/rel; ln src/a src/a2
	mkfifo src/fifo
	echo old >out/src/a; echo old >out/src/x
}

for cmd in "-l src new" "-l -f src out" "--link -f -T src out/src" "-l src/a src/sub/b out" \
	   "-l -f -n src out" "-l -f --parents src/sub/b src/a out" "-l -f -H src/rel out"; do
	cp_twins setup
	cp_both $cmd
	cp_same
	cp_both $cmd # again: everything is linked already
	cp_same
done
check_eq "$(stat -c %i "$T/fcp/src/a")" "$(stat -c %i "$T/fcp/out/rel")" "-l -H: one inode"

# -s: the sources by absolute path (the same for both twins), or a file
# by a relative one into the current directory. (Not with hard links in
# the source: cp -as links the later names of one inode to the symlink
# made for the first, whichever its directory listing gave first.)
setup_s() { setup; rm src/a2; }
for cmd in "-s $T/base/src new" "-s -f $T/base/src out" "--symbolic-link $T/base/src/a out/x" \
	   "-s src/a here"; do
	cp_twins setup_s
	cp_both $cmd
	cp_same
done
check_eq "$(readlink "$T/fcp/here")" src/a "-s: relative link in the current directory"
cp_twins setup
cp_both -s src new
check_eq "$RC" "$CP_RC" "-s with relative sources into a directory"
check_grep "can make relative symbolic links only in the current directory" "$T/err"
echo PASS
