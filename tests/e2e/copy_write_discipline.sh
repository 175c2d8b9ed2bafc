#!/bin/bash
# How fastcp writes, seen through strace (the synchronous path, since io_uring
# requests are invisible to strace): in a directory fastcp made (still 0700)
# every new file is created unnamed (O_TMPFILE) and linked under its final
# name when complete; in a directory that was already there, under a
# temporary name .fcp-* (O_EXCL, O_NOFOLLOW) renamed to its final name.
# A file is private (0600) unless it can be given its final mode at once
# (ours, no setuid/setgid/sticky bits, in a directory fastcp made); no final
# name is ever opened for writing; directories are created with a private
# mode; every destination entry is reached through a directory file
# descriptor (no path below DEST is ever passed to the kernel); and with
# --fsync each file is synced before it gets its name, its directory after.
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
		-e trace=open,openat,openat2,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,unlinkat,fsync,fdatasync \
		"$FASTCP" --no-io-uring --threads 1 "$@" || fail "fastcp under strace failed: $*"
}

trace "$T/trace" "$T/src" "$T/dst"
check_tree "$T/src" "$T/dst"
grep -F "$T/dst" "$T/trace" | grep -vE '^[0-9]+ +<\.\.\.' >"$T/dst_ops"
sed 's/^/  | /' "$T/dst_ops" | head -60

# unnamed NAME TRACE: "MODE SYNCED" of the unnamed file linked as NAME (its
# O_TMPFILE mode; 1 if an fsync of it came between its creation and its link).
unnamed() {
	awk -v nm="\"$1\", AT_" '
		/O_TMPFILE/ && / = [0-9]+/ {
			fd = $0; sub(/.* = /, "", fd); sub(/[^0-9].*/, "", fd)
			m = $0; sub(/.*O_TMPFILE, /, "", m); sub(/[^0-7].*/, "", m)
			mode[fd] = m; synced[fd] = 0
		}
		/f(data)?sync\(/ { fd = $0; sub(/.*sync\(/, "", fd); sub(/[^0-9].*/, "", fd); synced[fd] = 1 }
		/linkat\(/ && index($0, nm) && / = 0$/ {
			fd = $0; sub(/.*linkat\(/, "", fd); sub(/[^0-9].*/, "", fd)
			if (fd in mode) { print mode[fd], synced[fd]; exit }
		}' "$2"
}
# Files of the new tree: all unnamed, linked once under their final name,
# with the mode expected for each (NAME:MODE); no O_CREAT there but the
# exclusive .fcp-* temporaries.
grep 'O_CREAT' "$T/dst_ops" | grep -v '"\.fcp-[^"]*", O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW' >"$T/creates"
check_nogrep 'O_CREAT' "$T/creates" "a file created other than as an exclusive .fcp-* temporary"
grep -E 'linkat\(.*", AT_[A-Z_]+\) = 0' "$T/dst_ops" | grep -v '"\.fcp-' >"$T/links" || fail "no file linked into place"
check_eq "$(wc -l <"$T/links")" 6 "number of files linked into place"
for nm in a:0644 b:0755 c:0600 big:0644 n:0600 s:0600; do
	check_eq "$(unnamed "${nm%%:*}" "$T/dst_ops" | cut -d' ' -f1)" "${nm#*:}" "mode ${nm%%:*} was created with"
done
# No final name opened for writing: only "." (unnamed) and .fcp-* names.
grep -E 'open(at)?\(.*O_(WRONLY|RDWR)' "$T/dst_ops" | grep -vE '\(\S+, "(\.|\.fcp-[^"]*)", ' &&
	fail "a final name was opened for writing"

# Into a directory that was already there: an exclusive temporary name,
# private until renamed.
created_mode() { # TRACE NAME: the mode NAME's temporary was created with
	local tmp
	tmp=$(grep -E "rename(at2?)?\(.*\"\.fcp-[^\"]*\", .*\"$2\"" "$1" | grep -o '"\.fcp-[^"]*"' | head -1)
	[ -n "$tmp" ] || fail "'$2' was not renamed into place from a .fcp-* temporary"
	grep -F "$tmp" "$1" | grep 'O_CREAT|O_EXCL|O_NOFOLLOW' | grep -o ', 0[0-7]*' | head -1 | tr -d ', '
}
mkdir "$T/old" && chmod 0755 "$T/old"
trace "$T/trace_old" "$T/src/a" "$T/old/"
check_eq "$(created_mode "$T/trace_old" a)" 0600 "mode of a file created in an existing directory"
check_nogrep 'O_TMPFILE' "$T/trace_old" "an unnamed file in a directory fastcp did not make"

# Directories: created private (0700), their mode set only at the end.
grep -E 'mkdir(at)?\(' "$T/dst_ops" >"$T/mkdirs" || fail "no mkdir seen"
check_nogrep ', 0[0-7]*[1-7][0-7]\)|, 0[0-7]*[0-7][1-7]\)' "$T/mkdirs" "a directory was created readable by others"

# Through directory fds: no path below DEST handed to the kernel. (With -y
# strace shows what an fd refers to as <path>; those are not arguments.)
sed 's/<[^>]*>//g' "$T/trace" | grep -F "\"$T/dst/" && fail "a path below DEST was passed to the kernel"

# --fsync: each file synced before it is linked, each directory after.
rm -rf "$T/dst"
trace "$T/trace_sync" --fsync "$T/src" "$T/dst"
check_tree "$T/src" "$T/dst"
for name in a b c big; do
	check_eq "$(unnamed "$name" "$T/trace_sync" | cut -d' ' -f2)" 1 "--fsync: $name synced before its link"
done
grep -Eq "f(data)?sync\([0-9]+<$T/dst/d/e>\)" "$T/trace_sync" || fail "--fsync: directory d/e not synced"
echo "write discipline ok"
