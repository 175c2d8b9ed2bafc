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

# Inside a tree: a symlink whose target is the file of its name in the
# destination. Copied, linked, backed up or synced, it took the file's
# place (a symlink to itself, exit 0); now the item fails, as in cp, and
# the rest is copied.
setup_tree() {
	mkdir dir dir2; echo "photo bytes" >dir2/foo; ln -s ../dir2/foo dir/foo; echo x >dir/x
}
for cmd in "-T dir dir2" "-l -T dir dir2" "-b -T dir dir2" "--sync -T dir dir2" \
	   "--remove-destination -T dir dir2" "--move -T dir dir2"; do
	cp_twins setup_tree
	ino=$(stat -c %i "$T/fcp/dir2/foo")
	cd "$T/fcp" || fail cd
	run_fcp $cmd
	cd "$T" || fail cd
	check_rc 1
	check_grep "not copied, a symlink to the file it would replace: 'dir/foo'" "$T/err"
	kept "$T/fcp/dir2/foo" "photo bytes" "$ino"
	check_absent "$T/fcp/dir2/foo~" "$cmd: a backup of a file not replaced"
	check_eq "$(cat "$T/fcp/dir2/x")" x "$cmd: the rest is copied"
	check_link "$T/fcp/dir/foo" "$cmd: the source symlink"
done
# cp refuses it too (for the copy; cp -l and --remove-destination too).
cp_twins setup_tree
cp_both -T dir dir2
cp_same

# -L -l symlink foo, and -l foo foo: the link asked for is there already;
# nothing to do, as in cp.
for cmd in "-L -l symlink foo" "-H -l symlink foo" "-l foo foo"; do
	cp_twins setup
	ino=$(stat -c %i "$T/fcp/foo")
	cp_both $cmd
	cp_same
	kept "$T/fcp/foo" "photo bytes" "$ino"
done

# Onto the source's own inode, cp copies in a few cases, and so does
# fastcp (issue 33, item 17): another name of the file with --backup or
# --remove-destination (the source's name stays), its own name with -f
# and --backup (the backup is kept; the file is a copy); elsewhere both
# refuse. Every byte stays somewhere.
setup_same() {
	echo "photo bytes" >foo; ln foo hardlink; echo F >F
}
for cmd in "-f -b F F" "-b foo hardlink" "--remove-destination foo hardlink" \
	   "--backup=numbered foo hardlink" "-b -S .bak foo hardlink" \
	   "-f F F" "-b F F" "--remove-destination F F" "-f foo hardlink" "foo hardlink"; do
	cp_twins setup_same
	cp_both $cmd
	cp_same
	check_eq "$(cat "$T/fcp/foo")" "photo bytes" "$cmd: bytes of foo"
	check_eq "$(cat "$T/fcp/F")" "F" "$cmd: bytes of F"
done
check_eq "$(cat "$T/fcp/hardlink")" "photo bytes" "bytes of hardlink"
# --move onto another name of the file stays refused (rename(2) would do
# nothing and the move would seem done).
cp_twins setup_same
cd "$T/fcp" || fail cd
run_fcp --move -b foo hardlink
check_rc 1
check_grep "'foo' and 'hardlink' are the same file" "$T/err"
check_tree "$T/base" "$T/fcp" --no-times
cd "$T" || fail cd

# --backup=simple a~ a: the backup of a would take the source's name; cp
# refuses, fastcp too (it replaced the source with the backup). And a
# source reached through a symlink of that name (-L): refused as well.
setup_tilde() { echo "source" >'a~'; echo "dest" >a; ln -s 'a~' la; }
for cmd in "--backup=simple a~ a" "-b a~ a" "--backup=numbered a~ a" "-b -S x a~ a"; do
	cp_twins setup_tilde
	cp_both $cmd
	cp_same
done
cp_twins setup_tilde
cd "$T/fcp" || fail cd
for cmd in "--backup=simple a~ a" "-L --backup=simple la a"; do
	run_fcp $cmd
	check_rc 1
	check_grep "not copied, its backup name is the source: '(a~|la)'" "$T/err"
	check_tree "$T/base" "$T/fcp" --no-times
done
cd "$T" || fail cd

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
