#!/bin/bash
# A destination that refuses every write from some point on (read-only,
# full, over quota) gets one error line, not one per remaining file, and the
# copy stops starting new work; the summary says how many items were not
# copied, and the exit status is 1.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "loopback and tmpfs filesystems need root"

mkdir -p src/a src/b src/c
for i in $(seq 1 150); do
	printf 'a %d\n' "$i" >"src/a/f$i"
	printf 'b %d\n' "$i" >"src/b/g$i"
done
for i in $(seq 1 20); do head -c 300K /dev/urandom >"src/c/big$i"; done

# Read-only before the copy into it starts: an existing tree to copy into,
# so that every file and directory would be tried.
t_mount_fs ext4 32m "$T/ro"
mkdir -p "$T/ro/dst/src/a" "$T/ro/dst/src/b" "$T/ro/dst/src/c"
mount -o remount,ro "$T/ro" || skip "cannot remount $T/ro read-only"
for threads in 1 4; do
	for io in "" --no-io-uring; do
		run_fcp -j $threads $io src "$T/ro/dst"
		check_rc 1 "read-only destination (-j $threads $io)"
		check_eq "$(grep -c 'Read-only file system' "$T/err")" 1 \
			"error lines for a read-only destination (-j $threads $io)"
		check_grep "items? not copied" "$T/err" "the summary does not say what was not copied"
	done
done

# Read-only midway: ext4 remounts itself read-only on an error, which its
# trigger_fs_error file raises while the copy runs, once 30 files are
# copied (--iolimit 1000, one operation a file at least, keeps the copy
# going 1.5 s at least on any machine; --fsync slows it further). The
# files in flight may each report their own failure and leftover; the
# rest of the 1,500 do not.
t_mount_fs ext4 64m "$T/mid"
mkdir -p mid_src/a "$T/mid/dst"
for i in $(seq 1 1500); do printf '%d\n' "$i" >"mid_src/a/f$i"; done
dev=$(basename "$(findmnt -no SOURCE "$T/mid")")
trigger=/sys/fs/ext4/$dev/trigger_fs_error
mount -o remount,errors=remount-ro "$T/mid" && [ -w "$trigger" ] ||
	skip "cannot make ext4 turn read-only on an error here ($trigger)"
"$FASTCP" --fsync --iolimit 1000 -j 2 mid_src "$T/mid/dst" >"$T/out" 2>"$T/err" &
pid=$!
for i in $(seq 1 1200); do
	[ "$(find "$T/mid/dst" -type f 2>/dev/null | head -30 | wc -l)" -ge 30 ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
kill -0 "$pid" 2>/dev/null || fail "the copy ended before the error was raised"
echo "error inserted by the test" >"$trigger"
wait $pid
RC=$?
sed 's/^/  err| /' "$T/err" | head -40
check_rc 1 "destination read-only midway"
[ "$(wc -l <"$T/err")" -le 12 ] || fail "$(wc -l <"$T/err") lines for a destination read-only midway"
check_grep "items? not copied" "$T/err" "the summary does not say what was not copied"
while IFS= read -r -d '' f; do
	case $f in */.fcp-*/*) continue ;; esac
	cmp -s "$f" "mid_src/${f#"$T/mid/dst/mid_src/"}" || fail "partial or wrong file left: $f"
done < <(find "$T/mid/dst" -type f -print0)

# A full destination: one line for the first file that did not fit.
t_mount_fs tmpfs 2m "$T/full"
for threads in 1 4; do
	rm -rf "$T/full/dst"
	mkdir -p "$T/full/dst/src/a" "$T/full/dst/src/b" "$T/full/dst/src/c"
	run_fcp -j $threads src "$T/full/dst"
	check_rc 1 "full destination (-j $threads)"
	check_eq "$(grep -c 'No space left on device' "$T/err")" 1 \
		"error lines for a full destination (-j $threads)"
	check_grep "items? not copied" "$T/err" "the summary does not say what was not copied"
	check_no_temp "$T/full"
done
# Over quota, and full, as faultfs reports it: every write after the first
# 200 KB fails, so the files in flight on every worker meet it at once.
mkdir fault_backing
faultfs_mount fault_backing "$T/fault" --edquot-after=200000
for threads in 1 4; do
	rm -rf fault_backing/dst
	mkdir -p fault_backing/dst/src/a fault_backing/dst/src/b fault_backing/dst/src/c
	run_fcp -j $threads src "$T/fault/dst"
	check_rc 1 "over quota (-j $threads)"
	check_eq "$(grep -c 'Disk quota exceeded' "$T/err")" 1 \
		"error lines for a destination over quota (-j $threads)"
	check_grep "items? not copied" "$T/err" "the summary does not say what was not copied"
	check_no_temp fault_backing
done
echo "a destination that refuses writes stops the copy with one line"
