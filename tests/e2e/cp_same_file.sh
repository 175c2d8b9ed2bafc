#!/bin/bash
# A copy whose destination is its own source, once symlinks are followed
# as the copy would follow them (issue 33, item 5): "fastcp -l symlink foo",
# where symlink points to foo, would put a symlink to itself in foo's
# place; the item is refused and foo keeps its bytes. And --attributes-only
# replaces no file: a symlink, FIFO or device source leaves a regular file
# there as it was, and the item fails (cp: "File exists").
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

# kept FILE BYTES INODE: FILE is still the regular file INODE with BYTES.
kept() {
	check_file "$1" "$1 is no longer a regular file"
	check_eq "$(cat "$1")" "$2" "bytes of $1"
	check_eq "$(stat -c %i "$1")" "$3" "inode of $1"
}

setup() {
	echo "photo bytes" >foo
	ln -s foo symlink
	mkdir dir && echo "other photo" >dir/img && ln -s ../foo dir/up
}

# -l symlink foo: refused; nothing changes.
cp_twins setup
cd "$T/fcp" || fail cd
ino=$(stat -c %i foo)
run_fcp -l symlink foo
check_rc 1
check_grep "'symlink' and 'foo' are the same file" "$T/err"
kept foo "photo bytes" "$ino"
check_tree "$T/base" "$T/fcp" --no-times
# The same through an absolute path and from another directory.
run_fcp -l "$T/fcp/dir/up" "$T/fcp/foo"
check_rc 1
kept foo "photo bytes" "$ino"
check_tree "$T/base" "$T/fcp" --no-times

# -L -l symlink foo, and -l foo foo: the link asked for is there already;
# nothing to do, as in cp.
for cmd in "-L -l symlink foo" "-H -l symlink foo" "-l foo foo"; do
	cp_twins setup
	ino=$(stat -c %i "$T/fcp/foo")
	cp_both $cmd
	cp_same
	kept "$T/fcp/foo" "photo bytes" "$ino"
done

# --attributes-only: a symlink, a FIFO, a device never take a file's place.
setup_attr() {
	mkdir src out
	echo "new" >src/f; ln -s f src/link; mkfifo src/fifo
	[ "$(id -u)" = 0 ] && mknod src/null c 1 3
	for n in link fifo null f; do echo "only copy of $n" >out/$n; done
	chmod 600 src/f; touch -d 2020-01-01 src/f
}
cp_twins setup_attr
cd "$T/fcp/out" || fail cd
for n in link fifo null; do
	[ -e ../src/$n ] || [ -L ../src/$n ] || continue
	ino=$(stat -c %i "$n")
	run_fcp --attributes-only "../src/$n" "$n"
	check_rc 1
	check_grep "will not replace '$n': File exists" "$T/err"
	kept "$n" "only copy of $n" "$ino"
done
cd "$T" || fail cd
# The same within a tree: the regular file gets its metadata, the others
# stay; the exit status says that items failed.
cp_both --attributes-only -T src out
check_rc 1
check_eq "$CP_RC" 1 "cp's exit status"
for n in link fifo null; do
	[ -e "$T/fcp/src/$n" ] || [ -L "$T/fcp/src/$n" ] || continue
	check_eq "$(cat "$T/fcp/out/$n")" "only copy of $n" "bytes of out/$n"
	check_file "$T/fcp/out/$n"
done
check_eq "$(cat "$T/fcp/out/f")" "only copy of f" "data kept"
check_eq "$(stat -c '%a %Y' "$T/fcp/out/f")" "$(stat -c '%a %Y' "$T/fcp/src/f")" "metadata"
check_tree "$T/gnu" "$T/fcp" --no-times
# A dry run says so too, and changes nothing.
cp_twins setup_attr
cd "$T/fcp" || fail cd
run_fcp --dry-run --attributes-only src/link out/link
check_rc 1
check_grep "will not replace" "$T/err"
check_tree "$T/base" "$T/fcp" --no-times
echo PASS
