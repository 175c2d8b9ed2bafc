#!/bin/bash
# xattrs of inodes fastcp does not open (symlinks, and the --sync
# comparison of every file) are named in their directory: by the *xattrat
# calls on kernels from 6.13, else through /proc/self/fd/DIRFD/NAME. Both
# paths copy and bring up to date the same xattrs, ACLs and a trusted xattr
# on a symlink (never the target's); the old-kernel path is forced with a
# seccomp filter that fails the *xattrat calls with ENOSYS (tests/lib/deny).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_deny
need_root "a trusted xattr on a symlink needs root"
need_cmd setfattr getfattr strace

t_mktree src nodeep
getfattr -h -n trusted.onlink src/xattr/symlink >/dev/null 2>&1 ||
	skip "this filesystem keeps no trusted xattr on a symlink"
# The kernel has the calls from 6.13 on.
kv=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
[ "$kv" -ge 6013 ] || note "this kernel ($(uname -r)) has no *xattrat calls: both runs take /proc"
trace="strace -f -qq -o $T/trace -e trace=llistxattr,lgetxattr,lsetxattr,lremovexattr"

# xattrat: none of the l*xattr calls through /proc; old: all of them are,
# and the ENOSYS is learnt once.
for kernel in now old; do
	wrap=$trace
	[ $kernel = old ] && wrap="$trace $DENY xattrat --"
	FCP_WRAP=$wrap run_fcp -T src dst_$kernel
	check_rc 0 "copy ($kernel kernel)"
	check_tree src dst_$kernel
	check_eq "$(getfattr -h --only-values -n trusted.onlink dst_$kernel/xattr/symlink)" \
		"$(getfattr -h --only-values -n trusted.onlink src/xattr/symlink)" \
		"the symlink's own xattr ($kernel kernel)"
	getfattr -n trusted.onlink dst_$kernel/xattr/file >/dev/null 2>&1 &&
		fail "the symlink's xattr went to its target ($kernel kernel)"
	if [ $kernel = old ]; then
		check_grep 'xattr\("/proc/self/fd/[0-9]+/symlink"' "$T/trace"
	elif [ "$kv" -ge 6013 ]; then
		check_nogrep '/proc/self/fd/' "$T/trace"
	fi

	# --sync: changes of xattrs alone, on a file, on the symlink and
	# only on the copy, are found and applied in place.
	setfattr -n user.added -v $kernel src/xattr/file
	setfattr -h -n trusted.onlink -v changed-$kernel src/xattr/symlink
	setfattr -n user.extra -v stale dst_$kernel/files/empty
	ino=$(stat -c %i dst_$kernel/xattr/file)
	FCP_WRAP=$wrap run_fcp -v --sync -T src dst_$kernel
	check_rc 0 "--sync ($kernel kernel)"
	check_tree src dst_$kernel
	check_eq "$(stat -c %i dst_$kernel/xattr/file)" "$ino" "xattr change not applied in place"
	check_grep "^fastcp: copied 0 files" "$T/err"
	getfattr -n user.extra dst_$kernel/files/empty >/dev/null 2>&1 &&
		fail "an xattr only the copy had stayed ($kernel kernel)"
	[ $kernel = old ] && check_grep 'listxattr\("/proc/self/fd/[0-9]+/' "$T/trace"
	[ $kernel = now ] && [ "$kv" -ge 6013 ] && check_nogrep '/proc/self/fd/' "$T/trace"
done
echo PASS
