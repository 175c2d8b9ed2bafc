#!/bin/sh
# Run every test: unit programs (build/tests/unit/*) and end-to-end scripts
# (tests/e2e/*.sh). Each exits 0 = pass, 77 = skip (its last output line says
# why), anything else = fail. The last line is always "N passed, N failed".
# BUILD=DIR takes the programs from another build (make check-sanitize).
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
b=${BUILD:-build}; case $b in /*) ;; *) b=$top/$b ;; esac
export FASTCP="$b/fastcp" FASTCP_BENCH="$b/fastcp-bench" FASTCP_MPI="$b/fastcp-mpi"
export TREECMP="$b/tests/lib/treecmp" TESTLIB="$top/tests/lib"
export TOOLS="$b/tests/lib"
logdir="$b/test-logs"
rm -rf "$logdir"; mkdir -p "$logdir"
pass=0 fail=0 skip=0
run_one() { # name command...
	name=$1; shift
	log="$logdir/$(echo "$name" | tr / _).log"
	"$@" >"$log" 2>&1 </dev/null
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$log")" ;;
	*) fail=$((fail + 1)); echo "FAIL $name (exit $rc; log $log)"; tail -n 15 "$log" | sed 's/^/    /' ;;
	esac
}
filter=${1:-}
for t in "$b"/tests/unit/*; do
	[ -x "$t" ] || continue
	case "build/tests/unit/${t##*/}" in *"$filter"*) ;; *) continue ;; esac
	run_one "unit/$(basename "$t")" "$t"
done
for t in tests/e2e/*.sh; do
	[ -f "$t" ] || continue
	case "$t" in *"$filter"*) ;; *) continue ;; esac
	run_one "e2e/$(basename "$t" .sh)" bash "$t"
done
[ $skip -gt 0 ] && echo "$skip skipped (see reasons above)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
