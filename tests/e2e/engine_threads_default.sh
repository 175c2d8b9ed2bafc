#!/bin/bash
# Without -j, fastcp runs 3 workers per CPU it may use (capped at 32), and
# says so: in --version --verbose and in the summary of -v. A narrower
# affinity mask (taskset) means fewer workers; -j always wins.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
command -v taskset >/dev/null || skip "taskset (util-linux) is not installed"

mkdir -p s
for i in $(seq 1 20); do echo "$i" > "s/f$i"; done

"$FASTCP" --version --verbose > "$T/ver1" 2>&1
expect=$(( 3 * $(nproc) ))
[ "$expect" -le 32 ] || expect=32
check_grep "^threads: $expect by default here" "$T/ver1"

taskset -c 0 "$FASTCP" --version --verbose > "$T/ver2" 2>&1
check_grep "^threads: 3 by default here" "$T/ver2"

run_fcp -v s d1
check_rc 0 "fastcp without -j"
check_grep "\($expect threads, " "$T/err"
check_tree s d1

FCP_WRAP="taskset -c 0" run_fcp -v s d2
check_rc 0 "fastcp on one CPU without -j"
check_grep "\(3 threads, " "$T/err"
check_tree s d2

FCP_WRAP="taskset -c 0" run_fcp -v -j 5 s d3
check_rc 0 "fastcp on one CPU with -j 5"
check_grep "\(5 threads, " "$T/err"
check_tree s d3
echo "default thread count follows the CPUs; -j overrides it"
