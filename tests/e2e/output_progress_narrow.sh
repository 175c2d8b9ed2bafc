#!/bin/bash
# On a narrow terminal the status line keeps its percent and its ETA
# (issue 35: the ETA was cut first): the fields between them go, and no
# drawn line is wider than the terminal. A pty of 40 columns (script(1)).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd script

mkdir slowsrc
for i in $(seq 1 10); do head -c 64K /dev/urandom >"slowsrc/f$i"; done
faultfs_mount slowsrc slow --delay-ms=300
timeout 120 script -qec "stty cols 40 rows 24; '$FASTCP' --progress=bar -j 1 slow dst" /dev/null \
	>typescript 2>&1 || fail "the copy under script(1) failed: $(tail -c 300 typescript)"
check_tree slowsrc dst
# The drawn lines: each redraw begins with a carriage return.
tr '\r' '\n' <typescript | sed 's/\x1b\[K//g' | grep -E '^ *[0-9]+%' >lines ||
	fail "no status line with a percent was drawn: $(head -c 300 typescript | od -c | head)"
check_grep ' ETA ([0-9]+:[0-9]{2}|-:--)$' lines "no drawn line kept its ETA"
awk 'length($0) > 39 { bad = 1 } END { exit bad }' lines || fail "a drawn line is wider than 39 columns"
echo "a narrow terminal: percent and ETA kept"
