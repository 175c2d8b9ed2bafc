#!/bin/bash
# SIGINT on a slow source: fastcp must not let the file in flight finish
# first (a 32 MiB chunk, or a whole medium file, at a few hundred KiB/s:
# tens of seconds) only to throw it away. It checks between reads, removes
# the unfinished file and dies of the signal promptly. The source is faultfs
# with every read delayed; the deadline (3 s after the signal) is a
# functional bound, far above what the stop needs, not a measurement.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir backing dst
head -c 80M /dev/urandom >backing/large   # chunked (from 64 MiB)
# One worker, the whole file; from 2 MiB with several reads in flight
# (lib/engine/direct_pipe.c), so it is large enough to last.
head -c 60M /dev/urandom >backing/medium
faultfs_mount backing slow --delay-ms=200

for f in large medium; do
	interruptible "$FASTCP" "slow/$f" dst/ 2>"err.$f" &
	pid=$!
	# The signal comes 1 s after the copy began (its copy is open, under
	# a temporary name or unnamed): before fastcp set its handler, a
	# background job ignores it.
	for ((i = 0; i < 100; i++)); do
		readlink /proc/"$pid"/fd/* 2>/dev/null | grep -q "^$(realpath dst)/" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 1
	kill -0 "$pid" 2>/dev/null || fail "the copy of $f finished within 1 s: the source is not slow"
	kill -INT "$pid"
	gone=
	for ((i = 0; i < 30; i++)); do
		kill -0 "$pid" 2>/dev/null || { gone=1; break; }
		sleep 0.1
	done
	if [ -z "$gone" ]; then
		kill -KILL "$pid"
		wait "$pid"
		fail "fastcp still running 3 s after SIGINT while copying the $f file"
	fi
	wait "$pid"
	rc=$?
	sed 's/^/  err| /' "err.$f"
	check_eq "$rc" 130 "exit status after SIGINT ($f file)"
	check_absent "dst/$f" "an unfinished copy under the final name"
	check_no_temp dst
	echo "$f file: stopped within 3 s of SIGINT, nothing left"
done
