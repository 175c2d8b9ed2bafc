#!/bin/bash
# SIGINT, SIGTERM or SIGHUP in the middle of a copy: fastcp starts nothing new, lets
# what is in flight land or removes it, reports, and dies of the signal.
# The unfinished new root copy keeps its temporary name (nothing appears
# under the final name) and the message names it by its full path; inside
# it no temporary file is left and every file is complete (byte-identical
# to its source).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH"
check "$FASTCP_BENCH" gen small src --scale 0.4 --seed 3 >/dev/null
mkdir -p src/big && head -c 300M /dev/zero | tr '\0' 'x' > src/big/huge

# The copy reads at 20 MiB/s (--bwlimit), so it lasts 15 s at least on any
# machine; the signal comes once the hidden copy holds 50 files, a moment
# the test sees, not one it guesses (a copy stopped by then fails the test).
for sig in INT TERM HUP; do
	rm -rf "d$sig"
	interruptible "$FASTCP" -j 2 --bwlimit 20M src "d$sig" 2> "err$sig" &
	pid=$!
	for ((i = 0; i < 3000; i++)); do
		left=$(find . -maxdepth 1 -name '.fcp-*' -type d)
		[ -n "$left" ] && [ "$(find "$left" -type f | head -50 | wc -l)" -ge 50 ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	[ "$(find "$left" -type f | head -50 | wc -l)" -ge 50 ] ||
		{ kill -KILL "$pid"; fail "the copy did not get under way (50 files) before SIG$sig"; }
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" != 0 ] || fail "the copy ended (exit 0) before SIG$sig, at 20 MiB/s"
	want=$((128 + $(kill -l "$sig")))
	check_eq "$rc" "$want" "exit status after SIG$sig"
	check_grep "interrupted by signal" "err$sig"
	check_nogrep "nothing partial was left" "err$sig" "claims nothing partial was left"
	check_absent "d$sig" "a stopped copy under its final name after SIG$sig"
	left=$(find . -maxdepth 1 -name '.fcp-*' -type d)
	[ "$(printf '%s\n' "$left" | grep -c .)" = 1 ] || fail "not one hidden copy after SIG$sig: $left"
	# Said once, by the signal's note (true after a second signal too).
	check_grep "unfinished copy of 'src' stays as '$(pwd -P)/${left#./}' \\(also if a second signal kills fastcp at once\\): the same command finishes it" "err$sig"
	check_nogrep "is left as" "err$sig" "the end says the kept copy again"
	check_nogrep "Interrupted system call|item.? failed" "err$sig" "the stop counted as a failure"
	check_no_temp_inside "$left"
	# Every file in the hidden copy is whole.
	n=0
	while IFS= read -r -d '' f; do
		cmp -s "src/${f#"$left"/}" "$f" || fail "partial or wrong file after SIG$sig: $f"
		n=$((n + 1))
	done < <(find "$left" -type f -print0)
	rm -rf "$left"
	total=$(find src -type f | wc -l)
	[ "$n" -lt "$total" ] || fail "all $total files were copied before SIG$sig took effect"
	echo "SIG$sig: $n of $total files copied, all whole, no temporary files"
done
