#!/bin/bash
# Archive fidelity: the rich sample tree (sizes, holes, odd names, a tree
# deeper than PATH_MAX, hard links, every kind of symlink, FIFO, devices,
# setuid/setgid/sticky, 0000/0500 modes, owners, xattrs, ACLs, ns times) is
# copied exactly with 1 thread, 8 threads, without io_uring, with --fsync and
# with direct reads of its medium files (files/big: 1.5 MiB + 1 byte; with
# --reflink=never, as only the read/write engine reads);
# treecmp finds no difference, the copies are identical to one another, and
# atimes are those the source had before the copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd setfattr setfacl

t_mktree "$T/src"

# atimes of a few entries, taken just before each copy: the copy must carry
# them, not the times of its own reading. They are checked before treecmp
# runs, since reading a symlink (readlink) moves its atime.
atimes() { (cd "$1" && stat -c '%n %x' files/big files/empty sparse/middle names \
	symlinks/relative special/fifo xattr/acl_dir .); }

n=0
for variant in "--threads 1" "-j 8" "--no-io-uring" "--fsync -j 2" "-j 4 --reflink=never --direct-read=always"; do
	n=$((n + 1))
	atimes "$T/src" >"$T/atimes.before"
	# shellcheck disable=SC2086
	run_fcp $variant "$T/src" "$T/dst$n"
	check_rc 0 "fastcp $variant"
	[ -s "$T/err" ] && fail "fastcp $variant printed errors or warnings"
	atimes "$T/dst$n" >"$T/atimes.dst"
	diff "$T/atimes.before" "$T/atimes.dst" || fail "fastcp $variant: atimes not preserved"
	check_tree "$T/src" "$T/dst$n"
	check_no_temp "$T/dst$n"
done

# The results of every variant are the same tree.
for i in 2 3 4 5; do
	check_tree "$T/dst1" "$T/dst$i"
done

# The direct variant really read around the cache (O_DIRECT turned on for
# the medium file), and "never" does not.
if command -v strace >/dev/null; then
	for when in always never; do
		strace -f -qq -o "$T/trace_$when" -e trace=fcntl "$FASTCP" --reflink=never --direct-read=$when \
			"$T/src/files/big" "$T/big_$when" || fail "fastcp --direct-read=$when under strace"
		cmp "$T/src/files/big" "$T/big_$when" || fail "--direct-read=$when: copy differs"
	done
	grep -q 'F_SETFL.*O_DIRECT' "$T/trace_always" || fail "--direct-read=always: no O_DIRECT"
	grep -qE 'O_DIRECT([^O]|$)' "$T/trace_never" && fail "--direct-read=never turned O_DIRECT on"
else
	unchecked="the O_DIRECT trace check needs strace, which is not installed"
fi
"$FASTCP" --version --verbose | grep -q '^files above 256 KiB: ' ||
	fail "--version --verbose does not say how files above 256 KiB are read"

# Copying the tree into an existing directory gives the same result.
mkdir "$T/into"
run_fcp -j 8 "$T/src" "$T/into"
check_rc 0
check_tree "$T/src" "$T/into/src"

# -v prints a summary; the copy counts what it copied.
run_fcp -v "$T/src/files" "$T/dst_v"
check_rc 0
check_grep 'copied [0-9]+ files' "$T/all"
# A part that could not run makes the whole test a SKIP, never a PASS.
[ -z "${unchecked:-}" ] || skip "$unchecked (the rest passed)"
echo "archive copies identical"
