#!/bin/bash
# -v prints cp's arrow only for data copied (a copy, an update, a link, a
# directory made); an item that only got its metadata (its data the same)
# has its own line, "update metadata 'DEST/x'", never the arrow of a copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p s8/docs
echo data >s8/a; echo doc >s8/docs/d
run_fcp -a -T s8 f8
check_rc 0 "the first copy"

# A file whose mtime alone changed, --size-only: no data copied.
touch -d '2020-01-01' s8/a
run_fcp -a --size-only -v -T s8 f8
check_rc 0 "--size-only re-run"
check_grep "^fastcp: copied 0 files " "$T/err"
check_grep "^update metadata 'f8/a'$" "$T/out"
check_nogrep " -> " "$T/out" "an arrow where no data was copied"
check_eq "$(stat -c %Y f8/a)" "$(stat -c %Y s8/a)" "the file's mtime set"
run_fcp -a --size-only --itemize-changes -T s8 f8
check_eq "$(cat "$T/out")" "" "--itemize-changes of a re-run that changes nothing"

# A directory whose mtime alone changed, --sync: its own line too.
touch -d '2020-01-01' s8/docs
run_fcp -a --sync -v -T s8 f8
check_rc 0 "--sync re-run"
check_eq "$(cat "$T/out")" "update metadata 'f8/docs'" "-v lines of a directory's metadata"

# A file whose data changed is still cp's arrow.
echo other >s8/a
run_fcp -a --sync -v -T s8 f8
check_eq "$(cat "$T/out")" "'s8/a' -> 'f8/a'" "-v line of a file copied again"
check_eq "$(cat f8/a)" "other" "the file's new data"
echo "-v: the arrow for data copied, its own line for metadata only"
