#!/bin/bash
# A killed copy's hidden copy holds a file cut short under its final name
# at its full size (the size is set first) with only its mtime not set
# yet. The same command again, with an option that weakens the quick check
# (--size-only) or keeps files that are there (-u, -n, --ignore-existing),
# takes that copy up: inside it the quick check is size and mtime whatever
# the options, so the file is copied again, and never gets its name with
# the bytes of the killed run. The kill comes at a known point: the large
# file, read at --bwlimit, has some of its data in the hidden copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

mkdir -p s/sub
head -c 6000000 /dev/urandom >s/big
truncate -s 40000000 s/big # a hole after the data: the size comes first
for i in 1 2 3; do echo "small $i" >"s/sub/f$i"; done
touch -d @1500000000.123456789 s/big
before=$(t_sums s)

# kill_mid: run `fastcp --bwlimit 1M s dst/` and SIGKILL it once its
# hidden copy holds a megabyte of big's data; the copy is then cut short
# (6 MB at 1 MiB/s), which is checked, not assumed.
kill_mid() {
	local pid h i used
	rm -rf dst && mkdir dst
	"$FASTCP" -j 2 --bwlimit 1M s dst/ 2>/dev/null &
	pid=$!
	for ((i = 0; i < 2400; i++)); do
		h=$(find dst -maxdepth 1 -name '.fcp-*' -type d -print -quit)
		used=0
		[ -n "$h" ] && [ -f "$h/big" ] && used=$(($(stat -c %b "$h/big") * 512))
		[ "$used" -ge 1000000 ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.025
	done
	kill -KILL "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	[ -n "$h" ] && [ -f "$h/big" ] || fail "the copy never began its large file"
	check_eq "$(stat -c %s "$h/big")" 40000000 "size of the file cut short"
	cmp -s s/big "$h/big" && fail "the kill came after the large file was whole"
	hidden=$h
}

for opt in --size-only '--size-only -u' '--sync --size-only' -u -n --ignore-existing; do
	kill_mid
	# shellcheck disable=SC2086 # options are words
	run_fcp $opt -v s dst/
	check_rc 0 "$opt"
	check_absent "$hidden" "the hidden copy after the run with $opt"
	check cmp s/big dst/s/big
	check_eq "$(t_sums dst/s)" "$before" "every file whole after the run with $opt"
	check_tree s dst/s
	check_no_temp dst
	check_grep "'s/big' -> 'dst/s/big'" "$T/out"
done
check_eq "$(t_sums s)" "$before" "source unchanged"
echo PASS
