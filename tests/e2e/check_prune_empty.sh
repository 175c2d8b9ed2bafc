#!/bin/bash
# --check judges by the copy's own rule: under -m a directory that the
# filters leave empty (or that is empty) is not in DEST, and is no
# difference. --check -m named every one of them "missing in DEST" (exit 1
# on a correct copy). A directory that is missing although something in
# it would have been copied is named, once (not each file in it), and a
# missing file in a directory that is there is named as before.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

mkdir -p src/logs/sub src/keep src/empty src/mixed/empty src/gone/deeper/x
echo l >src/logs/a.log
echo l >src/logs/sub/b.log
echo k >src/keep/k
echo m >src/mixed/m
for i in 1 2 3 4 5 6 7 8; do echo "g$i" >"src/gone/deeper/x/f$i"; done
echo g >src/gone/g
ln -s k src/keep/link

run_fcp -m --exclude '*.log' -T src dst
check_rc 0
check_absent dst/logs "-m prunes what the filters leave empty"
check_absent dst/empty
cp -a dst dst.before

# A correct copy: no difference.
run_fcp --check -m --exclude '*.log' -T src dst
check_rc 0
check_nogrep "missing in DEST" "$T/all"
check_tree dst.before dst

# A directory with files gone from DEST: named once, with its path.
rm -rf dst/gone dst/keep/k
touch -r dst.before dst
run_fcp --check -m --exclude '*.log' -T src dst
check_rc 1
check_grep "missing in DEST: 'dst/gone'$" "$T/out"
check_eq "$(grep -c "missing in DEST" "$T/out")" 2 "two differences"
check_grep "missing in DEST: 'dst/keep/k'" "$T/out"
check_nogrep "logs|empty" "$T/out"
# Without -m the pruned directories are differences (the copy without
# -m would have made them).
run_fcp --check --exclude '*.log' -T src dst
check_rc 1
check_grep "missing in DEST: 'dst/logs'" "$T/out"
echo PASS
