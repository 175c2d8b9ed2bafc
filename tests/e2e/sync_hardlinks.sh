#!/bin/bash
# --sync and --dry-run keep hard links: a copy whose names of one source
# inode are separate files at the destination (however up to date each
# looks) is linked again into one inode; a dry run says "link" for every
# name after the first that a copy would link; an unchanged linked copy is
# left alone; a changed file is copied once and all its names linked.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

mkdir -p src/x src/many
echo one >src/a
ln src/a src/b
ln src/a src/x/c
for i in $(seq 1 40); do echo "$i" >src/many/f$i; done # a batched directory
ln src/many/f7 src/many/g7
ln src/many/f7 src/x/h7
touch -d @1500000000 src/a src/many/f7

inos() { stat -c %i "$@" | sort -u | wc -l; }

# A dry run of a new copy: one copy, then links.
run_fcp --dry-run -T src dst
check_rc 0 "dry run of a new copy"
check_eq "$(grep -c "^link " "$T/out")" 4 "link lines of a dry run"
check_absent dst

run_fcp -T src dst
check_rc 0 "first copy"
check_tree src dst

# Unchanged: nothing said but "unchanged", nothing touched.
snap() { (cd dst && find . -printf '%i %n %C@ %p\n' | sort -k4); }
snap >before
run_fcp --sync --dry-run -T src dst
check_nogrep "^(link|copy|update)" "$T/out"
run_fcp --sync -T src dst
check_rc 0 "unchanged re-run"
snap >after
diff before after >/dev/null || { diff before after; fail "an unchanged re-run touched the copy"; }

# Names made separate files at the destination, each up to date by the
# quick check: linked again. The dry run says so first.
for n in b x/c many/g7 x/h7; do
	rm dst/$n
	cp -p src/$n dst/$n
done
check_eq "$(inos dst/a dst/b dst/x/c)" 3 "setup: separate inodes"
run_fcp --sync --dry-run -T src dst
check_rc 0 "dry run over separate names"
check_eq "$(grep -c "^link " "$T/out")" 4 "link lines over separate names"
check_eq "$(inos dst/a dst/b dst/x/c)" 3 "a dry run linked"
run_fcp --sync -T src dst
check_rc 0 "--sync over separate names"
check_tree src dst
check_eq "$(inos dst/a dst/b dst/x/c)" 1 "names of one inode after --sync"
check_eq "$(inos dst/many/f7 dst/many/g7 dst/x/h7)" 1 "batched names of one inode after --sync"

# A changed file: copied once, every name linked to the new copy.
echo changed >>src/a
run_fcp --sync -v -T src dst
check_rc 0 "--sync after a change"
check_tree src dst
check_grep "^fastcp: copied 1 file .* 2 hard links" "$T/err"
check_eq "$(inos dst/a dst/b dst/x/c)" 1 "names of one inode after a change"

# Names of one inode planned by several workers at once: a name claimed
# while the first name is being found up to date is up to date too, not
# linked again (FCP_TEST_HL_FIRST_DELAY holds each first name after its
# claim, so that the other workers claim theirs meanwhile).
mkdir -p src/wide/d1
for f in 1 2 3 4; do echo "$f" >src/wide/d1/f$f; done
for d in $(seq 2 24); do
	mkdir src/wide/d$d
	for f in 1 2 3 4; do ln src/wide/d1/f$f src/wide/d$d/f$f; done
done
run_fcp --sync -T src dst
check_rc 0 "copy of the wide linked tree"
snap >before
FCP_TEST_HL_FIRST_DELAY=20000 run_fcp -v -j 8 --sync -T src dst
check_rc 0 "unchanged re-run, first names held"
check_grep "^fastcp: copied 0 files \(0 B\), 0 directories, 0 symlinks, 0 hard links," "$T/err"
snap >after
diff before after >/dev/null || { diff before after | head; fail "an unchanged re-run relinked names"; }
check_tree src dst
echo PASS
