#!/bin/bash
# A remote source's small files go the synchronous way while the pool can
# still grow (batch.c): on FUSE (and NFS, SMB...) every io_uring call is
# handed to one of io_uring's own threads and back, which cost the copy
# half as much CPU again as a worker's own system call. The pool's
# threads make the round trips in flight; io_uring's batches come in only
# once the pool is as large as it gets and would still grow, or from the
# start where -j fixes it (sched.c).
#   - Through faultfs with no faults, default pool: no file says "io_uring
#     batch" under --debug, and the copy is exact.
#   - The same with -j 2: the small files go through the io_uring batch.
#   - The same tree from its local backing, default pool: io_uring batch.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
"$FASTCP" --version --verbose | grep -q "small files: io_uring" ||
	skip "io_uring unusable here: every source goes the synchronous way"

mkdir -p back/s
for i in $(seq 1 40); do head -c $((i * 101)) /dev/urandom >"back/s/f$i"; done
faultfs_mount back mnt

run_fcp --debug --reflink=never mnt/s d1
check_rc 0 "copy from a FUSE source, default pool"
check_tree back/s d1
check_grep "debug: '.*/f1' -> " "$T/err" "--debug named no file"
check_nogrep "io_uring batch" "$T/err" "a remote source's batch went through io_uring while the pool could grow"

run_fcp --debug --reflink=never -j 2 mnt/s d2
check_rc 0 "copy from a FUSE source, -j 2"
check_tree back/s d2
check_grep "'.*/f1' -> .*io_uring batch" "$T/err" "with -j 2 the remote source's batch did not go through io_uring"

run_fcp --debug --reflink=never back/s d3
check_rc 0 "copy from the local backing"
check_tree back/s d3
check_grep "'.*/f1' -> .*io_uring batch" "$T/err" "a local source's batch did not go through io_uring"
echo PASS
