#!/bin/bash
# A SOURCE directory bind-mounted inside DEST ("mount --bind s/a
# d/keep/m2") is not copied into: what the copy of s/keep/m2 would write
# there lands in s/a, a source being read (its files replaced before they
# are read), and --mirror would tidy the source's own files. The walk up
# by ".." that tells a copy into itself does not see through a bind
# mount; the inodes do (the same st_dev and st_ino as the SOURCE, or a
# directory inside it, placed by its file handle), and mountinfo's paths
# where those cannot tell. Each such
# directory is named, "not copied into a SOURCE directory mounted inside
# DEST: 'd/keep/m2' is 's/a'", the exit status is 1 and the deletions
# above it are held back; the rest is copied. Also DEST itself (or a
# directory above it) being such a mount, a mount that holds a SOURCE,
# --move, a dry run, and --in-place onto a SOURCE file mounted at another
# name in DEST. Nothing in SOURCE changes in any run but --move's. A
# bind mount inside DEST of a directory that is no SOURCE is copied into
# as before. Also in a chroot whose root is no mount point, where
# mountinfo names paths outside the root, or nothing
# (mount_source_in_dest_chroot.sh runs this test there).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "bind mounts need root"
# In a chroot whose root is no mount point, mountinfo has no line for /
# and names the mounts by paths outside this root: only the inodes tell,
# by file handles, which need CAP_DAC_READ_SEARCH of the first user
# namespace (root outside any container's user namespace).
chroot_=
if ! awk '$5 == "/" { found = 1 } END { exit !found }' /proc/self/mountinfo; then
	chroot_=1
	note "in a chroot whose root is no mount point"
	caps=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
	{ [ -n "$caps" ] && (( 16#$caps & 4 )) &&
	  awk '$1 == 0 && $2 == 0 && $3 == 4294967295 { ok = 1 } END { exit !ok }' /proc/self/uid_map; } ||
		skip "in a chroot without CAP_DAC_READ_SEARCH: a SOURCE mounted inside DEST is not detected here (no file handles; mountinfo's paths lie outside this root)"
fi

WHY="not copied into a SOURCE directory mounted inside DEST:"

# case DIR: a fresh DIR/s (s/a, s/keep/m2, s/b) and DIR/d with s/a
# bind-mounted on d/keep/m2; DIR/sums: the sums of s, to compare after.
fresh() {
	mkdir -p "$T/$1" && cd "$T/$1" || fail "cd $1"
	mkdir -p s/a/x s/keep/m2 s/b d/keep/m2
	head -c 70000 /dev/urandom >s/a/f
	printf 'a-g\n' >s/a/g
	printf 'a-x-y\n' >s/a/x/y
	printf 'other f\n' >s/keep/m2/f
	printf 'other h\n' >s/keep/m2/h
	printf 'b\n' >s/b/c
	t_sums s >sums
	t_bind "$T/$1/s/a" "$T/$1/d/keep/m2"
}
# unchanged: nothing of s changed (its sums, and no new entry).
unchanged() {
	t_sums s | cmp -s - sums || { t_sums s | diff sums - | head; fail "SOURCE changed: $1"; }
	[ "$(find s | wc -l)" = 12 ] || { find s; fail "SOURCE gained entries: $1"; }
}

# 1. A copy of the tree: d/keep/m2 is refused, the rest is copied.
fresh c1
run_fcp -T s d
check_rc 1 "copy with a SOURCE directory mounted inside DEST"
check_grep "^fastcp: $WHY 'd/keep/m2' is 's/a'$" "$T/err"
unchanged "copy"
cmp s/a/f d/a/f || fail "s/a not copied to d/a"
check_file d/b/c
check_absent d/keep/m2/h "copied into the mounted SOURCE directory"

# 1b. Where file handles cannot be opened (not root, a user namespace),
# mountinfo's paths tell it, as before (where they can: not in a chroot).
if [ -z "$chroot_" ]; then
	need_deny
	fresh c1b
	FCP_WRAP="$DENY handles --" run_fcp -T s d
	check_rc 1 "copy with a SOURCE directory mounted inside DEST, no file handles"
	check_grep "^fastcp: $WHY 'd/keep/m2' is 's/a'$" "$T/err"
	unchanged "copy, no file handles"
	check_absent d/keep/m2/h "copied into the mounted SOURCE directory (no file handles)"
fi

# 2. --mirror (and --delete --sync): nothing deleted through the mount,
# and the deletions above it held back (the item failed below them).
for opts in "--mirror" "--delete --sync"; do
	fresh "c2${opts// /}"
	printf 'extra\n' >d/extra
	printf 'extra\n' >d/keep/extra2
	run_fcp $opts -T s d
	check_rc 1 "$opts with a SOURCE directory mounted inside DEST"
	check_grep "^fastcp: $WHY 'd/keep/m2' is 's/a'$" "$T/err"
	check_grep "deletions held back in 'd/keep'" "$T/err"
	unchanged "$opts"
	check_file d/keep/extra2 "$opts deleted beside a refused directory"
	check_file d/extra "$opts deleted above a refused directory"
	cmp s/a/f d/a/f || fail "$opts: s/a not copied to d/a"
done

# 3. A dry run says it and changes nothing.
fresh c3
run_fcp --dry-run --mirror -T s d
check_rc 1 "--dry-run --mirror"
check_grep "^fastcp: $WHY 'd/keep/m2' is 's/a'$" "$T/err"
check_nogrep "'d/keep/m2/" "$T/out" "a dry run plans a copy into the mounted SOURCE"
unchanged "--dry-run"
check_absent d/a

# 4. --move: nothing is moved into it, and s/keep/m2 stays with its files;
# s/a itself moves to d/a, whole.
fresh c4
run_fcp --move -T s d
check_rc 1 "--move with a SOURCE directory mounted inside DEST"
check_grep "^fastcp: $WHY 'd/keep/m2' is 's/a'$" "$T/err"
check_eq "$(cat s/keep/m2/f s/keep/m2/h)" "other f
other h" "--move: what stays of s/keep/m2"
grep ' \./a/' sums | sed 's| \./a/| ./|' >a.sums
t_sums d/a | cmp -s - a.sums || fail "--move: s/a's files are not all in d/a"

# 5. DEST itself is the mounted SOURCE directory, or lies below it: the
# copy would go into the source being read (a copy of the copy).
fresh c5
run_fcp -r s d/keep/m2
check_rc 1 "copy into a SOURCE directory mounted as DEST"
check_grep "^fastcp: $WHY 'd/keep/m2' is 's/a'$" "$T/err"
unchanged "DEST the mount"
run_fcp -r -T s d/keep/m2
check_rc 1 "copy -T onto a SOURCE directory mounted as DEST"
check_grep "^fastcp: $WHY 'd/keep/m2' is 's/a'$" "$T/err"
unchanged "DEST the mount, -T"
run_fcp -r s d/keep/m2/x
check_rc 1 "copy into a directory below a mounted SOURCE directory"
check_grep "^fastcp: $WHY 'd/keep/m2/x' is 's/a/x'$" "$T/err"
unchanged "DEST below the mount"

# 6. A mount that holds a SOURCE (its parent) inside DEST.
mkdir -p "$T/c6/top/d/keep/m2" && cd "$T/c6/top" || fail "cd c6"
mkdir -p s/keep/m2 && printf 'other f\n' >s/keep/m2/f
t_bind "$T/c6/top" "$T/c6/top/d/keep/m2"
run_fcp -T s d
check_rc 1 "copy with a directory holding SOURCE mounted inside DEST"
check_grep "^fastcp: $WHY 'd/keep/m2' holds 's'$" "$T/err"
check_absent "$T/c6/top/f" "copied into the directory that holds SOURCE"

# 7. --in-place onto a file of SOURCE mounted at another name in DEST.
mkdir -p "$T/c7" && cd "$T/c7" || fail "cd c7"
mkdir s d
head -c 70000 /dev/urandom >s/f
printf 'short\n' >s/f2
: >d/f2
t_sums s >sums
mount --bind "$T/c7/s/f" "$T/c7/d/f2" 2>/dev/null || skip "cannot bind-mount a file"
t_mounts_+=("$T/c7/d/f2")
run_fcp --in-place -T s d
check_rc 1 "--in-place onto a SOURCE file mounted in DEST"
check_grep "^fastcp: --in-place: will not rewrite a SOURCE file mounted inside DEST: 'd/f2' is 's/f'$" "$T/err"
t_sums s | cmp -s - sums || fail "--in-place rewrote a SOURCE file"
cmp s/f d/f || fail "--in-place: s/f not copied"

# 8. A bind mount inside DEST of a directory that is no SOURCE is copied
# into, as before (and keeps its extras under --mirror).
mkdir -p "$T/c8/o" "$T/c8/s/keep/m2" "$T/c8/d/keep/m2" && cd "$T/c8" || fail "cd c8"
printf 'other f\n' >s/keep/m2/f
printf 'outside\n' >o/old
t_bind "$T/c8/o" "$T/c8/d/keep/m2"
run_fcp -T s d
check_rc 0 "copy into a bind mount of no SOURCE"
cmp s/keep/m2/f o/f || fail "not copied into a bind mount of no SOURCE"
check_nogrep "$WHY" "$T/err"
echo PASS
