#!/bin/bash
# The elastic pool (sched.c): without -j, a copy whose workers wait on
# round trips (a source served with 5 ms per round trip, through
# fastcp-bench compare --source-latency) grows past the default number of
# workers, and the copy is still exact; with -j N it stays at N; a local
# copy never grows.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
need_fastcp
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH (run make all)"
need_root "mounting FUSE"
[ -c /dev/fuse ] || skip "no /dev/fuse"
"$FASTCP_BENCH" compare --help | grep -q -- --source-latency || fail "compare has no --source-latency"

check "$FASTCP_BENCH" gen small src --scale 0.01 >/dev/null
default=$("$FASTCP" --version --verbose | sed -n 's/^threads: \([0-9]*\) by default.*/\1/p')
[ -n "$default" ] || fail "--version --verbose does not say the default thread count"

"$FASTCP_BENCH" compare --rounds 1 --cold --source-latency 5 src -- \
	"$FASTCP -v -T {src} {dst} 2>>$T/elastic.log" "$FASTCP -j 3 -v -T {src} {dst} 2>>$T/fixed.log" \
	>report 2>progress || { cat report progress; fail "compare (the copies are verified)"; }
cat report
threads() { sed -n 's/.*(\([0-9]*\) threads.*/\1/p' "$1" | head -n 1; }
used=$(threads "$T/elastic.log")
note "default $default workers, grown to $used"
[ -n "$used" ] && [ "$used" -gt "$default" ] || fail "the pool did not grow: $used workers (default $default)"
check_eq "$(threads "$T/fixed.log")" 3 "workers with -j 3"
# A local source and DEST: the pool stays as it started, even when its
# workers are slowed (strace), since a local device gains nothing from
# more waiters.
check "$FASTCP_BENCH" gen small big --scale 0.05 >/dev/null
FCP_WRAP="strace -f -qq -o /dev/null" run_fcp --stats -T big local
check_rc 0 "local copy under strace"
check_eq "$(threads "$T/err")" "$default" "workers of a local copy"
echo PASS
