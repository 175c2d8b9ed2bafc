#!/bin/bash
# --retries N, --retry-wait S (issue 20): a file whose copy fails with a
# transient error is copied again from scratch. The source is faultfs with
# --eio-first=N: the first N reads of the matching files fail with EIO,
# then the source has recovered.
#   - On every data path (the io_uring batch of small files, the
#     synchronous path of a medium file, a large file in chunks):
#     --retries 2 copies the tree exactly (treecmp), exit 0, and stderr
#     says "retrying 'PATH' (k/3) after: Input/output error".
#   - --retries 0: exit 1, the EIO reported, no retry.
#   - A source gone between the listing and the open (ENOENT) is reported
#     once and never retried.
#   - A stop (SIGINT) during a long --retry-wait ends the copy at once:
#     the file is reported failed, the process dies of the signal.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
FCP_TIMEOUT=120

B=$T/b
mk_ok() { # DIR: files that never match the faults
	mkdir -p "$1"
	head -c 3000 /dev/urandom >"$1/ok_1"
	head -c 150000 /dev/urandom >"$1/ok_2"
}
mk_ok "$B/small" && head -c 5000 /dev/urandom >"$B/small/bad_small"
mk_ok "$B/medium" && head -c 1048576 /dev/urandom >"$B/medium/bad_medium"
# Above FCP_LARGE_MIN (64 MiB, lib/engine/engine.h): chunks, with -j 2.
mk_ok "$B/big" && head -c $((70 << 20)) /dev/urandom >"$B/big/bad_big"
# Same times on both sides for treecmp of the backing tree and the copy.
touch -d "$T_TIME1" "$B"/*/* "$B"/*

C=$T/c # the copies, apart from the test's own files
mkdir -p "$C"
n=0
mnt() { # OPTIONS...: a fresh faultfs (its read count from zero) on $M
	n=$((n + 1))
	M=$T/m$n
	faultfs_mount "$B" "$M" --match='bad_*' "$@"
}

# -j 2: the io_uring batch, which a FUSE source gets with a fixed pool.
for path in "small --reflink=never -j 2" "small --reflink=never --no-io-uring" \
	    "medium --reflink=never" "medium" "big -j 2"; do
	set -- $path
	dir=$1
	shift
	mnt --eio-first=2
	run_fcp --retries 2 --retry-wait 0.1 "$@" "$M/$dir" "$C/ok$n"
	check_rc 0 "--retries 2, $path"
	check_grep "^fastcp: retrying '$M/$dir/bad_$dir' \([23]/3\) after: Input/output error\$" "$T/err"
	check_nogrep "retrying '[^']*/ok_" "$T/err" "a file that never failed was retried"
	check_nogrep "^fastcp: cannot" "$T/err" "a failure reported although the retry succeeded"
	check_tree "$B/$dir" "$C/ok$n"
	check_no_temp_inside "$C/ok$n"

	mnt --eio-first=1000000
	mkdir "$C/no$n"
	run_fcp --retries 0 "$@" "$M/$dir" "$C/no$n/copy"
	check_rc 1 "--retries 0, $path"
	check_grep "'$M/$dir/bad_$dir': Input/output error" "$T/err"
	check_nogrep "retrying" "$T/err" "retried without --retries"
	[ -n "$(find "$C/no$n" -name "bad_$dir")" ] &&
		fail "bad_$dir under its final name after its failure ($path)"
	echo "ok: $path"
done

# Failing for good: retried N times, then reported once, counted once.
mnt --eio-first=1000000
run_fcp --retries 2 --retry-wait 0 --reflink=never "$M/medium/bad_medium" "$C/given_up"
check_rc 1 "a file that never recovers"
check_eq "$(grep -c "retrying" "$T/err")" 2 "retry lines for --retries 2"
check_grep "retrying '$M/medium/bad_medium' \(2/3\) after" "$T/err"
check_grep "retrying '$M/medium/bad_medium' \(3/3\) after" "$T/err"
check_eq "$(grep -c "Input/output error" "$T/err")" 3 "lines naming the EIO"
check_grep "^fastcp: cannot copy '$M/medium/bad_medium': Input/output error\$" "$T/err"
check_absent "$C/given_up"

# ENOENT: bad_gone is listed, then removed while its open is held.
mkdir -p "$B/gone" && echo x >"$B/gone/bad_gone" && echo y >"$B/gone/ok_1"
touch "$T/hold"
mnt --block-open --hold="$T/hold"
( run_fcp --retries 3 --retry-wait 0 --reflink=never --no-io-uring "$M/gone" "$C/gone"
  exit "$RC" ) &
run_pid=$!
faultfs_held "open of /gone/bad_gone"
rm -f "$B/gone/bad_gone" "$T/hold"
wait "$run_pid"
RC=$?
check_rc 1 "a source gone before its open"
check_grep "'$M/gone/bad_gone': No such file or directory" "$T/err"
check_eq "$(grep -c "bad_gone" "$T/err")" 1 "lines naming the vanished source"
check_nogrep "retrying" "$T/err" "ENOENT retried"

# A stop during the wait: no waiting out --retry-wait 600.
mnt --eio-first=1000000
interruptible "$FASTCP" --retries 3 --retry-wait 600 --reflink=never "$M/medium" "$C/stopped" 2>"$T/err" &
pid=$!
for ((i = 0; i < 100; i++)); do
	grep -qs retrying "$T/err" && break
	sleep 0.1
done
check_grep "retrying '$M/medium/bad_medium' \(2/4\)" "$T/err"
kill -INT "$pid"
# Well within the 600 s of the wait; a hang is caught by the timeout.
timeout 20 tail --pid="$pid" -f /dev/null || { kill -KILL "$pid"; fail "not stopped by SIGINT while waiting to retry"; }
wait "$pid"
check_eq "$?" 130 "exit status after SIGINT"
cat "$T/err"
check_grep "^fastcp: cannot copy '$M/medium/bad_medium': Input/output error\$" "$T/err"
check_eq "$(grep -c "retrying" "$T/err")" 1 "retries after the stop"
echo "PASS"
