#!/bin/bash
# How fastcp writes, seen through strace (the synchronous path, since io_uring
# requests are invisible to strace): every new file is created under a
# temporary name .fcp-* (O_EXCL, O_NOFOLLOW), private (0600) unless it can be
# given its final mode at once (ours, no setuid/setgid/sticky bits, in a
# directory fastcp made, still 0700), and renamed to its final name;
# no final name is ever opened for writing; directories are created with a
# private mode; every destination entry is reached through a directory file
# descriptor (no path below DEST is ever passed to the kernel); and with
# --fsync each file is synced before its rename, and its directory after.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd strace

mkdir -p src/d/e
printf 'a\n' >src/a
printf 'b\n' >src/d/b && chmod 0755 src/d/b
printf 'c\n' >src/d/e/c && chmod 0600 src/d/e/c
head -c 300000 /dev/urandom >src/d/big
chmod 0750 src/d
printf 'n\n' >src/d/n && chown nobody src/d/n  # chown follows: private first
printf 's\n' >src/d/s && chmod 04755 src/d/s   # setuid: private first

trace() { # OUT ARGS...
	local out=$1
	shift
	timeout 60 strace -f -qq -y -o "$out" \
		-e trace=open,openat,openat2,creat,mkdir,mkdirat,rename,renameat,renameat2,fsync,fdatasync \
		"$FASTCP" --no-io-uring "$@" || fail "fastcp under strace failed: $*"
}

trace "$T/trace" "$T/src" "$T/dst"
check_tree "$T/src" "$T/dst"
grep -F "$T/dst" "$T/trace" | grep -vE '^[0-9]+ +<\.\.\.' >"$T/dst_ops"
sed 's/^/  | /' "$T/dst_ops" | head -60

# Files: created exclusively under a temporary name only, with the mode
# expected for each (NAME:MODE), and renamed from it.
grep 'O_CREAT' "$T/dst_ops" >"$T/creates" || fail "no file creation seen"
while IFS= read -r line; do
	case $line in
	*'"'.fcp-*'O_EXCL'*'O_NOFOLLOW'*', 0'[0-7][0-7][0-7]*) ;;
	*) fail "file not created as an exclusive .fcp-* temporary: $line" ;;
	esac
done <"$T/creates"
check_eq "$(wc -l <"$T/creates")" 6 "number of files created"
created_mode() { # TRACE NAME: the mode NAME's temporary was created with
	local tmp
	tmp=$(grep -E "rename(at2?)?\(.*\"\.fcp-[^\"]*\", .*\"$2\"" "$1" | grep -o '"\.fcp-[^"]*"' | head -1)
	[ -n "$tmp" ] || fail "'$2' was not renamed into place from a .fcp-* temporary"
	grep -F "$tmp" "$1" | grep 'O_CREAT' | grep -o ', 0[0-7]*' | head -1 | tr -d ', '
}
for nm in a:0644 b:0755 c:0600 big:0644 n:0600 s:0600; do
	check_eq "$(created_mode "$T/dst_ops" "${nm%%:*}")" "${nm#*:}" "mode ${nm%%:*} was created with"
done
# Into a directory that was already there: private until renamed.
mkdir "$T/old" && chmod 0755 "$T/old"
trace "$T/trace_old" "$T/src/a" "$T/old/"
check_eq "$(created_mode "$T/trace_old" a)" 0600 "mode of a file created in an existing directory"

# Directories: created private (0700), their mode set only at the end.
grep -E 'mkdir(at)?\(' "$T/dst_ops" >"$T/mkdirs" || fail "no mkdir seen"
check_nogrep ', 0[0-7]*[1-7][0-7]\)|, 0[0-7]*[0-7][1-7]\)' "$T/mkdirs" "a directory was created readable by others"

# Through directory fds: no path below DEST handed to the kernel. (With -y
# strace shows what an fd refers to as <path>; those are not arguments.)
sed 's/<[^>]*>//g' "$T/trace" | grep -F "\"$T/dst/" && fail "a path below DEST was passed to the kernel"

# --fsync: each temporary synced before its rename, each directory after.
rm -rf "$T/dst"
trace "$T/trace_sync" --fsync --threads 1 "$T/src" "$T/dst"
check_tree "$T/src" "$T/dst"
for name in a b c big; do
	tmp=$(grep -E "rename(at2?)?\(.*\"$name\"" "$T/trace_sync" | grep -o '"\.fcp-[^"]*"' | head -1 | tr -d '"')
	[ -n "$tmp" ] || fail "--fsync: no rename for $name"
	rn=$(grep -nE "rename(at2?)?\(.*\"$tmp\"" "$T/trace_sync" | head -1 | cut -d: -f1)
	fs=$(grep -nE "f(data)?sync\([0-9]+<[^>]*/$tmp>" "$T/trace_sync" | head -1 | cut -d: -f1)
	[ -n "$fs" ] && [ "$fs" -lt "$rn" ] || fail "--fsync: $name not synced before its rename"
done
grep -Eq "f(data)?sync\([0-9]+<$T/dst/d/e>\)" "$T/trace_sync" || fail "--fsync: directory d/e not synced"
echo "write discipline ok"
