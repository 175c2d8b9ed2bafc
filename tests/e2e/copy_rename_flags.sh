#!/bin/bash
# A destination whose rename takes no flags (NFS, 9p, FUSE daemons without
# rename2 answer renameat2(RENAME_NOREPLACE) with EINVAL; here a seccomp
# filter, tests/lib/deny.c, makes every renameat2 with a flag fail so):
# a new root copy still gets its name, a copy into an existing tree still
# replaces files, hard links and symlinks arrive, exit 0, trees equal, no
# .fcp-* left; and the fallback still never renames over a name that
# appeared while the copy was made. With faultfs --no-rename-flags as the
# destination too, where that is built.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_deny

mkdir -p s/a/b s/c
for i in $(seq 1 40); do head -c $((i * 131)) /dev/urandom >"s/a/f$i"; done
for i in $(seq 1 10); do echo "$i" >"s/a/b/g$i"; done
head -c 300000 /dev/urandom >s/c/medium
ln s/a/f1 s/c/hard
ln s/a/f2 s/a/b/hard2
ln -s ../a/f2 s/c/link
ln -s /nowhere s/c/dangling
mkfifo s/c/fifo
touch -d '2001-02-03 04:05:06' s s/a s/c

# copy_to DIR: every case into DIR (emptied first), under "deny renameflags".
copy_to() {
	local dir=$1 path
	mkdir -p "$dir"
	for path in '' --no-io-uring; do
		rm -rf "${dir:?}"/* "$dir"/.fcp-* 2>/dev/null
		# A new root copy: renamed into place without the flag.
		# shellcheck disable=SC2086 # an option or none
		run_deny $path -j 4 s "$dir/d"
		check_rc 0 "new root copy, rename flags refused (${path:-io_uring})"
		check_tree s "$dir/d"
		check_no_temp "$dir"
		# Into an existing tree, replacing every file, link and symlink.
		mkdir "$dir/e"
		# shellcheck disable=SC2086
		run_deny $path -j 4 -T s "$dir/e"
		check_rc 0 "copy into an existing tree (${path:-io_uring})"
		echo changed >"$dir/e/a/f3"
		rm "$dir/e/c/link" && ln -s elsewhere "$dir/e/c/link"
		# shellcheck disable=SC2086
		run_deny $path -j 4 -T s "$dir/e"
		check_rc 0 "copy over an existing tree (${path:-io_uring})"
		check_tree s "$dir/e"
		check_no_temp "$dir"
	done
}
run_deny() { FCP_WRAP="$DENY renameflags --" run_fcp "$@"; }

copy_to "$T/plain"

# Refused once, the flag is not asked for again in this job: two new root
# copies, one renameat2 with RENAME_NOREPLACE. One worker (-j 1), so the
# second root's rename comes after the first refusal: with more, both
# roots may finish at once and both ask before either refusal is known
# (seen once under ASan: 2).
if command -v strace >/dev/null; then
	mkdir -p two && cp -a s s2
	# A trace file per thread (-ff): in one file, a call that overlaps
	# another thread's is split over two lines ("unfinished", "resumed").
	strace -ff -qq -o trace -e trace=renameat,renameat2 "$DENY" renameflags -- \
		"$FASTCP" -j 1 --no-io-uring s s2 two >out 2>&1 || { cat out; fail "two sources, rename flags refused"; }
	check_tree s two/s
	check_tree s2 two/s2
	check_eq "$(cat trace.* | grep -c 'RENAME_NOREPLACE')" 1 "renames asked with the flag"
	check_eq "$(cat trace.* | grep -cE 'renameat2?\(.*"\.fcp-[^"]*", [0-9]+, "s2?"(, 0)?\) += 0')" 2 \
		"root copies renamed without the flag"
fi

# The fallback still refuses a name made meanwhile: the name appears
# (with a file in it) while the copy is being made. The copy (4 s at least
# at 50 MiB/s) is stopped (SIGSTOP) once it began, and goes on (SIGCONT)
# once the name is made: made meanwhile whatever the machine's speed.
mkdir -p big n && head -c 200M /dev/zero >big/huge && cp -a s/a big/
"$DENY" renameflags -- "$FASTCP" -j 1 --no-io-uring --bwlimit 50M big n/d >out 2>&1 &
pid=$!
for ((i = 0; i < 3000; i++)); do
	[ -n "$(find n -maxdepth 1 -name '.fcp-*' -print -quit)" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.02
done
kill -STOP "$pid"
[ -n "$(find n -maxdepth 1 -name '.fcp-*' -print -quit)" ] || { kill -KILL "$pid"; fail "the copy did not begin"; }
check mkdir n/d
echo theirs >n/d/theirs
kill -CONT "$pid"
wait "$pid"
rc=$?
cat out
check_eq "$rc" 1 "exit status when the name was taken"
check_grep "cannot give the finished copy its name 'n/d'" out
check_eq "$(cat n/d/theirs)" theirs "the directory made meanwhile"
left=$(find n -mindepth 1 -maxdepth 1 -name '.fcp-*')
[ -n "$left" ] || fail "the finished copy was not left anywhere"
# Marked as finished (later runs name it so), else the source's copy.
getfattr -n user.fastcp.done "$left" >/dev/null 2>&1 ||
	fail "the finished copy left beside the name carries no user.fastcp.done"
check setfattr -x user.fastcp.done "$left"
check_tree big "$left"

if [ -x "$TOOLS/faultfs" ] && declare -F faultfs_mount >/dev/null; then
	mkdir -p back
	faultfs_mount back "$T/fuse" --no-rename-flags
	# The same cases, with the refusal made by the filesystem itself.
	run_deny() { run_fcp "$@"; }
	copy_to "$T/fuse"
	echo "rename without flags works (deny and faultfs)"
else
	echo "rename without flags works (deny; faultfs not built here)"
fi
