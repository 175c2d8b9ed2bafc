#!/bin/bash
# cp's -i/--interactive (issue 20), beside GNU cp: before replacing a file
# fastcp asks on stderr ("overwrite 'PATH'? ") and reads the answer from
# stdin; y or Y replaces, anything else (and end of input) keeps. The
# workers ask one at a time: every prompt is whole, one per existing file.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p src/sub out/sub
	for f in a b c d sub/e sub/f new; do echo "src $f" >src/$f; done
	for f in a b c d sub/e sub/f; do echo "old $f" >out/$f; done
}

for answer in y Y yes n no "" x; do
	yes "$answer" | head -50 >"$T/answers"
	CP_STDIN=$T/answers
	for opts in "-i" "--interactive" "-n -i"; do
		cp_twins setup
		cp_both $opts -T src out
		cp_same
		check_eq "$(grep -o "fastcp: overwrite '[^']*'? " "$T/err" | wc -l)" 6 "prompts"
		check_eq "$(grep -c "^" <(grep -o "overwrite 'out/sub/e'? " "$T/err"))" 1 "one prompt"
	done
done
check_eq "$(cat "$T/fcp/out/a")" "old a" "x kept"
check_file "$T/fcp/out/new"

# No answer at all (end of input) keeps the file; the prompt is there.
CP_STDIN=/dev/null
cp_twins setup
cp_both -i src/a out/a
cp_same
check_eq "$(cat "$T/fcp/out/a")" "old a" "no answer"
check_grep "^fastcp: overwrite 'out/a'\? $" "$T/err"

# A single file, yes then no.
cp_twins setup
for answer in y n; do
	echo $answer >"$T/answers"
	CP_STDIN=$T/answers
	cp_both -i src/$([ $answer = y ] && echo a || echo b) out
	cp_same
done
check_eq "$(cat "$T/fcp/out/a")/$(cat "$T/fcp/out/b")" "src a/old b" "yes, then no"
# -i after -n asks again; a file that is not there is never asked about.
cp_twins setup
printf 'y\n' >"$T/answers"
cp_both -n -i src/new src/a out
cp_same
check_eq "$(cat "$T/fcp/out/a")" "src a" "-n -i: -i wins"
echo PASS
