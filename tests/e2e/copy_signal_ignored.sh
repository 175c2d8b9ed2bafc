#!/bin/bash
# A signal that was ignored when fastcp started stays ignored, as in every
# POSIX utility: a copy started under "trap '' INT HUP" (a background job
# of a shell without job control, nohup) gets SIGINT and SIGHUP in the
# middle and goes on to a whole copy, exit 0; SIGTERM, not ignored, is
# still caught. The copy reads at 10 MiB/s (--bwlimit), so 30 MiB last
# 3 s at least; the signals come once its temporary file is there.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir src && head -c 30M /dev/urandom >src/big && echo small >src/small
mkdir dst
(trap '' INT HUP; exec "$FASTCP" -j 1 --bwlimit 10M -T src dst 2>"$T/err") &
pid=$!
for ((i = 0; i < 1500; i++)); do
	[ -n "$(find dst -maxdepth 1 -name '.fcp-*' -print -quit)" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.02
done
[ -n "$(find dst -maxdepth 1 -name '.fcp-*' -print -quit)" ] ||
	{ kill -KILL "$pid"; fail "the copy did not get under way"; }
# What the kernel says of it: INT and HUP ignored, TERM caught.
ign=$(awk '/^SigIgn:/ { print $2 }' /proc/$pid/status)
cgt=$(awk '/^SigCgt:/ { print $2 }' /proc/$pid/status)
(( 0x$ign & 1 << 1 )) && (( 0x$ign & 1 << 0 )) || fail "SIGINT or SIGHUP not ignored (SigIgn $ign)"
(( 0x$cgt & 1 << 14 )) || fail "SIGTERM not caught (SigCgt $cgt)"
kill -INT "$pid"
kill -HUP "$pid"
sleep 0.3
kill -INT "$pid" 2>/dev/null || fail "fastcp ended at SIGINT or SIGHUP that it was started ignoring"
wait "$pid"
rc=$?
cat "$T/err"
check_eq "$rc" 0 "exit status of a copy that ignores SIGINT and SIGHUP"
check_nogrep "interrupted" "$T/err" "stopped by an ignored signal"
check cmp src/big dst/big
check cmp src/small dst/small
check_no_temp dst
echo "signals ignored at the start stay ignored"
