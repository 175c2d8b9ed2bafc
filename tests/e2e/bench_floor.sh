#!/bin/bash
# fastcp-bench floor: writes the tree's directories and regular files
# exactly (from memory), leaves out and counts everything else, reports its
# times, and refuses a destination that already exists.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH (run make all)"
B=$FASTCP_BENCH

check "$B" gen small s --scale 0.004 --seed 3
mkdir -p s/empty/deeper
: >s/empty/zero
ln -s target s/link
check "$B" floor --threads 3 s d >"$T/out"
cat "$T/out"
check_grep "^floor: 201 files, $(find s -type d | wc -l) directories, .*\(1 other entries left out\)" "$T/out"
check_grep '^floor: 3 threads: write [0-9.]+ s, sync [0-9.]+ s, total [0-9.]+ s$' "$T/out"
rm s/link
diff -r s d >"$T/diff" || { head "$T/diff"; fail "the floor's copy differs from its source"; }
check_not "$B" floor s d
check_not "$B" floor --threads 0 s d2
echo "floor copies exactly"
