#!/bin/bash
# One filesystem mounted at two places (the same loop device mounted
# twice; a bind mount): "fastcp a/x b/" where b/x is a/x itself was
# refused as "'a/x' and 'b/' are the same file", which names DEST, not the
# copy, and says nothing of why two different paths are one directory.
# Now the refusal names the copy's own path and says what it is: the same
# directory (or file) seen through two mounts of one filesystem, the copy
# landing on its own source. Nothing changes on either side. Different
# paths that merely share the filesystem copy and move as usual.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
t_mount_fs ext4 64m "$T/a"
# shellcheck disable=SC2154 # (lib.sh's: the device t_mount_fs made)
loop=${t_loops_[${#t_loops_[@]} - 1]}
mkdir -p "$T/b"
mount "$loop" "$T/b" 2>/dev/null || skip "cannot mount $loop a second time"
t_mounts_+=("$T/b")
cd "$T" || fail "cd $T"

mkdir -p a/x/sub a/other
echo one >a/x/f
head -c 100000 /dev/urandom >a/x/sub/g
cp -a a/x ref
[ "$(stat -c %i a/x)" = "$(stat -c %i b/x)" ] || fail "a/x and b/x are not one directory"

# refused WHAT: exit 1, a/x as it was, nothing new beside it.
refused() {
	check_rc 1 "$1"
	check_tree ref a/x
	check_no_temp a
	check_eq "$(cd a && find . -mindepth 1 -maxdepth 1 | sort | tr '\n' ' ')" "./lost+found ./other ./x " \
		"$1: what a holds"
}
same_dir="'a/x' and 'b/x' are the same directory, seen through two mounts of one filesystem: the copy would land on its own source"

run_fcp a/x b/
refused "a/x into b/"
check_grep "^fastcp: $same_dir$" "$T/err"
check_nogrep "'b/'" "$T/err"
run_fcp a/x b
refused "a/x into b"
check_grep "^fastcp: $same_dir$" "$T/err"
run_fcp -T a/x b/x
refused "-T a/x b/x"
check_grep "^fastcp: $same_dir$" "$T/err"
run_fcp --move a/x b/
refused "--move a/x into b/"
check_grep "^fastcp: $same_dir$" "$T/err"
run_fcp a/x/f b/x/
refused "a/x/f into b/x/"
check_grep "^fastcp: 'a/x/f' and 'b/x/f' are the same file, seen through two mounts of one filesystem: the copy would land on its own source$" "$T/err"
# Into a directory inside itself: said so, and why the path hides it.
run_fcp a/x b/x/sub/
refused "a/x into b/x/sub/"
check_grep "^fastcp: cannot copy a directory, 'a/x', into itself, 'b/x/sub/', seen through two mounts of one filesystem$" "$T/err"
# One mount: the same words as before, with the copy's own path.
run_fcp a/x a/
refused "a/x into a/"
check_grep "^fastcp: 'a/x' and 'a/x' are the same file$" "$T/err"

# A bind mount of the filesystem's root is another such mount.
mkdir -p c
t_bind "$T/a" "$T/c"
run_fcp a/x c/
refused "a/x into c/ (a bind mount)"
check_grep "^fastcp: 'a/x' and 'c/x' are the same directory, seen through two mounts of one filesystem: the copy would land on its own source$" "$T/err"

# Inside a tree: a file of DEST that is a bind mount of the source's file.
mkdir -p a/t a/u
echo precious >a/t/f
: >a/u/f
t_bind "$T/a/t/f" "$T/a/u/f"
run_fcp --move -T a/t a/u
check_rc 1 "--move onto a bind-mounted source file"
check_grep "^fastcp: 'a/t/f' and 'a/u/f' are the same file, seen through two mounts of one filesystem: the copy would land on its own source$" "$T/err"
check_eq "$(cat a/t/f)" precious "the source file"
umount a/u/f
rm -rf a/t a/u

# Different paths on the same filesystem: copied, and moved.
run_fcp a/x b/other/
check_rc 0 "a/x into b/other/"
check_tree ref a/other/x
run_fcp a/x b/y
check_rc 0 "a/x to b/y"
check_tree ref a/y
run_fcp --move a/x b/z
check_rc 0 "--move a/x to b/z"
check_tree ref a/z
check_absent a/x "the moved source"
echo "one directory through two mounts: refused, named with both paths and why; other paths copy"
