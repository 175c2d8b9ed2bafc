#!/bin/bash
# fastcp-bench files with small maxima: the table, JSON, SVG and cleanup.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH (run make all)"
B=$FASTCP_BENCH
mkdir d
"$B" files --max-large 2M --small-files 40 --json f.json --svg f.svg d >report 2>progress ||
	{ cat report progress; fail "files failed"; }
cat report
check_grep '^\| Large MiB \| Write MB/s \| Read MB/s \| Small KiB \| Write MB/s \| Read MB/s \| Write ms/file \| Read ms/file \| Delete s \|' report
check_grep '^\| 1 \| [0-9.]+ \| [0-9.]+ \| 2 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|' report
check_grep '^\| 2 \| [0-9.]+ \| [0-9.]+ \| 4 \|' report
check_nogrep '^\| 4 \|' report
check_eq "$(ls -A d | wc -l)" 0 "files left files behind"
python3 - f.json <<'PY' || fail "files --json is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "files" and d["small_files"] == 40 and len(d["pairs"]) == 2
p = d["pairs"][1]
assert p["large_bytes"] == 2 << 20 and p["small_bytes"] == 4096 and p["delete_s"] > 0
PY
if command -v xmllint >/dev/null; then xmllint --noout f.svg || fail "files --svg not well-formed"; fi
python3 - f.svg <<'PY' || fail "files --svg lacks axes or series"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
r = ET.parse(sys.argv[1]).getroot()
series = [e.get("data-name") for e in r.iter(ns + "g") if e.get("class") == "series"]
assert {"large write", "large read", "small write", "small read"} <= set(series), series
text = " ".join(t.text or "" for t in r.iter(ns + "text"))
assert "MB/s" in text and "ms per file" in text and "2M/4K" in text
PY
"$B" files --max-large 512K d >out 2>&1; check_eq "$?" 2 "bad --max-large"
"$B" files >out 2>&1; check_eq "$?" 2 "missing PATH"
echo "files: ok"
