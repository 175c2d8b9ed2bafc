#!/bin/bash
# fastcp-bench compare --write-limit RATE: during the timed part of each
# run the fresh filesystem's device takes at most RATE bytes a second, the
# final sync included, so a copy of N bytes takes N / RATE at least; the
# limit is gone afterwards (no entry left in the v1 throttle file, no
# cgroup of ours left in v2); it needs --fresh-fs; a bad rate is usage.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH (run make all)"
need_root "loop devices and the block I/O controller"
need_cmd python3 mkfs.xfs
B=$FASTCP_BENCH
v1=/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device
v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
grep -qw io "$v2/cgroup.controllers" 2>/dev/null || v2=
[ -n "$v2" ] || [ -w "$v1" ] || skip "no cgroup v2 io controller and no v1 blkio hierarchy"

mkdir src
head -c $((6 << 20)) /dev/urandom >src/data
check_not "$B" compare --write-limit 1M src -- "cp -a {src} {dst}" 2>err
check_grep "needs --fresh-fs" err
check_not "$B" compare --fresh-fs xfs --write-limit 1Q src -- "cp -a {src} {dst}" 2>err
check_grep "invalid --write-limit" err

"$B" compare --rounds 1 --cold --fresh-fs xfs --write-limit 2M --json r.json src -- \
	"cp -a {src} {dst}" >report 2>progress
rc=$?
cat report progress
check_eq "$rc" 0 "compare with --write-limit"
check_grep "limited to 2.1 MB/s" report
python3 - <<'PY' || fail "a 6 MiB copy at 2 MiB/s took less than 3 s"
import json
d = json.load(open("r.json"))
assert d["write_limit_bps"] == 2 << 20
c = d["commands"][0]
assert c["ok_runs"] == 1 and c["median_s"] >= 3 * 0.9, c
PY
if pgrep -f "fastcp-bench compare" >/dev/null; then
	# v1's limits are the machine's: another compare may have one now
	note "another fastcp-bench compare runs: its limits are not ours to check"
elif [ -n "$v2" ]; then
	ls -d "$v2"/fastcp-bench.* 2>/dev/null && fail "a cgroup of ours is left"
else
	check_eq "$(cat $v1)" "" "a write limit is left on a device"
fi
# Without the limit the same copy is not throttled.
"$B" compare --rounds 1 --cold --fresh-fs xfs --json n.json src -- "cp -a {src} {dst}" \
	>/dev/null 2>&1 || fail "compare without a limit"
python3 -c 'import json; c = json.load(open("n.json"))["commands"][0]; assert c["median_s"] < 2.5, c' ||
	fail "the copy is slow without a limit"
echo PASS
