#!/bin/bash
# fastcp-bench disk at a tiny size: every table, JSON and SVG, cleanup.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH (run make all)"
B=$FASTCP_BENCH
mkdir d
"$B" disk --files 2 --size 256K --max-block 64K --max-span 2M --duration 0.02 \
	--json d.json --svg d.svg d >report 2>progress || { cat report progress; fail "disk failed"; }
cat report
for t in 'Write MB/s' 'Read MB/s' 'Write CPU utilisation % \(per CPU\)' \
	 'Read CPU utilisation % \(per CPU\)' 'Buffer re-read' 'Random read 1 KiB'; do
	check_grep "^$t" report
done
check_grep '^\| Block KiB \| File 1 \| File 2 \| I/O \|' report
check_grep '^\| 64 \| [0-9.]+ \| [0-9.]+ \| (direct|buffered) \|' report "no 64 KiB row"
check_grep '^\| 2 \| [0-9.]+ \| [0-9]+ \|' report "no 2 MiB latency row"
check_grep '^\| 4 \| - \| - \| - \| beyond --max-span' report
check_eq "$(ls -A d | wc -l)" 0 "disk left files behind"
python3 - d.json <<'PY' || fail "disk --json is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "disk" and len(d["blocks"]) == 7 and d["blocks"][0]["block"] == 1024
assert len(d["blocks"][6]["write"]) == 2 and d["blocks"][6]["read"][1]["mb_per_s"] > 0
assert d["random_read"][1]["measured"] and not d["random_read"][2]["measured"]
PY
if command -v xmllint >/dev/null; then xmllint --noout d.svg || fail "disk --svg not well-formed"; fi
python3 - d.svg <<'PY' || fail "disk --svg lacks axes or series"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
r = ET.parse(sys.argv[1]).getroot()
series = [e.get("data-name") for e in r.iter(ns + "g") if e.get("class") == "series"]
axes = [e.get("class") for e in r.iter(ns + "g") if (e.get("class") or "").startswith("axis")]
assert {"write", "read", "buffer re-read", "1 KiB random read"} <= set(series), series
assert axes.count("axis x") == 2 and axes.count("axis y") == 2, axes
text = " ".join(t.text or "" for t in r.iter(ns + "text"))
assert "MB/s" in text and "ms per read" in text and "block size" in text and "64K" in text
PY
"$B" disk --cached --files 1 --size 64K --max-block 4K --duration 0.01 d >report 2>&1 ||
	{ cat report; fail "disk --cached failed"; }
check_grep '\| 4 \| [0-9.]+ \| cached \|' report "--cached rows"
"$B" disk --max-block 3K d >out 2>&1; check_eq "$?" 2 "bad --max-block"
check_grep "invalid --max-block '3K'" out
"$B" disk --size 1K --max-block 4K d >out 2>&1; check_eq "$?" 2 "size below block"
"$B" disk >out 2>&1; check_eq "$?" 2 "missing PATH"
"$B" disk no/such >out 2>&1; [ $? -ne 0 ] || fail "missing PATH accepted"
check_grep "cannot use 'no/such': No such file or directory" out
echo "disk: ok"
