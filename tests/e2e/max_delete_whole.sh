#!/bin/bash
# --max-delete: a directory to delete, an extra or one in the way of a
# file, counts with everything in it and goes whole or not at all, never
# emptied and then refused; the dry run names exactly what the run does
# (man fastcp, --max-delete). Each case has a single deletion to decide,
# so no order between deletions matters.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
. "$TESTLIB/dryrun.sh" || exit 1
t_init
need_fastcp
need_cmd getfattr

# t3: a directory (holding one file) where the source has a file.
in_way() { mkdir -p s d/t3; echo n >s/t3; echo o >d/t3/old; }
# x: an extra directory holding two files.
extra_dir() { mkdir -p s d/x; echo k >s/k; echo 1 >d/x/a; echo 2 >d/x/b; }
for j in "" -j1 -j4; do
	dry_equals_real "in_way1$j" in_way d $j --mirror --max-delete 1 -T s d
	dry_equals_real "in_way2$j" in_way d $j --mirror --max-delete 2 -T s d
	dry_equals_real "extra2$j" extra_dir d $j --mirror --max-delete 2 -T s d
	dry_equals_real "extra3$j" extra_dir d $j --mirror --max-delete 3 -T s d
done

cd "$T" && mkdir one && cd one || fail "cd one"
in_way
run_fcp --mirror --max-delete 1 -T s d
check_rc 1 "--max-delete 1"
check_file d/t3/old "a directory in the way was emptied, then refused"
check_grep "^fastcp: --max-delete 1 reached: not deleting 'd/t3'\$" "$T/err"
cd "$T" && mkdir two && cd two || fail "cd two"
extra_dir
run_fcp --mirror --max-delete 2 -T s d
check_rc 1 "--max-delete 2"
check_file d/x/a "an extra directory was emptied, then refused"
check_file d/x/b "an extra directory was emptied, then refused"
check_grep "^fastcp: --max-delete 2 reached: not deleting 'd/x'\$" "$T/err"
echo PASS
