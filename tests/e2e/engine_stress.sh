#!/bin/bash
# The parallel engine under pressure: the links and small workloads (small
# scale) copied 20 times each with 16 threads, every copy compared with the
# source; then the same trees with 1 thread and without io_uring, which
# must give identical results. Races show up here as a wrong copy, a
# leftover temporary file, a hang (the runner's timeout) or a crash.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH"

check "$FASTCP_BENCH" gen links links --scale 0.05 --seed 7 >/dev/null
check "$FASTCP_BENCH" gen small small --scale 0.02 --seed 7 >/dev/null

for kind in links small; do
	for i in $(seq 1 20); do
		rm -rf "d.$kind"
		run_fcp -j 16 "$kind" "d.$kind"
		check_rc 0 "fastcp -j 16 $kind (round $i)"
		check_tree "$kind" "d.$kind"
		check_no_temp "d.$kind"
	done
	for variant in "-j 1" "-j 16 --no-io-uring"; do
		rm -rf "e.$kind"
		# shellcheck disable=SC2086
		run_fcp $variant "$kind" "e.$kind"
		check_rc 0 "fastcp $variant $kind"
		check_tree "d.$kind" "e.$kind"
	done
done
echo "40 copies with 16 threads, all exact"
