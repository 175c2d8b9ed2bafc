#!/bin/bash
# --resume --size-only on a killed run's hidden copy: the large file there
# is under its final name at its full size, with a record of the part that
# is durable and its mtime not set. The quick check inside a taken-up copy
# is size and mtime whatever the options, so the file is finished from its
# record, never taken as up to date for its size. The kill comes at a
# known point: the record says 128 MiB are durable (read at --bwlimit).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd getfattr
mkdir -p s/sub dst
setfattr -n user.fastcp.probe -v 1 dst 2>/dev/null || skip "$T takes no user xattrs"

SIZE=$(((1 << 30) + 12345))
head -c "$SIZE" /dev/urandom >s/big || fail "cannot write the source"
echo small >s/sub/f
touch -d @1500000000.123456789 s/big
record() { getfattr --only-values -n user.fastcp.resume "$1" 2>/dev/null; }
done_of() { record "$1" | sed -n 's/.* done=\([0-9]*\) .*/\1/p'; }

for opt in '--resume --size-only' '--resume --sync --size-only -u'; do
	rm -rf dst && mkdir dst
	"$FASTCP" --bwlimit 64M --resume s dst/ >/dev/null 2>"$T/err" &
	pid=$!
	for ((i = SECONDS + 120; ; )); do
		f=$(find dst -maxdepth 2 -path 'dst/.fcp-*/big' -print -quit)
		d=$([ -n "$f" ] && done_of "$f")
		[ -n "$d" ] && [ "$d" -gt 0 ] && break
		kill -0 "$pid" 2>/dev/null || fail "the copy ended before a record: $(cat "$T/err")"
		[ "$SECONDS" -lt "$i" ] || { kill -KILL "$pid"; fail "no record in 120 s"; }
		sleep 0.02
	done
	kill -KILL "$pid"
	{ wait "$pid"; } 2>/dev/null
	check_eq "$(stat -c %s "$f")" "$SIZE" "size of the file cut short"
	cmp -s s/big "$f" && fail "the kill came after the large file was whole"
	hidden=$(dirname "$f")
	# shellcheck disable=SC2086 # options are words
	run_fcp --stats $opt s dst/
	check_rc 0 "$opt"
	# Finished from its record: what was durable is not copied again.
	check_grep "data: [0-9.]+ MB copied" "$T/err" "the re-run copied the whole file again"
	check_absent "$hidden" "the hidden copy after the run with $opt"
	check cmp s/big dst/s/big
	check cmp s/sub/f dst/s/sub/f
	check_no_temp dst
done
echo PASS
