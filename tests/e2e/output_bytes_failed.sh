#!/bin/bash
# The summary's bytes are the data in the copies: a file whose copy was
# written and then not given its name (a FIFO in its place, which is never
# replaced) adds none. It said "copied 0 files (5 B)" and JSON "bytes":5.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd jq

mkdir -p src dst
echo data >src/p
echo more >src/q
mkfifo dst/p
run_fcp --json --sync -T src dst
check_rc 1 "a FIFO in the place of a file"
check_eq "$(jq -r '.files, .failed, .bytes' "$T/out" | tr '\n' ' ')" "1 1 5 " \
	"files, failed and bytes (the one copy made: 5 B)"
[ -p dst/p ] || fail "the FIFO was replaced"
check_eq "$(cat dst/q)" more "the other file"
echo "a copy not made counts no bytes"
