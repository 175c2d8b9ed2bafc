#!/bin/bash
# lib/'s floors hold in this tree: no #include and no call goes up a floor
# (scripts/layers.py over the sources and over the objects the binaries
# under test were built from), and no two floors use each other. That the
# checker fails on each kind of violation is tests/e2e/layers_check.sh.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_cmd python3 nm
top=$(cd "$TESTLIB/../.." && pwd)
objs=$(dirname "$FASTCP")/lib
[ -d "$objs" ] || skip "no objects of lib/ beside $FASTCP to read the calls from"
python3 "$top/scripts/layers.py" --graph --top "$top" --objects "$objs" >"$T/out" 2>&1
rc=$?
sed 's/^/  | /' "$T/out"
[ "$rc" = 0 ] || fail "scripts/layers.py: exit $rc, uses that break the rules (above)"
grep -q "every use follows the rules" "$T/out" || fail "layers.py did not say every use follows the rules"
grep -q "floors on a cycle: none" "$T/out" || fail "floors on a cycle"
echo PASS
