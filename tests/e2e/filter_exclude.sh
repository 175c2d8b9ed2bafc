#!/bin/bash
# --exclude, --include, --exclude-from (issue 20, rsync's filter rules):
# in command-line order, the first rule that matches decides; '*' stays
# within a name, '**' crosses '/', a leading '/' anchors at the source
# directory, a trailing '/' is for directories only, a pattern without '/'
# matches the name at any depth; excluded entries are counted, and an
# excluded directory is never opened (strace); bad rules exit 2.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p src/a/b/c src/build src/a/build src/cache src/a/cache.d src/deep/x/y src/keep
for f in top.o a/x.o a/b/y.c a/b/c/z.c build/out a/build/out2 cache/c1 a/cache.d/c2 \
	deep/x/y/z.tmp deep/x/y/w.c keep/k.o notes.txt; do
	printf '%s\n' "$f" >"src/$f"
done
printf 'file\n' >src/a/cache # a file named like the directory rule
ln -s a/b src/link

# list DIR: every path below DIR, sorted, one a line.
list() { (cd "$1" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' '); }

run_fcp -v --exclude '*.o' --exclude /build --exclude 'cache/' --exclude 'deep/**/*.tmp' \
	--include 'keep/' -T src d1
check_rc 0 "excludes"
check_eq "$(list d1)" "a a/b a/b/c a/b/c/z.c a/b/y.c a/build a/build/out2 a/cache a/cache.d a/cache.d/c2 deep deep/x deep/x/y deep/x/y/w.c keep link notes.txt " "what --exclude left"
# top.o a/x.o keep/k.o build cache deep/x/y/z.tmp
check_grep "^fastcp: 6 excluded" "$T/err"

# First match wins: an --include before the --exclude keeps, after it not.
run_fcp --include 'x.o' --exclude '*.o' -T src d2
check_rc 0
check_file d2/a/x.o "--include before --exclude"
check_absent d2/top.o
run_fcp --exclude '*.o' --include 'x.o' -T src d3
check_absent d3/a/x.o "--include after a matching --exclude"

# rsync's idiom: only *.c files, the directories kept to reach them.
run_fcp --include '*/' --include '*.c' --exclude '*' -T src d4
check_rc 0
check_eq "$(find d4 -type f | LC_ALL=C sort | tr '\n' ' ')" "d4/a/b/c/z.c d4/a/b/y.c d4/deep/x/y/w.c " "only *.c"
# And without '*/', '*' takes the directories too.
run_fcp --include '*.c' --exclude '*' -T src d5
check_eq "$(list d5)" "" "--exclude '*' leaves out directories"

# An unanchored pattern with a '/' matches the end of the path.
run_fcp --exclude 'b/c' -T src d6
check_absent d6/a/b/c
check_dir d6/a/b

# "dir/***": the directory and all below.
run_fcp --include '/deep/***' --exclude '*' -T src d7
check_eq "$(list d7)" "deep deep/x deep/x/y deep/x/y/w.c deep/x/y/z.tmp " "dir/***"

# --exclude-from: comments, blank lines, "+ " and "- " prefixes.
printf '# keep only .c and .txt\n\n- cache.d/\n+ */\n+ *.c\n+ *.txt\n- *\n' >rules
run_fcp --exclude-from rules -T src d8
check_rc 0
check_eq "$(find d8 -type f | LC_ALL=C sort | tr '\n' ' ')" "d8/a/b/c/z.c d8/a/b/y.c d8/deep/x/y/w.c d8/notes.txt " "--exclude-from"
check_absent d8/a/cache.d

# An excluded directory is not even opened.
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=openat,open -o "$T/trace" "$FASTCP" --exclude /deep -T src d9 2>"$T/err" ||
		fail "fastcp under strace"
	check_nogrep '"deep"' "$T/trace"
	grep -q '"a"' "$T/trace" || fail "strace saw no directory opened at all"
fi

# Bad rules: usage, nothing done.
run_fcp --exclude '' -T src bad1
check_rc 2 "an empty pattern"
check_absent bad1
run_fcp --exclude-from nonexistent -T src bad2
check_rc 2 "a missing --exclude-from file"
check_grep "cannot read --exclude-from file 'nonexistent'" "$T/err"
# A filtered move moves only what the filters choose (issue 35).
mkdir movesrc
echo x >movesrc/x
echo y >movesrc/y
run_fcp --move --exclude x movesrc moved
check_rc 0 "--move with filters"
check_eq "$(cat movesrc/x)" x "an excluded file of a --move"
check_absent movesrc/y
check_eq "$(cat moved/y)" y
check_absent moved/x
exit 0
