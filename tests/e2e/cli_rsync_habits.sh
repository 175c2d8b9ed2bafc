#!/bin/bash
# rsync's options typed by habit (issue 35). Each works with rsync's meaning
# where it fits fastcp, run beside rsync on the same trees: -A, -X, -h
# (accepted: always on / only printing), --inplace (the file's own inode
# rewritten), --ignore-existing (even with --delete), --size-only (a file
# of the same size is not copied again, its mtime set), --info=progress2
# (the status line), --delete (a quick check: an up-to-date file is not
# written again), --exclude-from - and <(...). The others are refused
# (exit 2), naming fastcp's way: -z, --partial, --remove-source-files.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd rsync

t_mktree src nodeep

# -A, -X, -h: the same copy as rsync -aHAX (fastcp's default).
run_fcp -A -X -h -T src fcp1
check_rc 0 "-A -X -h"
rsync -aHAX --specials --devices src/ rs1/ || fail "rsync -aHAX"
check_tree rs1 fcp1

# A destination both tools update: two copies of one start.
mkdir s
printf 'aaaa\n' >s/same-size
printf 'old\n' >s/grown
printf 'keep\n' >s/existing
touch -d '2021-05-06 07:08:09' s/same-size s/grown s/existing
mk_dest() {
	rm -rf "$1"
	mkdir "$1"
	printf 'bbbb\n' >"$1/same-size" # same size, other bytes, other mtime
	printf 'older\n' >"$1/grown"
	printf 'mine\n' >"$1/existing"
	printf 'extra\n' >"$1/extra"
}

# --size-only: same-size keeps its bytes (its mtime set, as rsync -a does),
# grown is copied.
mk_dest f2
mk_dest r2
run_fcp --size-only -T s f2
check_rc 0 "--size-only"
rsync -a --size-only s/ r2/ || fail "rsync --size-only"
check_eq "$(cat f2/same-size)" "bbbb" "--size-only copied a file of the same size"
check_eq "$(cat f2/grown)" "old" "--size-only: a file of another size"
# rsync leaves the directory's own mtime to when it wrote into it: the
# files' times are compared one by one.
check_tree r2 f2 --no-times
for f in same-size grown; do
	check_eq "$(stat -c %y f2/$f)" "$(stat -c %y r2/$f)" "--size-only: mtime of $f"
done

# --ignore-existing, with --delete too (rsync takes both): nothing there
# replaced, extra deleted.
mk_dest f3
mk_dest r3
rm f3/grown r3/grown
run_fcp --ignore-existing --delete -T s f3
check_rc 0 "--ignore-existing --delete"
rsync -a --ignore-existing --delete s/ r3/ || fail "rsync --ignore-existing"
check_eq "$(cat f3/existing)" "mine" "--ignore-existing replaced a file"
check_absent f3/extra "--delete with --ignore-existing"
check_file f3/grown
check_tree r3 f3 --no-times
check_eq "$(stat -c %y f3/grown)" "$(stat -c %y r3/grown)" "--ignore-existing: mtime"

# --inplace: the file there is rewritten, its inode kept.
mk_dest f4
ino=$(stat -c %i f4/grown)
run_fcp --inplace -T s f4
check_rc 0 "--inplace"
check_eq "$(stat -c %i f4/grown)" "$ino" "--inplace: a new inode"
check_eq "$(cat f4/grown)" "old"

# --delete quick-checks: the file already up to date is not written again
# (its ctime stays), as rsync --delete leaves it.
run_fcp -T s f5
ctime=$(stat -c %z f5/existing)
echo x >f5/extra
sleep 0.05
run_fcp --delete -T s f5
check_rc 0 "--delete"
check_eq "$(stat -c %z f5/existing)" "$ctime" "--delete copied an up-to-date file again"
check_absent f5/extra

# --info=progress2: the status line (plain for the log here).
run_fcp --info=progress2 -T s f6
check_rc 0 "--info=progress2"
run_fcp --info=name2 -T s f7
check_rc 2 "--info=name2"
check_grep "invalid --info value 'name2'" "$T/err"

# --exclude-from - and <(...): read once from stdin and from a pipe.
printf '*.b\n' >rules.txt
mkdir e && touch e/1.a e/2.b e/3.c
timeout 20 "$FASTCP" --exclude-from - -T e x1 <rules.txt >"$T/out" 2>"$T/err"
ran_ $? fastcp "--exclude-from - -T e x1"
check_rc 0 "--exclude-from -"
timeout 20 rsync -a --exclude-from - e/ y1/ <rules.txt || fail "rsync --exclude-from -"
check_tree y1 x1 --no-times
check_absent x1/2.b
timeout 20 "$FASTCP" --exclude-from <(printf '*.c\n') -T e x2 >"$T/out" 2>"$T/err"
ran_ $? fastcp "--exclude-from <(...) -T e x2"
check_rc 0 "--exclude-from <(...)"
timeout 20 rsync -a --exclude-from <(printf '*.c\n') e/ y2/ || fail "rsync --exclude-from <()"
check_tree y2 x2 --no-times
check_absent x2/3.c

# Refused, naming fastcp's way.
run_fcp -z -T s r
check_rc 2 "-z"
check_grep "copies between local paths" "$T/err"
run_fcp --partial -T s r
check_rc 2 "--partial"
check_grep "use --resume" "$T/err"
run_fcp --remove-source-files -T s r
check_rc 2 "--remove-source-files"
check_grep "use --move" "$T/err"
check_absent r
check_file s/grown "a refused --remove-source-files removed a source"
echo "rsync habits ok"
