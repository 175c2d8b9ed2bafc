#!/bin/bash
# POSIX ACLs on XFS (issue 33, item 12): as root XFS lists each ACL twice,
# as system.posix_acl_* and as the attribute that holds it,
# trusted.SGI_ACL_FILE or trusted.SGI_ACL_DEFAULT. That second name is the
# same ACL: right after a correct copy to, from or within XFS, --check says
# the trees are equal, --sync finds nothing to update, and the ACLs are
# the source's (a --sync that removed "extra" xattrs must not take the ACL
# away by its other name).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "XFS lists trusted.SGI_ACL_* to root only, and mounting needs root"
need_cmd setfacl getfacl getfattr

t_mount_fs xfs 300M "$T/xfs"
mkdir -p src/d/sub
echo a >src/a && setfacl -m u:nobody:r src/a
echo b >src/d/sub/b
setfacl -d -m u:nobody:rx src/d && setfacl -m u:nobody:rwx src/d
echo plain >src/plain
getfattr -m- -d src/a | grep -q SGI_ACL && skip "the source filesystem lists SGI ACLs itself"

entries=$(find src | wc -l)
acls() { (cd "$1" && find . | sort | xargs getfacl -p 2>/dev/null); }

# ext4/tmpfs -> XFS, XFS -> XFS, XFS -> here.
pairs=("src xfs/c1" "xfs/c1 xfs/c2" "xfs/c2 back")
for pair in "${pairs[@]}"; do
	read -r from to <<<"$pair"
	run_fcp -a -T "$from" "$to"
	check_rc 0 "copy $from -> $to"
	check_eq "$(acls "$to")" "$(acls src)" "ACLs of $to"
	run_fcp --check -a -T "$from" "$to"
	check_rc 0 "check $from -> $to"
	check_eq "$(cat "$T/out")" "" "differences of $from -> $to"
	run_fcp -v --sync -a -T "$from" "$to"
	check_rc 0 "sync $from -> $to"
	check_grep "fastcp: $entries unchanged, 0 with metadata updated, 0 deleted" "$T/err"
	check_eq "$(acls "$to")" "$(acls src)" "ACLs of $to after --sync"
done
getfattr -m- -d xfs/c1/a 2>/dev/null | grep -q '^trusted.SGI_ACL_FILE=' ||
	note "this kernel's XFS does not list trusted.SGI_ACL_FILE: the test shows no more than the plain case"

# A real difference still shows: the ACL changed on the source.
setfacl -m u:nobody:rw src/a
run_fcp --check -a -T src xfs/c1
check_rc 1 "check after an ACL change"
check_grep "^xattrs differ: 'xfs/c1/a'$" "$T/out"
run_fcp --sync -a -T src xfs/c1
check_rc 0 "sync after an ACL change"
check_eq "$(acls xfs/c1)" "$(acls src)" "the changed ACL copied"
echo "PASS"
