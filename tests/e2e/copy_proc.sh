#!/bin/bash
# Files that report size 0 but have content, as in /proc, are copied by
# reading until EOF.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
[ -r /proc/version ] || skip "no /proc"

[ "$(stat -c %s /proc/version)" = 0 ] || note "/proc/version reports a size here"
run_fcp /proc/version "$T/version"
check_rc 0
check_file "$T/version"
[ -s "$T/version" ] || fail "copy of /proc/version is empty"
cmp "$T/version" /proc/version || fail "copy of /proc/version differs"

run_fcp /proc/self/status "$T/status"
check_rc 0
[ -s "$T/status" ] || fail "copy of /proc/self/status is empty"
check_grep '^Name:' "$T/status"
check_grep '^Pid:' "$T/status"

# Several such files through the directory path, with the default threads.
mkdir "$T/d"
run_fcp /proc/version /proc/cpuinfo /proc/meminfo "$T/d"
check_rc 0
for f in version cpuinfo meminfo; do
	[ -s "$T/d/$f" ] || fail "copy of /proc/$f is empty"
done
check_grep '^processor' "$T/d/cpuinfo"
check_no_temp "$T"
echo "/proc files copied"
