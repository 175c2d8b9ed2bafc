#!/bin/bash
# The scenario tester tested: each invariant catches a planted defect. Every
# mutant (tests/scenario/selftest.py) is a wrapper around fastcp that runs it
# and then misbehaves in one way; a fixed scenario must pass with the real
# fastcp and fail with the wrapper, on the invariant the mutant names.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd setfattr
py=/usr/bin/python3
[ -x $py ] || skip "python3 not installed (Debian package python3)"
# As root each scenario runs in a mount namespace of its own (its bind and
# tmpfs mounts go with it); a chroot, whose root is no mount point, cannot
# make one.
[ "$(id -u)" != 0 ] || unshare -m --propagation private true 2>/dev/null ||
	skip "no private mount namespace can be made here (a chroot?): the scenarios' mounts would outlive them"
top=$(cd "$TESTLIB/../.." && pwd)
FASTCP=$FASTCP SCENARIO_DIR=$T $py "$top/tests/scenario/scenario.py" selftest >"$T/log" 2>&1
rc=$?
cat "$T/log"
[ $rc = 0 ] || fail "a planted defect was not caught by its invariant (above)"
n=$(grep -c '^ok ' "$T/log")
[ "$n" -ge 20 ] || fail "only $n mutants caught"
