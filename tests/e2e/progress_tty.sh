#!/bin/bash
# The status line on a real pseudo-terminal (util-linux script): a copy
# from a slow source (faultfs delays every read of the big files) shows
# "counting" until the pre-scan is done, then a percent that never goes
# down, bytes and files done/total and an ETA; an error printed meanwhile
# starts on a cleared line (the status line never tears it); at the end
# the line is cleared and the summary stands in its place.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd script python3

mkdir -p b/sub e dst
for i in 1 2 3 4 5 6; do head -c 1M /dev/urandom >"b/big$i"; done
for i in $(seq 1 20); do echo "$i" >"b/sub/s$i"; done
head -c 1M /dev/urandom >e/bad
faultfs_mount b slow --match='big*' --delay-ms=100
# The failing file is slow too: it fails while the line is shown.
faultfs_mount e failing --match=bad --delay-ms=100 --eio-at=600000

script -qfc "'$FASTCP' -j 2 slow failing/bad dst; echo rc=\$?" "$T/tty" >/dev/null </dev/null
check_grep "rc=1" "$T/tty" "exit status (one file cannot be read)"
check "$TREECMP" b dst/slow
python3 - "$T/tty" <<'PY' || fail "the status line"
import re, sys
raw = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
# What the terminal showed, line by line: \r returns to the start.
parts = re.split(r'\r|\n', raw)
draws = [p.replace('\x1b[K', '') for p in parts if p.endswith('\x1b[K')]
counting = [d for d in draws if d.startswith('counting...')]
pct = [int(m.group(1)) for d in draws if (m := re.match(r'\s*(\d+)% ', d))]
print(f"{len(draws)} draws, {len(counting)} counting, percents {sorted(set(pct))}")
ok = True
if not counting:
    print("no 'counting' line before the totals were known"); ok = False
if any('%' in d or 'ETA' in d for d in counting):
    print("a percent or ETA while counting"); ok = False
if len(set(pct)) < 3:
    print("the percent did not move"); ok = False
if any(b < a for a, b in zip(pct, pct[1:])):
    print("the percent went down:", pct); ok = False
first_pct = next((i for i, d in enumerate(draws) if re.match(r'\s*\d+% ', d)), len(draws))
if any(d.startswith('counting') for d in draws[first_pct:]):
    print("'counting' again after a percent was shown"); ok = False
if not any(re.search(r'\d+/\d+ files, .*/s, .* files/s, \d+:\d\d, ETA \d+:\d\d', d) for d in draws):
    print("no line with files done/total, rates, elapsed and ETA"); ok = False
# An error starts on a clean line: the line was cleared right before it.
err = raw.find("fastcp: cannot")
if err < 0 or not raw[:err].endswith('\r\x1b[K'):
    print("the error message is not on a cleared line:", repr(raw[max(0, err - 40):err + 20])); ok = False
# The end: the line cleared, then the summary.
m = re.search(r'\r\x1b\[K(fastcp: copied 26 files[^\r\n]*)', raw)
if not m:
    print("the summary does not replace the line"); ok = False
elif '\x1b[K' in raw[m.end():] or re.search(r'\r *\d+% ', raw[m.end():]):
    print("the status line was drawn after the summary"); ok = False
sys.exit(0 if ok else 1)
PY
echo "status line: counting, then a forward-only percent, errors on clean lines, the summary at the end"
