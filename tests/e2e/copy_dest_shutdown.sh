#!/bin/bash
# A destination that fails as a whole in the middle of a copy (XFS shut
# down, as after a metadata I/O error: xfs_io -x -c shutdown) stops the
# copy once, with one clear line, instead of one "Input/output error" line
# per remaining file (5,643 of them before): an EIO, ENODEV or ENOTCONN
# whose destination directory cannot even be stat'ed any more is a stop,
# like a full or read-only destination; what was in flight or not started
# counts as not copied. On the io_uring and the synchronous path, into a
# new root copy and into a directory that exists.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "an XFS loop filesystem to shut down needs root"
need_cmd xfs_io mkfs.xfs

mkdir src
for d in $(seq 1 20); do
	mkdir "src/d$d"
	for i in $(seq 1 150); do head -c 4096 /dev/urandom >"src/d$d/f$i"; done
done
find src -type f -exec md5sum {} + | sort >src.sums

n=0
for opts in "" "--no-io-uring" "-T" "-T --no-io-uring"; do
	n=$((n + 1))
	M=$T/m$n
	t_mount_fs xfs 300M "$M"
	case $opts in -T*) dst=$M/dst && mkdir "$dst" ;; *) dst=$M/ ;; esac
	# --bwlimit: 12 MB take 3 s, so that the shutdown comes midway.
	# shellcheck disable=SC2086
	"$FASTCP" -j 4 --bwlimit 4M $opts src "$dst" >"$T/out" 2>"$T/err" &
	pid=$!
	for _ in $(seq 1 400); do
		[ "$(find "$M" -type f 2>/dev/null | wc -l)" -ge 30 ] && break
		sleep 0.02
	done
	xfs_io -x -c shutdown "$M" || fail "xfs_io shutdown $M"
	timeout 60 tail --pid="$pid" -f /dev/null || fail "fastcp did not end after the shutdown"
	wait "$pid"
	rc=$?
	sed 's/^/  err| /' "$T/err"
	check_eq "$rc" 1 "exit status after the shutdown ($opts)"
	check_eq "$(grep -c "fails as a whole (Input/output error): stopping, nothing new is started" "$T/err")" 1 \
		"the stop said once ($opts)"
	check_grep "^fastcp: the destination '$M/[^']*' fails as a whole" "$T/err"
	eio=$(grep -c "Input/output error" "$T/err")
	[ "$eio" -le 4 ] || fail "$eio lines of Input/output error ($opts): not one stop"
	check_grep "^fastcp: [0-9]+ items not copied" "$T/err"
	# The source is as it was.
	find src -type f -exec md5sum {} + | sort | cmp -s - src.sums || fail "the source changed"
done
echo "a destination shut down stops the copy once"
