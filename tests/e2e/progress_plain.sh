#!/bin/bash
# --progress=plain, for logs: a full line every 5 seconds (no carriage
# return, no terminal escape), on stderr that is a file; nothing is drawn
# with --progress=auto when stderr is no terminal.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir b
for i in $(seq 1 10); do head -c 1M /dev/urandom >"b/big$i"; done
faultfs_mount b slow --delay-ms=100

run_fcp -j 1 --progress=plain slow dst
check_rc 0 "slow copy"
check_grep "^fastcp: +[0-9]+% [0-9.]+ [kMG]?B/[0-9.]+ [kMG]?B, [0-9]+/10 files, .* files/s, 0:0[5-9], ETA [0-9]+:[0-9][0-9]$|^fastcp: counting\.\.\. .*, 0:0[5-9]$" \
	"$T/err" "no plain progress line after 5 s"
check_nogrep $'\r|\033' "$T/err" "a carriage return or an escape in plain lines"
rm -rf dst
run_fcp -j 4 slow dst
check_eq "$(cat "$T/err")" "" "stderr of a copy with --progress=auto and no terminal"
echo "plain progress lines for logs; nothing without a terminal"
