#!/bin/bash
# The summary's counters are true: on XFS with reflink a cloned file counts
# its bytes as cloned; a sparse file's holes are counted as not written; a
# file copied without a clone counts its data and the I/O calls made; the
# text summary says the same (--stats, -q); a --sync re-run counts the
# files up to date as unchanged and copies no byte.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd python3 truncate
t_mount_fs xfs 300M "$T/xfs"

mkdir xfs/s
head -c 3M /dev/urandom >xfs/s/data
truncate -s 8M xfs/s/sparse
printf 'tail' | dd of=xfs/s/sparse bs=1 seek=$((6 << 20)) conv=notrunc status=none
json() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$T/out" "$1"; }

run_fcp --json --reflink=always xfs/s xfs/c1
check_rc 0 "cloned copy"
check_eq "$(json "s['bytes_cloned'], s['cloned_files'], s['files']")" "(11534336, 2, 2)" \
	"cloned bytes and files"

run_fcp --json --reflink=never xfs/s xfs/c2
check_rc 0 "plain copy"
check_eq "$(json "s['bytes'], s['bytes_cloned'], s['bytes_holes']")" \
	"(3149824, 0, 8384512)" "bytes copied (the sparse file's one data block), cloned, holes"
# CPU time may round to 0 on a copy this small: only its presence.
check_eq "$(json "s['io_operations'] >= 2 and min(s['cpu_user_seconds'], s['cpu_system_seconds'], s['cpu_percent']) >= 0")" \
	True "I/O operations counted, CPU time given"

run_fcp --stats --reflink=never xfs/s xfs/c3
check_grep "^fastcp: data: 3.1 MB copied, 0 B cloned, 8.4 MB of holes not written; 0 skipped, 0 failed$" "$T/err"
check_grep "^fastcp: [0-9]+ I/O operations \([0-9]+/s\); CPU [0-9]+% \(user [0-9.]+ s, system [0-9.]+ s\); peak memory [0-9.]+ [kM]B$" "$T/err"
run_fcp -q --stats xfs/s xfs/c4
check_eq "$(cat "$T/err")" "" "-q: no summary"

run_fcp --json --sync -T xfs/s xfs/c2
check_rc 0 "re-run"
check_eq "$(json "s['unchanged'], s['files'], s['bytes']")" "(3, 0, 0)" "a re-run: unchanged entries, no data"
echo "bytes cloned, holes, I/O operations and CPU counted; --stats and -q"
