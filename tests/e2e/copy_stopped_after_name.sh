#!/bin/bash
# A copy of a directory to a new name, killed after its copy got that name
# but before the process ended, is finished by the same command again in
# that place: not copied into itself (NEW/SRC, as cp's placement would put
# it beside a directory NEW). The run is held after the rename where its
# manifest is closed (faultfs holds the checkpoint's read of the -wal), and
# killed there; nothing waits for a moment.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_built HAVE_SQLITE3 "built without SQLite: no --manifest to hold the run at its end"

mkdir -p photos/2024 mback
for i in $(seq 1 40); do head -c $((i * 997)) /dev/urandom >"photos/2024/img$i.jpg"; done
echo notes >photos/notes.txt
before=$(t_sums photos)
touch hold
faultfs_mount mback man --match='m.db-wal' --block-at=32 --hold="$T/hold"

"$FASTCP" --manifest man/m.db photos new >out 2>err &
pid=$!
faultfs_held "read of /m.db-wal"
check_dir new "the copy has its name before the manifest is closed"
kill -KILL "$pid"
rm hold
{ wait "$pid"; } 2>/dev/null
check_eq "$?" 137 "fastcp killed while its manifest was closed"
check_dir new

run_fcp --manifest man/m.db photos new
check_rc 0
check_absent new/photos "the copy copied into itself"
check_tree photos new
check_eq "$(t_sums new)" "$before" "every file of the source in the copy"
check_eq "$(t_sums photos)" "$before" "source unchanged"
check_no_temp .
getfattr -d -m - --absolute-names new | grep -q fastcp && fail "a marker left on the finished copy"
# Finished now: the same command again copies into the directory, as cp.
run_fcp photos new
check_rc 0
check_tree photos new/photos
echo PASS
