#!/bin/bash
# fastcp-bench compare: a good command is timed, a wrong copy and a failing
# command are reported FAILED (exit 1), bad input is refused (exit 2), the
# JSON parses, the SVG is well-formed with axes and series, and nothing is
# left behind or deleted outside the destinations the bench made.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH (run make all)"
B=$FASTCP_BENCH

check "$B" gen small src --scale 0.002 >/dev/null
# a canary outside the tree, reachable through a symlink in the source: the
# removal of each copy must never follow it
mkdir canary && echo keep >canary/file
ln -s "$T/canary" src/to_canary

cmds=('cp -a {src} {dst}' 'mkdir {dst} # {src}' 'false {src} {dst}')
[ -x "$FASTCP" ] && cmds+=("$FASTCP {src} {dst}")
"$B" compare --rounds 2 --warm --json c.json --svg c.svg src -- "${cmds[@]}" >report 2>progress
rc=$?
cat report
check_eq "$rc" 1 "exit status with a FAILED command"
check_grep '^\| 1 \| `cp -a \{src\} \{dst\}` \| 2/2 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9]+ \|' report \
	"no timed row for cp -a"
check_grep '^\| 2 \| `mkdir \{dst\} # \{src\}` \| 0/2 \| FAILED' report "wrong copy not FAILED"
check_grep 'FAILED: command 2, round 1: wrong copy' report "wrong copy not explained"
check_grep 'FAILED: command 3, round 2: the command failed \(exit status 1\)' report "failing command not explained"
check_grep 'median s \| min s \| max s \| sync s \| MB/s \| files/s \| user s \| sys s \| peak RSS MiB \| time vs #1' report
if [ -x "$FASTCP" ]; then
	grep -q "^| 4 | \`$FASTCP {src} {dst}\` | 2/2 |" report || note "fastcp did not verify in both runs (see report)"
fi
# The order of the runs: each round runs every command once, and the
# second does not begin with the command that ended the first.
order=$(grep '^round' progress | awk '{ $1 = $2 = ""; print }' | while read -r line; do
	for i in "${!cmds[@]}"; do
		case $line in "${cmds[$i]}"*) printf '%s' $((i + 1)) ;; esac
	done
