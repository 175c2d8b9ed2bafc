#!/bin/bash
# The randomized scenario tester (tests/scenario/scenario.py) in make check:
# a fixed range of seeds (about 2 minutes here; SCENARIO_SEEDS=FROM..TO and
# SCENARIO_SECONDS change it), then every saved regression
# (tests/scenario/regressions/*.json). Each seed makes a world, runs 1-6
# commands with events and kills between them, and checks the invariants
# after every command (README.md beside the tester). A failure prints the
# seed and the command that shrinks it into a reproducing script. Failures
# that tests/scenario/known-defects lists (filed, not yet fixed here) are
# printed as KNOWN and do not fail the test.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
py=/usr/bin/python3
[ -x $py ] || skip "python3 not installed (Debian package python3)"
# As root each scenario runs in a mount namespace of its own (its bind and
# tmpfs mounts go with it); a chroot, whose root is no mount point, cannot
# make one.
[ "$(id -u)" != 0 ] || unshare -m --propagation private true 2>/dev/null ||
	skip "no private mount namespace can be made here (a chroot?): the scenarios' mounts would outlive them"
top=$(cd "$TESTLIB/../.." && pwd)
FASTCP=$FASTCP SCENARIO_DIR=$T $py "$top/tests/scenario/scenario.py" check \
	"${SCENARIO_SEEDS:-1..160}" "${SCENARIO_SECONDS:-300}" >"$T/log" 2>&1
rc=$?
cat "$T/log"
[ $rc = 0 ] || fail "the scenario tester found a failure (above)"
grep -q '^scenario: [1-9][0-9]* seeds' "$T/log" || fail "no seed ran"
