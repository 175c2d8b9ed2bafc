#!/bin/bash
# cp's options typed by habit (issue 35): -p, -rp, -pR, -d, -dR, -Z and
# --preserve=context are taken with cp's meaning, beside GNU cp on the same
# tree. fastcp keeps everything by default, so "fastcp X" is GNU "cp -R X
# --preserve=all": the two copies must be the same tree (treecmp: types,
# data, holes, mode, owner, times, xattrs, hard links). -Z gives a copy the
# default SELinux label of its place: the source's security.selinux is not
# copied, nor removed from a copy that has one on a re-run (a label is set
# by hand here, which a kernel without SELinux stores as any xattr).
# --keep-directory-symlink is taken (cp_keep_directory_symlink.sh tests
# what it does).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd cp getfattr setfattr

t_mktree src nodeep

for x in -p -rp -pR -d -dR -Z --preserve=context; do
	run_fcp "$x" -T src "fcp$x"
	check_rc 0 "fastcp $x"
	# GNU cp refuses --preserve=context without an SELinux kernel, where
	# fastcp copies the label as the xattr it is: --preserve=all is the
	# same there.
	g=$x
	[ "$x" = --preserve=context ] && g=--preserve=all
	cp -R "$g" --preserve=all -T src "gnu$x" 2>"$T/cp.err" ||
		{ cat "$T/cp.err"; fail "GNU cp -R $x --preserve=all failed"; }
	check_tree "gnu$x" "fcp$x"
done

# The label: kept by default and by --preserve=context, left out by -Z.
mkdir lsrc
echo data >lsrc/f
label=system_u:object_r:fcp_test_t:s0
setfattr -n security.selinux -v "$label" lsrc/f 2>/dev/null ||
	skip "cannot set security.selinux here (an SELinux policy refuses made-up labels)"
touch -d '2020-01-02 03:04:05' lsrc/f
label_of() { getfattr --absolute-names --only-values -n security.selinux "$1" 2>/dev/null; }
run_fcp -T lsrc l1
check_rc 0
check_eq "$(label_of l1/f)" "$label" "the label kept by default"
run_fcp -Z --preserve=context -T lsrc l2
check_eq "$(label_of l2/f)" "$label" "--preserve=context after -Z keeps the label"
run_fcp -Z -T lsrc l3
check_rc 0
check_eq "$(label_of l3/f)" "" "-Z: the source's label copied"
check_eq "$(cat l3/f)" "data" "-Z: the data"
check_eq "$(stat -c %Y l3/f)" "$(stat -c %Y lsrc/f)" "-Z: the mtime"
# A copy with a label of its place: a -Z re-run neither removes it nor
# sees a difference; a run without -Z brings the source's.
setfattr -n security.selinux -v system_u:object_r:other_t:s0 l3/f
ctime=$(stat -c %z l3/f)
run_fcp -Z --sync -T lsrc l3
check_rc 0
check_eq "$(label_of l3/f)" "system_u:object_r:other_t:s0" "-Z --sync: the copy's own label"
check_eq "$(stat -c %z l3/f)" "$ctime" "-Z --sync: the copy touched (the label seen as a difference)"
run_fcp --sync -T lsrc l3
check_eq "$(label_of l3/f)" "$label" "--sync without -Z: the source's label"

# --keep-directory-symlink, with no symlink in DEST: the usual copy.
run_fcp --keep-directory-symlink -T src k
check_rc 0 "--keep-directory-symlink"
check_tree src k
# -Z=CONTEXT: a named context cannot be given.
run_fcp --context=system_u:object_r:x_t:s0 -T src c
check_rc 2 "--context=CTX"
check_grep "cannot give a named SELinux context" "$T/err"
echo "cp habits ok"
