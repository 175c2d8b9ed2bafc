#!/bin/bash
# Many workers under a low descriptor limit: -j 32 with a hard limit of 128
# open files, on a few thousand small files in a few hundred directories.
# Each io_uring batch would hold up to 32 sources and 32 copies per worker:
# the job must budget its descriptors (fewer workers, smaller batches) and
# treat a momentary EMFILE as back-pressure, never as a failed file: exit 0,
# an exact copy, no "Too many open files".
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd prlimit

mkdir src
(
	cd src || exit 1
	for d in $(seq 1 40); do
		mkdir -p "d$d/e"
		for f in $(seq 1 50); do
			printf 'file %d of %d\n' "$f" "$d" >"d$d/f$f"
			[ $((f % 5)) = 0 ] && printf 'deeper %d\n' "$f" >"d$d/e/g$f"
		done
	done
) || fail "building the tree"

for variant in "" "--no-io-uring"; do
	rm -rf dst
	FCP_WRAP="prlimit --nofile=128:128 --" run_fcp -j 32 $variant src dst
	check_rc 0 "fastcp -j 32 $variant under a limit of 128 descriptors"
	check_nogrep "open files" "$T/err"
	check_tree src dst
	check_no_temp dst
done
# Descriptors inherited from the caller count against the limit too.
rm -rf dst
(
	for fd in $(seq 20 79); do eval "exec $fd</dev/null"; done
	FCP_WRAP="prlimit --nofile=128:128 --" run_fcp -j 32 src dst
	check_rc 0 "fastcp -j 32 with 60 descriptors inherited, under a limit of 128"
	check_nogrep "open files" "$T/err"
) || exit 1
check_tree src dst
echo "$(find src -type f | wc -l) files with -j 32 under 128 descriptors, exact"
