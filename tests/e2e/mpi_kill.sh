#!/bin/bash
# fastcp-mpi: one rank killed (SIGKILL) in the middle of a copy on 2 ranks.
# mpirun ends the others; the job fails (exit status not 0), the copy is
# only under its temporary name (no partial file or directory under a
# final name); run again with --sync, the killed run's copy is taken up
# and finished, exact.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_mpi
need_treecmp

mkdir "$T/src"
for d in $(seq 1 30); do
	mkdir "$T/src/d$d"
	for i in $(seq 1 300); do head -c 4096 /dev/urandom >"$T/src/d$d/f$i"; done
done
ln "$T/src/d1/f1" "$T/src/d29/linked"

mpirun_bg() { # the job in the background: $mp its pid
	mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 "$FASTCP_MPI" "$@" \
		>"$T/out" 2>"$T/err" &
	mp=$!
}

killed=0 delay=400
for attempt in 1 2 3 4 5 6; do
	rm -rf "$T/dst" && mkdir "$T/dst"
	mpirun_bg "$T/src" "$T/dst/"
	sleep "0.$delay"
	victim=$(pgrep -P "$mp" | tail -n 1)
	[ -n "$victim" ] && kill -KILL "$victim"
	rc=0
	timeout 60 tail --pid="$mp" -f /dev/null || fail "mpirun did not end after a rank was killed"
	wait "$mp" || rc=$?
	# Whatever the moment, a copy under its final name is whole (the
	# kill may come as the ranks end, after rank 0 named it).
	if [ -e "$T/dst/src" ]; then
		check_tree "$T/src" "$T/dst/src"
	elif [ -n "$victim" ] && [ "$rc" != 0 ]; then
		killed=1
		break
	fi
	note "attempt $attempt: the copy ended first (exit $rc); killing sooner"
	delay=$(printf '%03d' $((10#$delay / 2)))
done
[ "$killed" = 1 ] || skip "the copy always finished before a rank could be killed"
note "killed rank pid $victim; mpirun exit $rc"
cat "$T/err" | head -20
# Nothing under a final name: DEST holds the hidden copy alone.
left=$(find "$T/dst" -mindepth 1 -maxdepth 1 ! -name '.fcp-*')
[ -z "$left" ] || fail "a killed job left names in DEST: $left"
check_absent "$T/dst/src"

# Again with --sync: the hidden copy is finished and gets its name.
FCP_TIMEOUT=120 run_mpi 2 --sync "$T/src" "$T/dst/"
check_rc 0 "fastcp-mpi --sync after the kill"
check_tree "$T/src" "$T/dst/src"
check_no_temp "$T/dst"
