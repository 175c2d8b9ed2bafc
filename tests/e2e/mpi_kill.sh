#!/bin/bash
# fastcp-mpi: one rank killed (SIGKILL) at moments spread over a copy on
# 2 ranks. mpirun ends the others; the job fails (exit status not 0), the
# copy is only under its temporary name (no partial file or directory
# under a final name), or, killed as the ranks end, whole. Run again with
# --sync, the killed run's copy is taken up and finished, exact.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_mpi
need_treecmp

t_mkflat "$T/src" 30 300
ln "$T/src/d1/f1" "$T/src/d29/linked"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# How long a whole copy takes here, from its start; the kills are spread
# over it, so that some land while one rank is done with its share and
# another is not. Every run reads at 8 MiB/s a rank (--bwlimit): the
# 36 MiB take 2.2 s at least on any machine, so the kills at 10% and 25%
# of a whole copy's time land before the end, whatever the machine's speed.
RATE=8M
rm -rf "$T/dst" && mkdir "$T/dst"
mpi_bg 2 --bwlimit $RATE "$T/src" "$T/dst/"
mpi_started "$T/dst"
t0=$(now_ms)
wait "$mp" || fail "the copy without a kill failed"
span=$(($(now_ms) - t0))
check_tree "$T/src" "$T/dst/src"
note "a whole copy takes ${span} ms"

killed=0
for pct in 10 25 40 55 70 85; do
	rm -rf "$T/dst" && mkdir "$T/dst"
	mpi_bg 2 --bwlimit $RATE "$T/src" "$T/dst/"
	mpi_started "$T/dst"
	ms=$((span * pct / 100))
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
	victim=$(pgrep -P "$mp" | tail -n 1)
	[ -n "$victim" ] && kill -KILL "$victim"
	mpi_ended "a rank was killed"
	# Whatever the moment, a copy under its final name is whole (the
	# kill may come as the ranks end, after rank 0 named it), and
	# nothing else of it has a final name.
	if [ -e "$T/dst/src" ]; then
		check_tree "$T/src" "$T/dst/src"
	elif [ "$rc" != 0 ]; then
		killed=$((killed + 1))
		left=$(find "$T/dst" -mindepth 1 -maxdepth 1 ! -name '.fcp-*')
		[ -z "$left" ] || fail "a killed job left names in DEST: $left"
	fi
	note "killed at ${pct}% (${ms} ms): exit $rc"
done
[ "$killed" -ge 2 ] || fail "only $killed of 6 copies were killed before they finished"
# The last kill may have come after the end: kill once more, early.
if [ -e "$T/dst/src" ]; then
	rm -rf "$T/dst" && mkdir "$T/dst"
	mpi_bg 2 --bwlimit $RATE "$T/src" "$T/dst/"
	mpi_started "$T/dst"
	victim=$(pgrep -P "$mp" | tail -n 1)
	[ -n "$victim" ] && kill -KILL "$victim"
	wait "$mp"
fi

# Again with --sync: the hidden copy is finished and gets its name.
FCP_TIMEOUT=120 run_mpi 2 --sync "$T/src" "$T/dst/"
check_rc 0 "fastcp-mpi --sync after the kill"
check_tree "$T/src" "$T/dst/src"
check_no_temp "$T/dst"
