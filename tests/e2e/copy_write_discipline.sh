#!/bin/bash
# How fastcp writes, seen through strace (the synchronous path, since io_uring
# requests are invisible to strace): a new root copy is made under a
# temporary name .fcp-* and renamed once at the end, and inside it every
# new file is created (O_EXCL, O_NOFOLLOW) under its final name; in another
# directory fastcp made (still 0700) every new file is created unnamed
# (O_TMPFILE) and linked under its final name when complete; in a
# directory that was already there, under a temporary name .fcp-* (O_EXCL,
# O_NOFOLLOW) renamed to its final name. A file is private (0600) unless it
# can be given its final mode at once (ours, no setuid/setgid/sticky bits,
# in a directory fastcp made); no final name is opened for writing outside
# the hidden root copy; directories are created with a private mode; every
# destination entry is reached through a directory file descriptor (no
# path below DEST is ever passed to the kernel); and with --fsync each file
# is synced before it gets its name (or before the root copy gets its), its
# directory after.
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
# (Until its rename the root copy is $T/.fcp-*.)
grep -F -e "$T/dst" -e "$T/.fcp-" "$T/trace" | grep -vE '^[0-9]+ +<\.\.\.' >"$T/dst_ops"
sed 's/^/  | /' "$T/dst_ops" | head -60
check_grep 'mkdirat\([0-9]+<[^>]*>, "\.fcp-[^"]*", 0700\) += 0' "$T/trace"
check_eq "$(grep -cE 'renameat2\(.*"\.fcp-[^"]*", .*"dst", RENAME_NOREPLACE\) += 0' "$T/trace")" 1 \
	"renames of the root copy to its name"
# created NAME TRACE: the mode NAME was created with under its final name.
created() {
	grep -E "openat\([0-9]+<$T/\.fcp-[^>]*>, \"$1\", O_WRONLY\|O_CREAT\|O_EXCL\|O_NOFOLLOW" "$2" |
		grep -o ', 0[0-7]*' | head -1 | tr -d ', '
}
for nm in a:0644 b:0755 c:0600 big:0644 n:0600 s:0600; do
	check_eq "$(created "${nm%%:*}" "$T/dst_ops")" "${nm#*:}" "mode ${nm%%:*} was created with"
done
check_nogrep 'O_TMPFILE|linkat\(' "$T/dst_ops" "an unnamed file or a link inside a new root copy"
check_nogrep 'rename(at2?)?\(.*", [0-9]+<[^>]*>, "(a|b|c|big|n|s)"' "$T/dst_ops" \
	"a file renamed into place inside a new root copy"
# Outside the hidden root copy, no final name is opened for writing.
grep -E 'open(at)?\(.*O_(WRONLY|RDWR)' "$T/trace" | grep -vF "$T/.fcp-" &&
	fail "a final name was opened for writing outside the hidden root copy"

# Into a directory that is already there (-T): the directories fastcp makes
# there are seen at once, so their files are unnamed until linked.
mkdir "$T/into"
trace "$T/trace_into" -T "$T/src" "$T/into"
check_tree "$T/src" "$T/into"
grep -F "$T/into" "$T/trace_into" | grep -vE '^[0-9]+ +<\.\.\.' >"$T/into_ops"

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
# Files of the new directories: all unnamed, linked once under their final
# name, with the mode expected for each (NAME:MODE); no O_CREAT there but
# the exclusive .fcp-* temporaries.
grep 'O_CREAT' "$T/into_ops" | grep -v '"\.fcp-[^"]*", O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW' >"$T/creates"
check_nogrep 'O_CREAT' "$T/creates" "a file created other than as an exclusive .fcp-* temporary"
grep -E 'linkat\(.*", AT_[A-Z_]+\) = 0' "$T/into_ops" | grep -v '"\.fcp-' >"$T/links" || fail "no file linked into place"
check_eq "$(wc -l <"$T/links")" 5 "number of files linked into place"
for nm in b:0755 c:0600 big:0644 n:0600 s:0600; do
	check_eq "$(unnamed "${nm%%:*}" "$T/into_ops" | cut -d' ' -f1)" "${nm#*:}" "mode ${nm%%:*} was created with"
done
# No final name opened for writing: only "." (unnamed) and .fcp-* names.
grep -E 'open(at)?\(.*O_(WRONLY|RDWR)' "$T/into_ops" | grep -vE '\(\S+, "(\.|\.fcp-[^"]*)", ' &&
	fail "a final name was opened for writing"
# The file at the top of the existing directory: a temporary name.
check_grep 'rename(at2?)?\([0-9]+<[^>]*>, "\.fcp-[^"]*", [0-9]+<[^>]*>, "a"' "$T/into_ops"

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
rm -rf "$T/into" && mkdir "$T/into"
trace "$T/trace_sync" --fsync -T "$T/src" "$T/into"
check_tree "$T/src" "$T/into"
for name in b c big; do
	check_eq "$(unnamed "$name" "$T/trace_sync" | cut -d' ' -f2)" 1 "--fsync: $name synced before its link"
done
grep -Eq "f(data)?sync\([0-9]+<$T/into/d/e>\)" "$T/trace_sync" || fail "--fsync: directory d/e not synced"
# In a new root copy: every file and directory synced before the root copy
# gets its name, and the directory holding that name after.
rm -rf "$T/dst"
trace "$T/trace_hsync" --fsync "$T/src" "$T/dst"
check_tree "$T/src" "$T/dst"
rename_at=$(grep -nE 'RENAME_NOREPLACE\) += 0' "$T/trace_hsync" | cut -d: -f1)
[ -n "$rename_at" ] || fail "--fsync: the root copy was not renamed into place"
for name in a d/b d/e/c d/big d/e; do
	at=$(grep -nE "f(data)?sync\([0-9]+<$T/\.fcp-[^/>]*/$name>\) += 0" "$T/trace_hsync" | head -1 | cut -d: -f1)
	[ -n "$at" ] && [ "$at" -lt "$rename_at" ] || fail "--fsync: $name not synced before the root copy's rename"
done
at=$(grep -nE "f(data)?sync\([0-9]+<$T>\) += 0" "$T/trace_hsync" | tail -1 | cut -d: -f1)
[ -n "$at" ] && [ "$at" -gt "$rename_at" ] || fail "--fsync: the root copy's new name not synced"
echo "write discipline ok"
