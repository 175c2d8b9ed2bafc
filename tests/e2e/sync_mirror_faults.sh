#!/bin/bash
# --mirror where the source fails, issue 18. A read error (faultfs
# --eio-at) in a directory holds back the deletions there and above (they
# are reported as held back, exit 1), so a file the source could not read
# never reads as "gone"; a source directory removed while --mirror copies
# it does not take its copy, nor anything in it, along; a copy stopped
# by a signal deletes nothing after.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd pgrep
FCP_TIMEOUT=60

B=$T/b
mkdir -p "$B/src/d" "$B/src/other"
printf 'ok\n' >"$B/src/d/ok"
head -c 10000 /dev/urandom >"$B/src/d/bad_file"
printf 'o\n' >"$B/src/other/o"
run_fcp -T "$B/src" dst
check_rc 0 "first copy (not through faultfs)"
printf 'extra\n' >dst/d/extra
printf 'extra\n' >dst/other/extra
printf 'extra\n' >dst/top_extra
touch -m -d @1000000000 dst/d/bad_file   # so that --mirror reads it again

faultfs_mount "$B" mnt --match='bad_*' --eio-at=4096
run_fcp --mirror -T mnt/src dst
check_rc 1 "--mirror with a read error"
check_grep "bad_file" "$T/err"
check_grep "deletions held back in 'dst/d': an item in it failed" "$T/err"
check_grep "deletions held back in 'dst': an item in it failed" "$T/err"
check_file dst/d/extra "deleted beside a source read error"
check_file dst/top_extra "deleted above a source read error"
check_file dst/d/bad_file "the copy of the unreadable file"
# A directory without errors is tidied as usual.
check_absent dst/other/extra "no deletion where nothing failed"
umount mnt || fail "umount"

# A source directory removed during --mirror: the open of one of v's files
# is held (faultfs --block-open), v goes meanwhile.
mkdir -p "$B/s2/v"
for i in 1 2 3; do printf '%d\n' "$i" >"$B/s2/v/slow_$i"; done
printf 'k\n' >"$B/s2/keep"
run_fcp -T "$B/s2" dst2
check_rc 0 "copy for the vanishing test"
printf 'extra\n' >dst2/v/extra
for i in 1 2 3; do touch -m -d @1000000000 "dst2/v/slow_$i"; done
touch hold2
faultfs_mount "$B" mnt2 --match='slow_*' --block-open --hold="$T/hold2"
timeout 60 "$FASTCP" --mirror -j 1 -T mnt2/s2 dst2 >out2 2>err2 &
pid=$!
faultfs_held "open of /s2/v/slow_[0-9]"
rm -rf "$B/s2/v"
rm hold2
wait "$pid"
rc=$?
cat out2 err2
check_eq "$rc" 1 "exit status when a source directory vanished"
check_dir dst2/v "the copy of a vanished source directory was deleted"
check_file dst2/v/extra "deleted in the copy of a vanished source directory"
check_file dst2/keep
umount mnt2 || fail "umount"

# Stopped by SIGTERM while a file is in flight: nothing is deleted after
# (SIGINT is ignored by a background job of a script).
mkdir -p "$B/s3/sub"
printf 's\n' >"$B/s3/slow_1"
printf 'q\n' >"$B/s3/sub/q"
run_fcp -T "$B/s3" dst3
printf 'extra\n' >dst3/extra
touch -m -d @1000000000 dst3/slow_1
touch hold3
faultfs_mount "$B" mnt3 --match='slow_*' --block-open --hold="$T/hold3"
timeout 60 "$FASTCP" --mirror -T mnt3/s3 dst3 >out3 2>err3 &
pid=$!
# Signalled while it copies: the open of slow_1 is held until then.
faultfs_held "open of /s3/slow_1"
child=$(pgrep -P "$pid" | head -1)
[ -n "$child" ] || fail "no fastcp under timeout"
# fastcp itself: timeout would pass it on twice (to it and to its group),
# and a second signal kills at once.
kill -TERM "$child"
rm hold3
wait "$pid"
rc=$?
cat out3 err3
check_eq "$rc" 143 "exit status after SIGTERM"
check_file dst3/extra "deleted after the copy was stopped"
check_grep "deletions held back in 'dst3': the copy was stopped" err3
echo "mirror: deletions held back where the source failed"
