#!/bin/bash
# New files in directories fastcp made are unnamed (O_TMPFILE) until linked
# (outside a new root copy, whose files get their final names at once:
# copy_hidden.sh; so every copy here goes into a directory that exists);
# where the kernel or the filesystem refuses a step, fastcp falls back, on
# both the io_uring and the synchronous path, and the copy stays exact:
#   nothing refused         -> linkat(fd, "", ..., AT_EMPTY_PATH)
#   AT_EMPTY_PATH refused   -> linkat("/proc/self/fd/N", ..., AT_SYMLINK_FOLLOW)
#   both refused            -> .fcp-* temporary names + rename
#   O_TMPFILE refused       -> .fcp-* temporary names + rename
# (refusals made by a seccomp filter: tests/lib/deny.c). No .fcp-* name is
# ever left behind, and one that cannot be removed fails the job.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd strace
need_deny
"$DENY" empty-path -- true 2>"$T/deny.err" ||
	skip "this system refuses seccomp filters: $(cat "$T/deny.err")"

mkdir -p s/a/b s/c
for i in $(seq 1 120); do head -c $((i * 53)) /dev/urandom >"s/a/f$i"; done
for i in $(seq 1 20); do echo "$i" >"s/a/b/g$i"; done
head -c 700000 /dev/urandom >s/c/medium
ln s/a/f1 s/c/hard
chmod 0640 s/a/f2
chmod 04755 s/a/f3

# expect RULES: the linkat (or rename) that puts a file in place.
expect() {
	case $1 in
	'') echo 'linkat\([0-9]+<[^>]*>\(deleted\), "", [0-9]+<[^>]*>, "f5", AT_EMPTY_PATH\) = 0' ;;
	empty-path) echo 'linkat\(AT_FDCWD(<[^>]*>)?, "/proc/self/fd/[0-9]+", [0-9]+<[^>]*>, "f5", AT_SYMLINK_FOLLOW\) = 0' ;;
	*) echo 'rename(at2?)?\([0-9]+<[^>]*>, "\.fcp-[^"]*", [0-9]+<[^>]*>, "f5"' ;;
	esac
}

n=0
for rules in '' empty-path 'empty-path proc-link' tmpfile; do
	for path in io_uring sync; do
		n=$((n + 1))
		opt=-j4
		[ $path = sync ] && opt=--no-io-uring
		mkdir "d$n"
		# shellcheck disable=SC2086 # rules are words
		"$DENY" $rules -- "$FASTCP" -v $opt -T s "d$n" >"$T/out" 2>&1 ||
			{ cat "$T/out"; fail "fastcp ($path, refused: ${rules:-nothing})"; }
		check_tree s "d$n"
		check_eq "$(find "d$n" -name '.fcp-*' | wc -l)" 0 ".fcp-* leftovers ($path, refused: ${rules:-nothing})"
		if [ $path = io_uring ] && "$FASTCP" --version --verbose | grep -q "small files: io_uring"; then
			check_grep "threads, io_uring" "$T/out"
		fi
	done
	# Which way the files got their names (system calls: the synchronous path).
	rm -rf "$T/traced" && mkdir "$T/traced"
	# shellcheck disable=SC2086
	"$DENY" $rules -- strace -f -qq -y -o "$T/trace" -e trace=openat,linkat,renameat,renameat2 \
		"$FASTCP" --no-io-uring -j 1 -T s "$T/traced" || fail "fastcp under strace (refused: ${rules:-nothing})"
	check_tree s "$T/traced"
	check_grep "$(expect "$rules")" "$T/trace"
done

# Into a tree that is already there (every name exists): temporary names
# and rename over the old files, never an unnamed file.
echo old >d1/a/f5
strace -f -qq -o "$T/trace_old" -e trace=openat "$FASTCP" --no-io-uring s/a d1 ||
	fail "fastcp over an existing tree"
check_tree s/a d1/a
check_nogrep 'O_TMPFILE' "$T/trace_old" "an unnamed file in a directory fastcp did not make"
# A temporary name that cannot be removed again (here the throwaway link
# of the probe for how to link unnamed files, in the new directory b) is
# reported and fails the job: a leftover in the destination never goes
# with exit status 0.
mkdir "$T/noremove"
"$DENY" unlink -- "$FASTCP" -T s/a "$T/noremove" >"$T/out" 2>&1
check_eq "$?" 1 "exit status with a temporary file left behind"
check_grep "cannot remove unfinished file .*\.fcp-" "$T/out"
check_eq "$(find "$T/noremove" -name '.fcp-*' | wc -l)" 1 "the one leftover reported"
find "$T/noremove" -name '.fcp-*' -delete # which touches the directory's times
check_tree s/a "$T/noremove" --no-times
echo "unnamed files and their fallbacks exact"
