#!/bin/bash
# --newer-than, --older-than (issue 20): by mtime, for everything but
# directories (which are always entered); WHEN is an ISO date (local
# time), @EPOCH, or an age (s, m, h, d, w) before now; bad values exit 2.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p src/old src/new
printf 'o\n' >src/old/f2001 && touch -m -d @1000000000 src/old/f2001
printf 'o\n' >src/f2020 && touch -m -d '2020-06-15 12:00:00' src/f2020
printf 'n\n' >src/new/fnow
ln -s f2020 src/l2001 && touch -h -m -d @1000000000 src/l2001
touch -m -d @1000000000 src/old src/new # directories: never left out

list() { (cd "$1" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' '); }

run_fcp -v --newer-than 2010-01-01 -T src a
check_rc 0
check_eq "$(list a)" "f2020 new new/fnow old " "--newer-than 2010-01-01"
check_grep "^fastcp: 2 excluded" "$T/err"
run_fcp --older-than '2020-06-15 12:00' -T src b
check_eq "$(list b)" "l2001 new old old/f2001 " "--older-than '2020-06-15 12:00' (at it: left out)"
run_fcp --older-than '2020-06-15T12:00:01' -T src b2
check_eq "$(list b2)" "f2020 l2001 new old old/f2001 " "--older-than 2020-06-15T12:00:01"
run_fcp --newer-than @1000000000 --older-than 1d -T src c
check_eq "$(list c)" "f2020 new old " "--newer-than @EPOCH --older-than 1d"
run_fcp --newer-than 2h -T src d
check_eq "$(list d)" "new new/fnow old " "--newer-than 2h"
run_fcp --newer-than 1w -T src e
check_eq "$(list e)" "new new/fnow old " "--newer-than 1w"

for bad in '' yesterday 2020-13-01 2020-01-01x '2020-01-01 25:00' 5y @-1 @1x 12 2020-1-1; do
	run_fcp --newer-than "$bad" -T src bad
	check_rc 2 "--newer-than '$bad'"
done
check_absent bad
exit 0
