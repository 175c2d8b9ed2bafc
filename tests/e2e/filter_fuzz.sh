#!/bin/bash
# The fuzz target of the pattern matchers (tests/fuzz/filter.c, libFuzzer
# with ASan and UBSan), for a bounded time: FUZZ_SECONDS, 10 unless told
# (make fuzz runs it longer). A crash, a leak, a hang over 5 s on one input
# or a broken property fails. Skips where clang could not build it.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init

fuzz=${TOOLS:-$(dirname "$0")/../../build/tests/lib}/../../fuzz/filter
if [ ! -x "$fuzz" ]; then
	# Missing where clang could build it is a failure, not a skip.
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >probe.c
	command -v clang >/dev/null 2>&1 && clang -fsanitize=fuzzer probe.c -o probe 2>/dev/null &&
		fail "build/fuzz/filter is missing, but clang builds fuzz targets here (run make all)"
	skip "no fuzz target: build/fuzz/filter needs clang with libFuzzer (libclang-rt-14-dev)"
fi
mkdir corpus
# Seeds: the shapes the rules take.
printf '*.o\na/b/x.o' >corpus/1
printf '/deep/**/z\ndeep/p/q/z' >corpus/2
printf '!keep.log\n*.log\nbuild/\n\\#x\ndir/***' >corpus/3
printf '[[:alpha:]][!a-c]*/**\nab/c/d' >corpus/4
"$fuzz" -max_total_time="${FUZZ_SECONDS:-10}" -timeout=5 -max_len=512 -print_final_stats=1 \
	corpus >"$T/log" 2>&1
rc=$?
tail -n 30 "$T/log"
[ "$rc" = 0 ] || fail "the fuzz target found a problem (exit $rc)"
grep -q "stat::number_of_executed_units" "$T/log" || fail "the fuzzer ran nothing"
exit 0
