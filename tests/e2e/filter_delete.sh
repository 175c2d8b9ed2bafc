#!/bin/bash
# Issue 18: with --delete (and --mirror), a destination entry that a rule
# excludes is not deleted, whether the source has it or not, unless
# --delete-excluded is given (rsync's behaviour); one left out by size or
# time stays even then; what no rule excludes and the source lacks goes,
# but an extra directory keeps what a rule excludes inside it.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p src/d src/logs
printf 'a\n' >src/a.txt
printf 'o\n' >src/d/x.o
printf 'l\n' >src/logs/l
head -c 5000 /dev/zero >src/big
run_fcp -T src dst
check_rc 0
mkdir -p dst/d/extra.dir dst/cache
printf 'e\n' >dst/d/extra.o     # excluded, the source lacks it: stays
printf 'e\n' >dst/gone.txt      # not excluded, the source lacks it: goes
printf 'c\n' >dst/cache/c       # an excluded directory: stays
mkdir -p dst/mixed/sub          # an extra directory holding an excluded file:
printf 'k\n' >dst/mixed/sub/k.o # stays with it (as rsync), the rest goes
printf 'g\n' >dst/mixed/go
printf 'g\n' >dst/mixed/sub/go

run_fcp -v --delete --exclude '*.o' --exclude 'cache/' --exclude '/logs' --max-size 1K -T src dst
check_rc 0 "--delete with excludes"
check_file dst/d/x.o "an excluded file with a source deleted"
check_file dst/d/extra.o "an excluded file without a source deleted"
check_file dst/cache/c "an excluded directory deleted"
check_file dst/logs/l "an excluded anchored directory deleted"
check_file dst/big "a file over --max-size deleted"
check_absent dst/gone.txt "an extra no rule excludes"
check_absent dst/d/extra.dir "an extra directory no rule excludes"
check_file dst/mixed/sub/k.o "an excluded file inside an extra directory deleted"
check_absent dst/mixed/go
check_absent dst/mixed/sub/go
check_grep "deletions held back in 'dst/mixed/sub': it holds excluded entries" "$T/err"

run_fcp -v --mirror --delete-excluded --exclude '*.o' --exclude 'cache/' --exclude '/logs' \
	--max-size 1K -T src dst
check_rc 0 "--delete-excluded"
check_absent dst/d/x.o
check_absent dst/d/extra.o
check_absent dst/cache
check_absent dst/logs
check_absent dst/mixed
check_file dst/big "--delete-excluded removed a file left out by size"
check_file dst/a.txt

# --delete-excluded implies --delete, as in rsync.
printf 'o\n' >dst/d/y.o
run_fcp --delete-excluded --exclude '*.o' -T src dst
check_rc 0
check_absent dst/d/y.o "--delete-excluded alone"
exit 0
