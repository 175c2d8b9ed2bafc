#!/bin/bash
# --in-place onto a file the user may write but does not own: the rewrite
# needs no ownership, only the marks of an unfinished rewrite do (the epoch
# mtime needs the owner; the xattr may be refused). The file was emptied
# first and then the mark failed: the item failed with the file at 0
# bytes, its new data never written. Now it is marked before it is
# emptied, and it gets the source's bytes (its mtime cannot be set by
# another user: said, exit 1, as cp -p says it).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "files of another owner need root to make"
need_cmd setpriv

mkdir -p src dst
head -c 33 /dev/urandom >src/f
echo "the old content of the file" >dst/f
chmod 0666 dst/f
chmod 0777 dst
chmod 0755 src "$T"
chmod 0644 src/f
FCP_WRAP="setpriv --reuid=65534 --regid=65534 --clear-groups" run_fcp --in-place -T src dst
check_eq "$(stat -c %u dst/f)" 0 "the file rewritten in place, not replaced"
cmp -s src/f dst/f || fail "dst/f has $(stat -c %s dst/f) bytes, not the source's 33"
case $RC in
0) ;;
1) check_nogrep "cannot create" "$T/err" ;;
*) fail "exit $RC" ;;
esac
echo "a file of another owner is rewritten in place, whole"
