#!/bin/bash
# --prune-empty-dirs (-m, issue 35): in a filtered copy, a directory left
# with nothing in it (everything filtered out, or empty in the source) is
# not kept, as rsync -m does, beside rsync on the same trees. With --delete
# a directory of DEST that the source then has nothing for goes too, unless
# it holds what --delete keeps (an excluded file), as rsync's; without
# --delete one that was there stays. The root copy itself is never pruned;
# --sync re-runs come to the same tree; a filtered --move with -m leaves the
# excluded entries and their directories in the source, without errors.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd rsync

# The issue's case: 100 directories of old files, 5 with a new one.
for i in $(seq 1 100); do
	mkdir -p "s/d$i/sub"
	echo "old $i" >"s/d$i/sub/old.log"
	touch -d '2020-01-01' "s/d$i/sub/old.log"
done
for i in 3 17 42 77 100; do
	echo "new $i" >"s/d$i/new.txt"
done
mkdir -p s/empty/deeper
run_fcp --prune-empty-dirs --newer-than 7d -T s n1
check_rc 0 "-m --newer-than"
check_eq "$(cd n1 && find . -mindepth 1 -type d | LC_ALL=C sort | tr '\n' ' ')" \
	"./d100 ./d17 ./d3 ./d42 ./d77 " "the directories kept by -m"
check_eq "$(find n1 -type f | wc -l)" 5 "the files copied"
check_no_temp n1
# Without -m, all 202 directories come (the control).
run_fcp --newer-than 7d -T s n0
check_eq "$(find n0 -mindepth 1 -type d | wc -l)" 202 "directories without -m"
# A re-run with --sync comes to the same tree, and changes nothing.
state() { (cd "$1" && find . -printf '%p %i %y %s %m %T@\n' | LC_ALL=C sort); }
state n1 >before
run_fcp -m --sync --newer-than 7d -T s n1
check_rc 0 "-m --sync re-run"
state n1 >after
diff before after || fail "a -m --sync re-run changed the copy"

# Beside rsync -m: a rule, and a directory chain with nothing in it.
mkdir -p r/keep r/onlyexcl r/deep/er r/empty
echo a >r/keep/a.txt
echo b >r/onlyexcl/b.log
run_fcp -m --exclude '*.log' -T r f1
check_rc 0
rsync -a -m --exclude '*.log' r/ g1/ || fail "rsync -m"
check_tree g1 f1 --no-times
check_dir f1/keep

# --delete: the pruned directories in DEST go, except one holding an
# excluded file (kept by --delete, as rsync keeps it); another extra
# directory goes as any extra.
mkdp() {
	rm -rf "$1"
	mkdir -p "$1/onlyexcl" "$1/empty" "$1/deep/er" "$1/olddir"
	echo x >"$1/onlyexcl/old.log"
	echo y >"$1/deep/er/stale.txt"
}
mkdp f2
mkdp g2
run_fcp -m --delete --exclude '*.log' -T r f2
check_rc 0 "-m --delete"
rsync -a -m --delete --exclude '*.log' r/ g2/ >/dev/null 2>&1
check_tree g2 f2 --no-times
check_eq "$(cat f2/onlyexcl/old.log)" x "an excluded file --delete keeps"
check_absent f2/deep "a pruned directory with --delete"
# Without --delete, a directory that was there stays, empty or not.
mkdp f3
run_fcp -m --exclude '*.log' -T r f3
check_rc 0
check_dir f3/empty "-m without --delete removed a directory that was there"
check_eq "$(cat f3/deep/er/stale.txt)" y

# The root copy (a hidden copy renamed at the end) is never pruned.
run_fcp -m --exclude '*' -T r f4
check_rc 0 "-m, everything excluded"
check_dir f4 "the root copy pruned"
check_eq "$(ls -A f4 | wc -l)" 0
check_no_temp .
rsync -a -m --exclude '*' r/ g4/ && check_dir g4

# A filtered --move with -m: excluded files and their directories stay in
# the source, with no error; the rest moves.
cp -a r mv
run_fcp --move -m --exclude '*.log' -T mv m1
check_rc 0 "--move -m"
check_nogrep "not removing" "$T/err"
check_eq "$(cat mv/onlyexcl/b.log)" b "an excluded file of a --move"
check_absent mv/keep "a moved directory"
check_eq "$(cat m1/keep/a.txt)" a
check_absent m1/onlyexcl
echo "prune empty dirs ok"
