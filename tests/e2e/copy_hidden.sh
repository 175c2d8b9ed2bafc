#!/bin/bash
# A root copy that did not exist is made under a temporary name (.fcp-*)
# and renamed to its name only when everything in it is done, never over a
# name made meanwhile; inside it every file is created under its final
# name at once (no unnamed file, no link, no rename), and so is every
# symlink, special file and second name of a hard link. A copy into a
# directory that exists keeps the other ways (unnamed files in new
# directories, temporary names beside old files). Checked on the
# synchronous path with strace, the result on both paths. A copy with a
# failed item inside gets its name without it; with --atomic it keeps its
# temporary name.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd strace setfattr
need_deny
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH"

mkdir -p s/a/b s/c
for i in $(seq 1 60); do head -c $((i * 97)) /dev/urandom >"s/a/f$i"; done
for i in $(seq 1 20); do echo "$i" >"s/a/b/g$i"; done
head -c 700000 /dev/urandom >s/c/medium
ln s/a/f1 s/c/hard
ln -s ../a/f2 s/c/link
mkfifo s/c/fifo
chmod 0750 s/a
touch -d '2001-02-03 04:05:06' s s/a

for opt in -j1 -j4 '--no-io-uring -j4'; do
	rm -rf d
	# shellcheck disable=SC2086 # options are words
	check "$FASTCP" $opt s d
	check_tree s d
	check_no_temp .
done

# The order of the calls (synchronous path: strace sees them all).
rm -rf d
strace -f -qq -o trace -e trace=mkdirat,openat,linkat,renameat,renameat2,symlinkat,mknodat \
	"$FASTCP" --no-io-uring -j 1 s d || fail "fastcp under strace"
check_tree s d
check_grep 'mkdirat\([0-9]+, "\.fcp-[^"]*", 0700\) += 0' trace
check_nogrep 'mkdirat\([0-9]+, "d"' trace "the root copy made under its final name"
check_grep 'openat\([0-9]+, "f60", O_WRONLY\|O_CREAT\|O_EXCL' trace
check_grep 'openat\([0-9]+, "g20", O_WRONLY\|O_CREAT\|O_EXCL' trace
check_nogrep 'O_TMPFILE' trace "an unnamed file inside a hidden copy"
check_nogrep '"f60"\) += 0|, "f60", [A-Z_]+\) += 0' trace "a link or rename to a file's name"
check_eq "$(grep -cE 'renameat2\(.*"\.fcp-[^"]*", [0-9]*, "d", RENAME_NOREPLACE\) += 0' trace)" 1 \
	"renames of the root copy to its name"
check_eq "$(grep -c 'rename[a-z0-9]*(' trace)" 1 "renames in all"
check_grep 'symlinkat\("\.\./a/f2", [0-9]+, "link"\) += 0' trace
check_grep 'mknodat\([0-9]+, "fifo", S_IFIFO\|0600\) += 0' trace
check_grep 'linkat\([0-9]+, "(f1|hard)", [0-9]+, "(hard|f1)", 0\) += 0' trace
last_create=$(grep -n 'O_CREAT' trace | tail -1 | cut -d: -f1)
rename_at=$(grep -n 'RENAME_NOREPLACE' trace | cut -d: -f1)
[ "$rename_at" -gt "$last_create" ] || fail "the root copy got its name before its last file"

# Into a directory that is already there: no hidden copy; the new
# directories' files are unnamed until linked.
rm -rf e && mkdir e
strace -f -qq -o trace_into -e trace=mkdirat,openat \
	"$FASTCP" --no-io-uring -T s e || fail "fastcp -T into an existing directory"
check_tree s e
check_nogrep 'mkdirat\([0-9]+, "\.fcp-' trace_into "a hidden copy where the root existed"
check_grep 'O_TMPFILE' trace_into

# A name made by someone else while the copy was made (here: the rename
# refused as if it were): the job fails, says where the copy is, and
# neither is lost.
rm -rf d
for path in '' --no-io-uring; do
	rm -rf n && mkdir n
	# shellcheck disable=SC2086
	"$DENY" noreplace -- "$FASTCP" $path s n/d >out 2>&1
	check_eq "$?" 1 "exit status when the name was taken (${path:-io_uring})"
	check_grep "cannot give the finished copy its name 'n/d': File exists" out
	check_grep "the copy is left as '$T/n/\.fcp-[^']*'" out
	[ ! -e n/d ] || fail "a copy under the name that was refused"
	left=$(find n -mindepth 1 -maxdepth 1 -name '.fcp-*')
	[ -n "$left" ] || fail "the finished copy was not left anywhere"
	# A later run names it as what it is: finished, not interrupted.
	run_fcp s n/e
	check_rc 0
	check_grep "^fastcp: '$T/$left' is a finished copy of '$T/s' that another run gave its name to first" \
		"$T/err"
	check_nogrep "interrupted" "$T/err" "a finished copy called interrupted"
	# Its marker says so; the rest is exactly the source.
	setfattr -x user.fastcp.done "$left" || fail "no user.fastcp.done on $left"
	check_tree s "$left"
