#!/bin/bash
# Temporary names cannot collide with source names, nor with another
# fastcp's, nor across PID namespaces. fastcp runs as PID 1 of a new PID
# namespace (as in a container) on a source full of names shaped like
# temporary names (.fcp-1-<worker>-<seq>, what a pid-based scheme would
# make there, and .fcp-<hex> names of other shapes), copied into a new
# root, into an existing empty directory (-T) and over an existing copy,
# on both small-file paths: the trees compare equal (treecmp also finds
# any extra name), exit 0, nothing left beside them.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_root "unshare -p needs root"
need_cmd unshare
unshare -p -f --mount-proc true 2>/dev/null || skip "cannot make a PID namespace here"

mkdir -p s/sub
for w in 0 1 2 3; do
	for q in $(seq 0 40); do
		printf 'temp-shaped %x %x\n' "$w" "$q" >"s/.fcp-1-$w-$(printf %x "$q")"
	done
done
for i in $(seq 1 40); do printf 'file %d\n' "$i" >"s/f$i"; done
for i in $(seq 1 10); do printf 'sub %d\n' "$i" >"s/sub/.fcp-1-0-$i"; done
printf 'other shape\n' >s/.fcp-0123456789abcdef-0-0
ln -s f1 s/.fcp-1-4-0
touch -d '2001-02-03 04:05:06' s s/sub

# Run fastcp as PID 1 of a new PID namespace.
fcp_pid1() { unshare -p -f --mount-proc "$FASTCP" "$@"; }

for path in '' --no-io-uring; do
	rm -rf d e && mkdir e
	# shellcheck disable=SC2086 # an option or none
	fcp_pid1 $path -j 4 s d >out 2>&1 || { cat out; fail "new root copy (${path:-io_uring})"; }
	check_tree s d
	# shellcheck disable=SC2086
	fcp_pid1 $path -j 4 -T s e >out 2>&1 || { cat out; fail "copy into an existing directory (${path:-io_uring})"; }
	check_tree s e
	# Over the existing copy: every file is replaced through a temporary name.
	printf 'changed\n' >s/f1
	touch -d '2001-02-03 04:05:06' s
	# shellcheck disable=SC2086
	fcp_pid1 $path -j 4 -T s e >out 2>&1 || { cat out; fail "copy over an existing tree (${path:-io_uring})"; }
	check_tree s e
	check_eq "$(find . -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies left"
	printf 'file 1\n' >s/f1
	touch -d '2001-02-03 04:05:06' s
done
echo "temporary names never met the source's temporary-shaped names"