done)
n=${#cmds[@]} all=$(seq -s '' 1 ${#cmds[@]})
check_eq "$(echo "${order:0:n}" | fold -w1 | sort | tr -d '\n')" "$all" "round 1 ($order)"
check_eq "$(echo "${order:n:n}" | fold -w1 | sort | tr -d '\n')" "$all" "round 2 ($order)"
[ "${order:n-1:1}" != "${order:n:1}" ] || fail "a command ran twice in a row ($order)"
check_file canary/file "the canary behind a symlink was deleted"
check_eq "$(ls -d fastcp-bench.* 2>/dev/null | wc -l)" 0 "work directory left behind"

python3 - c.json <<'PY' || fail "compare --json is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "compare" and d["rounds"] == 2 and d["cache"] == "warm"
c = d["commands"]
assert c[0]["ok_runs"] == 2 and c[0]["median_s"] > 0 and len(c[0]["runs"]) == 2
assert 0 <= c[0]["sync_s"] <= c[0]["max_s"]
assert all(0 <= r["sync_s"] <= r["wall_s"] for r in c[0]["runs"])
assert c[1]["ok_runs"] == 0 and "wrong copy" in c[1]["runs"][0]["error"]
assert c[2]["failed_runs"] == 2
PY
if command -v xmllint >/dev/null; then
	xmllint --noout c.svg || fail "compare --svg is not well-formed XML"
fi
python3 - c.svg <<'PY' || fail "compare --svg lacks axes or series"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
r = ET.parse(sys.argv[1]).getroot()
g = [e.get("class") for e in r.iter(ns + "g")]
assert "axis x" in g and "axis y" in g, g
assert g.count("series") >= 3, g
text = " ".join(t.text or "" for t in r.iter(ns + "text"))
assert "wall time (s)" in text and "FAILED" in text and "cp -a" in text
# Each bar's value label starts right of its whisker's end, so that no line
# crosses the figure it is read by.
bars = 0
for s in r.iter(ns + "g"):
    if s.get("class") != "series" or s.find(ns + "rect") is None:
        continue
    bars += 1
    line, label = s.find(ns + "line"), s.find(ns + "text")
    whisker_end = max(float(line.get("x1")), float(line.get("x2")))
    assert float(label.get("x")) > whisker_end, (s.get("data-name"), label.get("x"), whisker_end)
    assert float(label.get("x")) + 6 * len(label.text) <= float(r.get("width")), label.text
assert bars >= 2, bars
PY

# bad input: clear messages, exit 2, nothing run
"$B" compare src -- 'cp -a {src} /tmp/x' >out 2>&1; check_eq "$?" 2 "missing placeholder"
check_grep "has no \{dst\} placeholder" out
"$B" compare src -- 'cp -a {src}/. {dst}' 'rsync {dst}' >out 2>&1; check_eq "$?" 2 "missing {src}"
check_grep "command 2 'rsync \{dst\}' has no \{src\} placeholder" out
"$B" compare canary/file -- 'cp -a {src} {dst}' >out 2>&1; check_eq "$?" 2 "SRC not a directory"
check_grep "is not a directory" out
"$B" compare no/such -- 'cp -a {src} {dst}' >out 2>&1; check_eq "$?" 2 "missing SRC"
check_grep "cannot use source 'no/such': No such file or directory" out
"$B" compare src 'cp -a {src} {dst}' >out 2>&1; check_eq "$?" 2 "missing --"
check_grep "missing '--'" out
"$B" compare --rounds 0 src -- 'cp -a {src} {dst}' >out 2>&1; check_eq "$?" 2 "--rounds 0"
"$B" compare --cold --warm src -- 'cp -a {src} {dst}' >out 2>&1; check_eq "$?" 2 "--cold --warm"

# --warmup: untimed runs first, through one drawn order of the commands,
# then the same rounds as without it; the report and the JSON say so.
"$B" compare --rounds 1 --warmup 3 --warm --json w.json src -- 'cp -a {src} {dst}' \
	'cp -r {src} {dst}' >report 2>progress
check_eq "$?" 0 "compare --warmup 3"
seq=$(grep -E '^(warm-up|round)' progress | sed -E 's/^(warm-up|round [0-9]+) +//; s/ \{src\}.*//' |
	tr -d ' ' | tr '\n' ' ')
check_eq "$(grep -c '^warm-up' progress)" 3 "number of warm-up runs"
echo "$seq" | awk '{ if (NF != 5) exit 1; for (i = 2; i <= NF; i++) if ($i == $(i - 1)) exit 1 }' ||
	fail "a run of two commands followed a run of the same command: $seq"
check_grep '^Protocol: 1 interleaved round after 3 untimed warm-up runs, runs in an order drawn from seed [0-9]+;' report
check_grep '^\| 1 \| `cp -a \{src\} \{dst\}` \| 1/1 \|' report "warm-up runs were counted"
seed=$(sed -nE 's/.*drawn from seed ([0-9]+);.*/\1/p' report)
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["warmup_runs"] == 3 and d["order_seed"] == int(sys.argv[2]) and all(len(c["runs"]) == 1 for c in d["commands"])' w.json "$seed" ||
	fail "compare --warmup: JSON is wrong"

# The order: five commands, one warm-up run and three rounds. Each round
# runs every command once; no command follows the same one twice (20
# pairs, 15 of them used); the same seed gives the same order, and the
# default seed (from SRC and the commands) is the same each time. Over
# several seeds the runs right after a given command - after a slow one,
# the slow runs - fall on every other command, not on the first one.
five=()
for i in 1 2 3 4 5; do five+=("cp -a {src} {dst} #$i"); done
order() {
	"$B" compare --rounds 3 --warmup 1 --warm "$@" src -- "${five[@]}" >report 2>progress ||
		fail "compare with five commands $*"
	grep -E '^(warm-up|round)' progress | sed -E 's/.*#([1-5]).*/\1/' | tr -d '\n'
}
followers=
for s in 1 2 3 4 5 6 7 8; do
	seq=$(order --seed "$s")
	check_eq "$(order --seed "$s")" "$seq" "seed $s gives the same order again"
	for r in 1 2 3; do
		check_eq "$(echo "${seq:$((5 * r - 4)):5}" | fold -w1 | sort | tr -d '\n')" 12345 \
			"round $r of seed $s ($seq) runs each command once"
	done
	pairs=$(echo "$seq" | fold -w1 | awk 'NR > 1 { print p $1 } { p = $1 }' | sort | uniq -d)
	check_eq "$pairs" "" "seed $s ($seq): a command followed the same one twice"
	followers="$followers$(echo "$seq" | grep -oE '5[1-4]' | cut -c2)"
done
check_eq "$(echo "$followers" | fold -w1 | sort -u | tr -d '\n')" 1234 \
	"the runs right after command 5 fell on every other command ($followers)"
seq=$(order)
check_eq "$(order)" "$seq" "the default seed gives the same order again"
"$B" compare --warmup 101 src -- 'cp -a {src} {dst}' >out 2>&1; check_eq "$?" 2 "--warmup 101"
check_grep "invalid --warmup '101'" out
"$B" compare --seed 4294967296 src -- 'cp -a {src} {dst}' >out 2>&1; check_eq "$?" 2 "--seed too large"
check_grep "invalid --seed '4294967296'" out

# --cold as root drops the whole machine's page cache: it says so, once
if [ "$(id -u)" = 0 ]; then
	"$B" compare --rounds 1 --warmup 0 src -- 'cp -a {src} {dst}' >out 2>err ||
		{ cat err; fail "a default (cold) run as root failed"; }
	check_eq "$(grep -c "page cache of the whole machine is dropped" err)" 1 \
		"the cache drop is said once on stderr"
fi

# --cold without root: runs, and says in the report that the cache was kept
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -m 777 nr && cp -a src nr/src && chmod -R a+rX nr/src
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$B" compare --cold --rounds 1 nr/src -- 'cp -r {src} {dst}' >out 2>&1 ||
		{ cat out; fail "--cold as non-root failed"; }
	check_grep 'WARNING: --cold without root: the page cache was NOT dropped' out
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$B" compare --fresh-fs xfs nr/src -- 'cp -r {src} {dst}' >out 2>&1
	check_eq "$?" 2 "--fresh-fs as non-root"
	check_grep "fresh-fs needs root" out
else
	note "not root: the non-root checks of --cold and --fresh-fs are covered by root runs only"
fi
echo "compare: ok"
