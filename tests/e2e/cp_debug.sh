#!/bin/bash
# cp's --debug (issue 20): one line per file on stderr, "fastcp: debug:
# 'SRC' -> 'DST': HOW (WHY)", said by the path that copied it: io_uring
# batches for small files, clone / copy_file_range / read/write with the
# reason, chunks for a large file, hard links, files kept by -n. The copy
# is the same as without --debug. (This GNU cp, 9.1, has no --debug to
# compare with: its lines are checked instead.)
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

mkdir -p src/sub
for i in 1 2 3 4 5 6; do echo "small $i" >src/sub/s$i; done
head -c 1048576 /dev/urandom >src/medium
truncate -s 3M src/sparse; echo end >>src/sparse
echo linked >src/h1; ln src/h1 src/h2
: >src/empty

run_fcp --debug src dst
check_rc 0
check_tree src dst
dbg() { grep -Ec "^fastcp: debug: 'src/$1' -> 'dst/$1': $2" "$T/err"; }
check_eq "$(grep -c "^fastcp: debug: " "$T/err")" 11 "one line per file"
[ "$(dbg 'sub/s[0-9]' 'io_uring batch \(')" = 6 ] || [ "$(dbg 'sub/s[0-9]' '(copy_file_range|read/write|clone) \(')" = 6 ] ||
	fail "small files"
check_eq "$(dbg medium '(clone|copy_file_range|read/write) \([a-z-]')" 1 "medium: an engine and why"
check_eq "$(dbg sparse '.*; holes kept \(SEEK_DATA/SEEK_HOLE\)$')" 1 "sparse"
check_eq "$(grep -Ec "'src/h[12]' -> 'dst/h[12]': hard link \(another name" "$T/err")" 1 "hard link"

# The reason follows the options.
mkdir m2; run_fcp --debug --reflink=never --no-io-uring -t m2 src/medium src/sub/s1
check_grep "'src/medium' -> 'm2/medium': (copy_file_range \(--reflink=never|read/write \(--reflink=never)" "$T/err"
run_fcp --debug --sparse=never src/sparse m3
check_grep "'src/sparse' -> 'm3': read/write \(--sparse=never: holes written as zeros\)(; read around the page cache .*)?$" "$T/err"
run_fcp --debug -n src/medium m3
check_grep "'src/medium' -> 'm3': kept: already there" "$T/err"
run_fcp --debug -l src/medium m4
check_grep "'src/medium' -> 'm4': hard link to the source \(-l\)" "$T/err"
# Without --debug: not a line.
run_fcp src d2
check_nogrep "debug" "$T/err"
echo PASS
