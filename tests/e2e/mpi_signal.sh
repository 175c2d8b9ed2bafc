#!/bin/bash
# fastcp-mpi: SIGTERM to mpirun in the middle of a copy on 2 ranks (held
# to --bwlimit 8M a rank, so that its 36 MiB last 2 s at least: it is still
# going after 0.2 s on any machine). mpirun
# passes it to every rank, each stops cleanly (nothing new started, what
# is in flight landed or removed); the job fails, rank 0 names the copy
# left under its temporary name, and nothing has a final name. Run again
# with --sync, the copy is finished, exact.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_mpi
need_treecmp

t_mkflat "$T/src" 30 300

mpi_stop_midway "$T/src" "$T/dst" 0.2 --bwlimit 8M
note "mpirun exit $rc"
cat "$T/err"
left=$(find "$T/dst" -mindepth 1 -maxdepth 1 ! -name '.fcp-*')
[ -z "$left" ] || fail "a stopped job left names in DEST: $left"
check_absent "$T/dst/src"
# Stopped by the signal, not killed: rank 0 said where the copy is.
if grep -q 'interrupted by signal' "$T/err"; then
	check_grep "stays as '$T/dst/.fcp-" "$T/err"
else
	note "mpirun ended the ranks before they could report"
fi

FCP_TIMEOUT=120 run_mpi 2 --sync "$T/src" "$T/dst/"
check_rc 0 "fastcp-mpi --sync after the signal"
check_tree "$T/src" "$T/dst/src"
check_no_temp "$T/dst"
