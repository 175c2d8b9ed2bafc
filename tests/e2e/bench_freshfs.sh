#!/bin/bash
# fastcp-bench compare --fresh-fs xfs: a new loopback filesystem per run,
# and every mount and loop device gone afterwards, also after SIGTERM.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH (run make all)"
need_root "--fresh-fs needs root"
need_cmd mkfs.xfs losetup
[ -e /dev/loop-control ] || skip "no /dev/loop-control (loop devices unavailable)"
grep -qw xfs /proc/filesystems || modprobe xfs 2>/dev/null
grep -qw xfs /proc/filesystems || skip "kernel has no xfs"
B=$FASTCP_BENCH

leftovers() { # mounts and loop devices that belong to this test's work dir
	grep -c "$T/" /proc/mounts
	losetup -a | grep -c "$T/"
}

check "$B" gen small src --scale 0.002 >/dev/null
"$B" compare --rounds 2 --fresh-fs xfs --fs-size 300M --json c.json src -- \
	'cp -a {src} {dst}' 'stat -f -c %T $(dirname {dst}) > '"$T"'/fstype; cp -a {src} {dst}' \
	>report 2>progress
rc=$?
cat report progress
check_eq "$rc" 0 "compare --fresh-fs exit status"
check_grep 'a fresh xfs loopback filesystem of 300 MiB for every run' report
check_grep '^\| 1 \| `cp -a \{src\} \{dst\}` \| 2/2 \|' report
check_eq "$(cat fstype)" xfs "the destination was not on the fresh xfs"
check_eq "$(leftovers | tr '\n' ' ')" "0 0 " "mounts or loop devices left behind"
check_eq "$(ls -d fastcp-bench.* 2>/dev/null | wc -l)" 0 "work directory left behind"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["fresh_fs"] == "xfs"' c.json ||
	fail "json: fresh_fs"

# interrupted in the middle of a run: still unmounted and detached
"$B" compare --rounds 1 --fresh-fs xfs --fs-size 300M src -- 'sleep 30; cp -a {src} {dst}' \
	>report 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "$T/fastcp-bench" /proc/mounts && break; sleep 0.1; done
grep -q "$T/fastcp-bench" /proc/mounts || { kill $pid; fail "the fresh filesystem was never mounted"; }
kill -TERM $pid
wait $pid
check_eq "$(leftovers | tr '\n' ' ')" "0 0 " "mounts or loop devices left after SIGTERM"
check_eq "$(ls -d fastcp-bench.* 2>/dev/null | wc -l)" 0 "work directory left after SIGTERM"

"$B" compare --fresh-fs nosuchfs src -- 'cp -a {src} {dst}' >out 2>&1
check_eq "$?" 2 "unknown --fresh-fs"
check_grep "unknown --fresh-fs 'nosuchfs'" out
echo "fresh-fs: ok"
