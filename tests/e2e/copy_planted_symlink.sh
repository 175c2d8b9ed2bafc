#!/bin/bash
# A destination that contains planted symlinks to places outside it: copying
# onto it must never write outside the destination. Each planted link is
# either replaced or reported, but the outside stays exactly as it was.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p src/sub src/deeper/sub2 outside/dir dst/deeper
printf 'new\n' >src/sub/x
printf 'new\n' >src/file
printf 'new\n' >src/deeper/sub2/y
printf 'outside\n' >outside/target
touch -d "$T_TIME1" outside/target outside/dir outside
ln -s "$T/outside/dir" dst/sub          # where the copy puts a directory
ln -s "$T/outside/target" dst/file      # where the copy puts a file
ln -s ../../outside/dir dst/deeper/sub2 # relative, one level down

snapshot() { (cd "$T/outside" && find . -printf '%p %y %s %T@ %m\n' | sort; cat target); }
before=$(snapshot)

run_fcp -T src dst
[ "$RC" = 0 ] || [ "$RC" = 1 ] || fail "exit $RC"
check_eq "$(snapshot)" "$before" "something was written outside the destination"
check_no_temp "$T"

# What the copy did with each link: replaced by the real thing, or left as a
# reported error; never followed.
if [ "$RC" = 0 ]; then
	check_dir dst/sub
	check_file dst/sub/x
	check_file dst/file
	check_dir dst/deeper/sub2
	check_file dst/deeper/sub2/y
else
	check_grep "^fastcp: " "$T/err"
fi

# The same with the planted links inside a destination directory reached
# through the normal "into DIR" rule.
mkdir -p dst2/src
ln -s "$T/outside/dir" dst2/src/sub
ln -s "$T/outside/target" dst2/src/file
run_fcp src dst2
[ "$RC" = 0 ] || [ "$RC" = 1 ] || fail "exit $RC"
check_eq "$(snapshot)" "$before" "something was written outside the destination (into DIR)"
check_no_temp "$T"
echo "planted symlinks did not redirect any write"
