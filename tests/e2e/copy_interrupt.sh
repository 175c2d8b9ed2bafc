#!/bin/bash
# SIGINT or SIGTERM in the middle of a copy: fastcp starts nothing new, lets
# what is in flight land or removes it, reports, and dies of the signal.
# Afterwards no temporary file is left and every file under its final name
# is complete (byte-identical to its source).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH"
check "$FASTCP_BENCH" gen small src --scale 0.4 --seed 3 >/dev/null
mkdir -p src/big && head -c 300M /dev/zero | tr '\0' 'x' > src/big/huge

for sig in INT TERM; do
	rm -rf "d$sig"
	"$FASTCP" -j 2 src "d$sig" 2> "err$sig" &
	pid=$!
	sleep 0.3
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	if [ "$rc" = 0 ]; then
		skip "the copy finished within 0.3 s, before the signal"
	fi
	want=$((128 + $(kill -l "$sig")))
	check_eq "$rc" "$want" "exit status after SIG$sig"
	check_grep "interrupted by signal" "err$sig"
	check_no_temp "d$sig"
	# Every file that has its final name is whole.
	n=0
	while IFS= read -r -d '' f; do
		cmp -s "src/${f#d$sig/}" "$f" || fail "partial or wrong file after SIG$sig: $f"
		n=$((n + 1))
	done < <(find "d$sig" -type f -print0)
	total=$(find src -type f | wc -l)
	[ "$n" -lt "$total" ] || skip "all $total files were copied before SIG$sig took effect"
	echo "SIG$sig: $n of $total files copied, all whole, no temporary files"
done
