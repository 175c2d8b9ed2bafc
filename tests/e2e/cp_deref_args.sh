#!/bin/bash
# cp's -H (issue 20), beside GNU cp: a symlink named as SOURCE is followed
# (a directory's tree, a file's data), symlinks found inside are kept; a
# dangling one fails as in cp. Without -H, -P is the default. (-L is not
# compared: cp -a -L makes a followed link and its target hard links, fastcp
# -L two files.)
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p d/sub out
	echo c >d/sub/c; ln -s sub/c d/inner; ln -s /etc/hostname d/outer
	ln -s d dlink; echo f >f; ln -s f flink; ln -s nowhere dangling
	ln -s dlink chain
}

for cmd in "-H dlink out" "-H -T dlink copy" "-H flink out" "-H flink copy" \
	   "-H chain flink out" "-H dangling out" "dlink flink out" "-H -P dlink out" "-P -H dlink out" "-L -H dlink out"; do
	cp_twins setup
	cp_both $cmd
	cp_same
done
cp_twins setup
cp_both -H dlink flink out
cp_same
check_dir "$T/fcp/out/dlink" "-H: the directory"
check_link "$T/fcp/out/dlink/inner" "-H: a link inside stays a link"
check_file "$T/fcp/out/flink" "-H: the file"
echo PASS