done

# Killed in the middle: nothing under the final name, only the hidden copy.
check "$FASTCP_BENCH" gen small k --scale 0.4 --seed 3 >/dev/null
head -c 300M /dev/zero | tr '\0' 'x' >k/huge
rm -rf kd
# At 20 MiB/s (--bwlimit) the copy lasts 15 s at least on any machine; it
# is killed once its .fcp-* directory holds 50 files, a moment the test
# sees, not one it guesses.
"$FASTCP" -j 2 --bwlimit 20M k kd &
pid=$!
for ((i = 0; i < 3000; i++)); do
	left=$(find . -maxdepth 1 -name '.fcp-*' -print -quit)
	[ -n "$left" ] && [ "$(find "$left" -type f | head -50 | wc -l)" -ge 50 ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.02
done
[ -n "$left" ] && [ "$(find "$left" -type f | head -50 | wc -l)" -ge 50 ] ||
	{ kill -KILL "$pid"; fail "the copy did not get under way (50 files in its .fcp-* directory)"; }
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
check_eq "$?" 137 "exit status of the killed copy"
[ ! -e kd ] || fail "a killed copy is visible under its final name"
[ -n "$(find . -maxdepth 1 -name '.fcp-*')" ] || fail "no hidden copy after the kill"

# A failed item inside (a read error, injected by faultfs): the rest of
# the copy gets its name, without the failed file, and says so; with
# --atomic it keeps its temporary name, and the message says where.
rm -rf .fcp-*
mkdir -p fb/t/sub && echo ok >fb/t/ok && head -c 100000 /dev/urandom >fb/t/sub/bad
faultfs_mount fb "$T/fsrc" --match=bad --eio-at=4096
run_fcp "$T/fsrc/t" "$T/fd"
check_rc 1 "a copy with a read error inside"
check_file "$T/fd/ok"
check_absent "$T/fd/sub/bad" "the file that failed"
check_grep "^fastcp: the copy of '$T/fsrc/t' has its name '$T/fd' without the 1 item that failed" \
	"$T/err"
check_eq "$(find "$T" -mindepth 1 -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies"
run_fcp --atomic "$T/fsrc/t" "$T/fa"
check_rc 1 "--atomic with a read error inside"
check_absent "$T/fa" "an --atomic copy with a failed item under its final name"
left=$(find "$T" -mindepth 1 -maxdepth 1 -name '.fcp-*')
[ -d "$left" ] || fail "no hidden copy after a failed item: $left"
check_grep "^fastcp: the unfinished copy of '$T/fsrc/t' is left as '$left': 1 item failed \(--atomic\)" \
	"$T/err"
check_grep "^fastcp: 1 unfinished copy left under a temporary name" "$T/err"
check_file "$left/ok"
check_absent "$left/sub/bad" "the file that failed"
# Killed between the hidden copy's mkdir and its marker: an empty, unmarked
# hidden directory (its name carries fastcp's tag for ek/d: t_tempname).
# The same command removes it (nothing is in it)
# and leaves no .fcp-* beside its copy; one with something in it stays,
# named; a user's empty directory of that shape without the tag stays.
mkdir -p ek/src ek/d && echo e >ek/src/e && empty=$(t_tempname ek/d) && mkdir "ek/d/$empty"
sleep 0.1 # made before the run began (the filesystem's clock is coarse)
run_fcp -T ek/src ek/d/copy
check_rc 0 "the same command beside an empty unmarked hidden copy"
check_tree ek/src ek/d/copy
check_absent "ek/d/$empty" "the empty unmarked hidden copy"
mkdir ek/d/.fcp-0123456789abcdef-1-0
sleep 0.1
run_fcp -T ek/src ek/d/copy1
check_rc 0 "a copy beside a user's empty directory of the temporary shape"
check_dir ek/d/.fcp-0123456789abcdef-1-0 "a user's empty directory of the temporary shape"
rmdir ek/d/.fcp-0123456789abcdef-1-0
mkdir -p ek/d/.fcp-0123456789abcdef-2-0 && echo keep >ek/d/.fcp-0123456789abcdef-2-0/k
run_fcp -T ek/src ek/d/copy2
check_eq "$(cat ek/d/.fcp-0123456789abcdef-2-0/k)" keep "a non-empty unmarked hidden copy's file"
check_grep "ek/d/.fcp-0123456789abcdef-2-0" "$T/err"
echo "a new root copy appears under its name once done, stopped copies stay hidden"
