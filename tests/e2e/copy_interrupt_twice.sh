#!/bin/bash
# A second Ctrl-C stops at once (issue 20). The first SIGINT stops the job
# cleanly: it waits for the operation in flight, here the open of the
# source, held by faultfs until the test lets it go. The copy then goes on
# to create its file in the destination, and that never ends by itself: the
# destination is a faultfs with one thread (-s), held in a read of another
# file, so the creation waits in the kernel (a FUSE request not yet taken,
# which only a fatal signal ends). A second SIGINT must kill the process
# there and then (SA_RESETHAND: the default action again), and nothing is
# left under a final name. Every step waits for the state it needs (faultfs
# says what it holds, /proc says the signal was taken and the copy's call
# on the destination waits), not for a moment; the bounds (still running
# 0.5 s after that, gone 1 s after the second signal) are functional, not
# measurements.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir sback dback
head -c 1M /dev/urandom >sback/slow_file
echo plug >dback/plug
touch hold_src hold_dst
# The source's open waits until the destination is held: by then fastcp
# has set its handlers and looked at the destination, and has not yet
# made anything in it.
faultfs_mount sback src --match='slow_*' --block-open --hold="$T/hold_src"
faultfs_mount dback dst --match=plug --block-at=0 --hold="$T/hold_dst" -s

interruptible "$FASTCP" --reflink=never src/slow_file dst/ 2>err &
pid=$!
faultfs_held "open of /slow_file"
mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
[ -n "$mask" ] && (( 0x$mask & 2 )) || fail "fastcp does not catch SIGINT while it copies"
# The destination's one thread waits in a read of plug: every request
# after it waits unanswered.
cat dst/plug >/dev/null &
plug=$!
faultfs_held "read of /plug at 0"
# The first SIGINT, while the open of the source is held: the operation in
# flight, which faultfs will answer once let go.
kill -INT "$pid"
rm hold_src
# Taken once the open returned: SA_RESETHAND put back the default action.
for ((i = 0; i < 600; i++)); do
	mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	[ -n "$mask" ] && (( 0x$mask & 2 )) || break
	sleep 0.1
done
ended_early() {
	kill -0 "$pid" 2>/dev/null && return 0
	wait "$pid"
	fail "fastcp ended (exit $?) after the first SIGINT without waiting on the destination: this test no longer reaches the state it checks"
}
ended_early
[ -n "$mask" ] && ! (( 0x$mask & 2 )) || fail "the first SIGINT was not taken within 60 s of the open's answer"
# waits_in_dst: a thread of fastcp is in a call on a descriptor of dst
# (the creation of its copy there), which faultfs cannot answer.
dst_dir=$(realpath dst)
waits_in_dst() {
	local t nr fd _
	for t in /proc/"$pid"/task/*; do
		read -r nr fd _ <"$t/syscall" 2>/dev/null || continue
		[ "$nr" = running ] || [ "$nr" = -1 ] && continue
		[ "$(readlink "/proc/$pid/fd/$((fd))" 2>/dev/null)" = "$dst_dir" ] && return 0
	done
	return 1
}
for ((i = 0; i < 600; i++)); do
	waits_in_dst && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
ended_early
waits_in_dst || fail "the copy did not come to wait on the destination within 60 s"
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
rm hold_dst
wait "$plug"
[ "$alive2" = yes ] && { kill -KILL "$pid"; wait "$pid"; fail "still running 1 s after the second SIGINT"; }
wait "$pid"
rc=$?
cat err
[ "$alive1" = yes ] || fail "the first SIGINT ended the copy (exit $rc) while its creation waited"
check_eq "$rc" 130 "exit status after the second SIGINT"
check_absent dback/slow_file "a partial file under its final name"
echo "left in the destination: $(ls -A dback | grep -vx plug | tr '\n' ' ')"
[ -z "$(ls -A dback | grep -v -e '^\.fcp-' -e '^plug$')" ] || fail "something but a temporary file in the destination"
echo PASS
