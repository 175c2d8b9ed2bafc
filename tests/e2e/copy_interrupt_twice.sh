#!/bin/bash
# A second Ctrl-C stops at once (issue 20). The first SIGINT stops the job
# cleanly: it waits for the operation in flight. Here that operation never
# ends by itself: the destination is a faultfs whose server is stopped
# (SIGSTOP) while the copy runs, so the creation of the copy waits in the
# kernel (a FUSE request not yet taken, which only a fatal signal ends). A
# second SIGINT must kill the process there and then (SA_RESETHAND: the
# default action again), and nothing is left under a final name. The bounds
# (still running 0.5 s after the first signal, gone 1 s after the second)
# are functional, not measurements.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir sback dback
head -c 1M /dev/urandom >sback/slow_file
# The source's open and reads take 1 s each: time to stop the other server.
faultfs_mount sback src --match='slow_*' --delay-ms=1000
faultfs_mount dback dst
dpid=$(ps -eo pid=,args= | awk -v m="$(realpath dst)" '$2 ~ /faultfs$/ && $NF == m { print $1 }')
[ -n "$dpid" ] || fail "cannot find the destination's faultfs process"

"$FASTCP" --reflink=never src/slow_file dst/ 2>err &
pid=$!
# Its handlers are set (SigCgt has SIGINT, bit 1) once the copy begins.
for ((i = 0; i < 100; i++)); do
	mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	[ -n "$mask" ] && (( 0x$mask & 2 )) && break
	sleep 0.05
done
[ -n "$mask" ] && (( 0x$mask & 2 )) || fail "fastcp did not catch SIGINT within 5 s"
sleep 0.3 # past the first look at the destination; the source's open is slow
kill -STOP "$dpid"
sleep 1.5 # the source opened and read: the copy's creation now waits
kill -INT "$pid"
sleep 0.5
alive1=no
kill -0 "$pid" 2>/dev/null && alive1=yes
kill -INT "$pid"
for ((i = 0; i < 20; i++)); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
alive2=no
kill -0 "$pid" 2>/dev/null && alive2=yes
kill -CONT "$dpid"
[ "$alive2" = yes ] && { kill -KILL "$pid"; wait "$pid"; fail "still running 1 s after the second SIGINT"; }
wait "$pid"
rc=$?
cat err
[ "$alive1" = yes ] || skip "the first SIGINT ended the copy (exit $rc): nothing was left waiting"
check_eq "$rc" 130 "exit status after the second SIGINT"
check_absent dback/slow_file "a partial file under its final name"
echo "left in the destination: $(ls -A dback | tr '\n' ' ')"
[ -z "$(ls -A dback | grep -v '^\.fcp-')" ] || fail "something but a temporary file in the destination"
echo PASS
