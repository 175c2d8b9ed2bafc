#!/bin/bash
# --dedup's counters keep their meanings (man fastcp, JSON): bytes is the
# data in the copies, clones included, so bytes_cloned never exceeds it and
# the summary's "data: N copied" (bytes less bytes_cloned) is the data
# written; a duplicate made a hard link is a name, not data, and is in
# neither. deduplicated_files and bytes_saved say what --dedup saved.
# (Before, a dedup clone added to bytes_cloned only, and the summary said
# "data: 18446744.1 TB copied".) On loopback XFS (reflink=1); the source
# is off it, so only the duplicate is a clone.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "loopback filesystems need root"
need_cmd python3

mkdir src
head -c 300000 /dev/urandom >src/a
cp src/a src/b
head -c 100000 /dev/urandom >src/c
t_mount_fs xfs 300M "$T/x"

# json_get FILE KEY: one key of the --json summary.
json_get() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# want HOW BYTES BYTES_CLONED FILES
want() {
	local how=$1
	check_eq "$(json_get "$T/out" bytes)" "$2" "$how: bytes"
	check_eq "$(json_get "$T/out" bytes_cloned)" "$3" "$how: bytes_cloned"
	check_eq "$(json_get "$T/out" files)" "$4" "$how: files"
	check_eq "$(json_get "$T/out" deduplicated_files)" 1 "$how: deduplicated_files"
	check_eq "$(json_get "$T/out" bytes_saved)" 300000 "$how: bytes_saved"
}

run_fcp --dedup=reflink --json src "$T/x/r"
check_rc 0 "--dedup=reflink"
cmp src/a "$T/x/r/a" && cmp src/b "$T/x/r/b" && cmp src/c "$T/x/r/c" || fail "copy differs"
want reflink 700000 300000 3

run_fcp --dedup=hardlink --json src "$T/x/h"
check_rc 0 "--dedup=hardlink"
cmp src/a "$T/x/h/a" && cmp src/b "$T/x/h/b" && cmp src/c "$T/x/h/c" || fail "copy differs"
check_eq "$(stat -c %h "$T/x/h/a")" 2 "hardlink: links of a"
want hardlink 400000 0 2

# The text summary: the data written is what was not cloned.
run_fcp --dedup=reflink --stats src "$T/x/s"
check_rc 0 "--dedup --stats"
check_grep "^fastcp: data: 400.0 KB copied, 300.0 KB cloned" "$T/err"
check_nogrep "TB" "$T/err"

# The source on the same XFS: every copy is a clone, the duplicate's too.
cp -r src "$T/x/src"
run_fcp --dedup=reflink --stats "$T/x/src" "$T/x/t"
check_rc 0 "--dedup --stats, source on the same filesystem"
check_grep "^fastcp: data: 0 B copied, 700.0 KB cloned" "$T/err"
check_nogrep "TB" "$T/err"
echo "dedup counters ok"
