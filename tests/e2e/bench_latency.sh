#!/bin/bash
# fastcp-bench compare --source-latency MS: the commands read the source
# through a FUSE passthrough that waits MS ms in every round trip; the
# report counts the round trips and how many were in flight together. A
# serial reader (cp, one round trip at a time) takes at least its round
# trips times MS and has about one in flight; fastcp overlaps them. The
# served source is read-only, the copy is verified against the real
# source, and nothing stays mounted, also after a SIGINT.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH (run make all)"
need_root "mounting FUSE"
need_cmd python3
[ -c /dev/fuse ] || skip "no /dev/fuse"
"$FASTCP_BENCH" compare --help | grep -q -- --source-latency || fail "compare has no --source-latency"
B=$FASTCP_BENCH

check "$B" gen small src --scale 0.005 >/dev/null
files=$(find src -type f | wc -l)
# Only this test's mounts: another run of the suite on the machine has its own.
mounts() { awk -v d="$T/" '$1 == "fastcp-bench-latfs" && index($2, d) == 1' /proc/mounts | wc -l; }

"$B" compare --rounds 1 --cold --source-latency 5 --json r.json src -- \
	"cp -a {src} {dst}" "$FASTCP -T {src} {dst}" "touch {src}/new && cp -a {src} {dst}" \
	>report 2>progress
rc=$?
cat report progress
check_eq "$rc" 1 "compare exit status (the writing command fails)"
check_grep "waits 5 ms in every round trip" report
check_grep "^\| # \| command \| round trips \| in flight" report
check_eq "$(mounts)" 0 "mounts left after compare"
python3 - "$files" <<'PY' || fail "round trips and latency"
import json, sys
files = int(sys.argv[1])
d = json.load(open("r.json"))
assert d["source_latency_ms"] == 5, d["source_latency_ms"]
cp, fcp, writer = d["commands"]
for c in (cp, fcp):
    assert c["ok_runs"] == 1, c
    # every file is opened and read at least: two round trips each
    assert c["round_trips"] >= 2 * files, (c["command"], c["round_trips"], files)
# cp waits for each round trip in turn
assert cp["in_flight"] < 1.5, cp["in_flight"]
assert cp["median_s"] >= cp["round_trips"] * 0.005 * 0.9 / cp["in_flight"], cp
# fastcp keeps several in flight
assert fcp["in_flight"] > 2, fcp["in_flight"]
assert writer["failed_runs"] == 1, writer
PY
[ -e src/new ] && fail "a command wrote into the served source"

# {rawsrc} is the source itself, not the mount: with 0 ms, the same
# command through both shows the passthrough's own cost; the raw reader
# makes no round trips.
"$B" compare --rounds 1 --cold --source-latency 0 --json r0.json src -- \
	"cp -a {src} {dst}" "cp -a {rawsrc} {dst}" >report0 2>progress0 ||
	{ cat report0 progress0; fail "compare with {rawsrc}"; }
python3 - "$files" <<'PY' || fail "{rawsrc} read through the passthrough"
import json, sys
files = int(sys.argv[1])
served, raw = json.load(open("r0.json"))["commands"]
assert served["ok_runs"] == 1 and raw["ok_runs"] == 1, (served, raw)
assert served["round_trips"] >= 2 * files, served["round_trips"]
assert raw["round_trips"] == 0, raw["round_trips"]
PY

# SIGINT during a run: the server is unmounted and reaped.
"$B" compare --rounds 3 --cold --source-latency 20 src -- "cp -a {src} {dst}" >/dev/null 2>&1 &
pid=$!
for i in $(seq 50); do [ "$(mounts)" -gt 0 ] && break; sleep 0.1; done
check_eq "$(mounts)" 1 "served while running"
sleep 0.5
kill -INT $pid
wait $pid
for i in $(seq 50); do [ "$(mounts)" = 0 ] && break; sleep 0.1; done
check_eq "$(mounts)" 0 "mounts left after SIGINT"
pgrep -f "source-latency 20 src" >/dev/null && fail "a server process is left"
echo PASS
