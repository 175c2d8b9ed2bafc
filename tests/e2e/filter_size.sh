#!/bin/bash
# --min-size, --max-size (issue 20): regular files only, bounds inclusive
# (a file of exactly SIZE is copied, as rsync does), K/M/G suffixes in
# powers of 1024; symlinks, directories and empty directories are not
# affected; bad sizes exit 2.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p src/d/empty
head -c 100 /dev/zero >src/s100
head -c 1023 /dev/zero >src/d/s1023
head -c 1024 /dev/zero >src/d/s1024
head -c 1025 /dev/zero >src/s1025
head -c 3000 /dev/zero >src/s3000
: >src/s0
ln -s s3000 src/link
mkfifo src/fifo

list() { (cd "$1" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' '); }

run_fcp -v --min-size 1K -T src a
check_rc 0
check_eq "$(list a)" "d d/empty d/s1024 fifo link s1025 s3000 " "--min-size 1K"
check_grep "^fastcp: 3 excluded" "$T/err"
run_fcp --max-size 1k -T src b
check_eq "$(list b)" "d d/empty d/s1023 d/s1024 fifo link s0 s100 " "--max-size 1k"
run_fcp --min-size 101 --max-size 1025 -T src c
check_eq "$(list c)" "d d/empty d/s1023 d/s1024 fifo link s1025 " "--min-size 101 --max-size 1025"
run_fcp --max-size 1M -T src e
check_eq "$(list e)" "$(list src)" "--max-size 1M"

for bad in '' -1 1X 1KB 1.5K K 99999999999999999999 9999999999999T; do
	run_fcp --max-size "$bad" -T src bad
	check_rc 2 "--max-size '$bad'"
done
check_absent bad

# Bounds that no file can meet both of are a mistake, not an empty copy
# with exit 0; equal bounds are a size that can be met.
run_fcp --min-size 10 --max-size 5 -T src bad
check_rc 2 "--min-size 10 --max-size 5"
check_grep "^fastcp: --min-size 10 is larger than --max-size 5" "$T/err"
check_absent bad
run_fcp --min-size 100 --max-size 100 -T src f
check_rc 0 "--min-size 100 --max-size 100"
check_eq "$(list f)" "d d/empty fifo link s100 " "--min-size 100 --max-size 100"
exit 0
