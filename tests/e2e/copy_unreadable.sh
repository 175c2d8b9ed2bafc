#!/bin/bash
# Sources that cannot be opened. As root every file can be read, so fastcp is
# run as user nobody (setpriv) on a tree with a root-owned 0000 file and a
# 0000 directory: each is reported as 'fastcp: cannot open ...: Permission
# denied', everything else is copied, exit 1, nothing half-written. A new
# root copy with such a failure inside gets its name without the failed
# items, and the message says so. As a non-root user, owners
# cannot be kept, so setuid/setgid are dropped (as cp).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "needs root to set up a tree that user nobody cannot fully read"
need_cmd setpriv

mkdir -p src/sub src/locked dst
printf 'ok\n' >src/ok
printf 'ok2\n' >src/sub/ok2
printf 'secret\n' >src/secret && chmod 0000 src/secret
printf 'hidden\n' >src/locked/hidden && chmod 0000 src/locked
printf 'suid\n' >src/suid && chmod 4755 src/suid
printf 'sgid\n' >src/sgid && chmod 2755 src/sgid
chown 65534:65534 dst
chmod 755 "$T"

FCP_WRAP="setpriv --reuid=65534 --regid=65534 --clear-groups" run_fcp src dst/copy
check_rc 1 "unreadable items"
check_grep "^fastcp: cannot open '[^']*src/secret': Permission denied$" "$T/err"
check_grep "^fastcp: [^']*'[^']*src/locked': Permission denied$" "$T/err"
check_grep "^fastcp: the copy of 'src' has its name 'dst/copy' without the 2 items that failed" \
	"$T/err"
check_eq "$(find dst -mindepth 1 -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies"
left=dst/copy
check_file "$left/ok"
check_file "$left/sub/ok2"
check_absent "$left/secret" "an unreadable file left something behind"
check_absent "$left/locked" "an unreadable directory left something behind"
check_no_temp_inside "$left"
check_eq "$(stat -c %a "$left/suid" "$left/sgid" | tr '\n' ' ')" "755 755 " \
	"setuid/setgid kept on files now owned by another user"
check_eq "$(stat -c %U "$left/ok")" nobody "owner of the copy"
echo "unreadable sources reported"
