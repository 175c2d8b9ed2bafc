#!/bin/bash
# A destination directory with a default ACL: everything created in it
# inherits ACLs at creation, but the copy must carry exactly the source's
# ACLs, as cp -a does: none where the source has none, its own where it has.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd setfacl getfacl

mkdir -p src/sub/deeper dst
for i in $(seq 1 40); do echo "$i" > "src/sub/f$i"; done
echo x > src/sub/deeper/g
mkfifo src/sub/fifo
echo acl > src/with_acl && setfacl -m u:nobody:r src/with_acl
setfacl -d -m u:nobody:rwx dst
setfacl -m u:nobody:rwx dst

for variant in "-j 1" "-j 4" "-j 4 --no-io-uring"; do
	rm -rf dst/src
	# shellcheck disable=SC2086
	run_fcp $variant src dst/
	check_rc 0 "fastcp $variant"
	check_tree src dst/src
	getfacl -p -R dst/src 2>/dev/null | grep -q 'user:nobody:rwx' &&
		fail "fastcp $variant: an inherited ACL survived in the copy"
	getfacl -p dst/src/with_acl | grep -q 'user:nobody:r--' ||
		fail "fastcp $variant: the source's own ACL is missing"
done
echo "copies under a default ACL carry only their sources' ACLs"
