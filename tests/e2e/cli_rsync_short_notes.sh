#!/bin/bash
# rsync's habits that mean another thing in cp, said before the copy goes
# on as cp's: -n with -v (rsync's -avn, a dry run) is cp's --no-clobber and
# copies for real; -i with -a or -v and no terminal on stdin (rsync's -ai,
# itemize) is cp's --interactive. One note each on stderr; the long names,
# or -n without -v, or --dry-run given too, need none.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
cd "$T" || fail "cd $T"

mkdir src
echo one >src/a
echo two >src/b
note_n="-n is cp's --no-clobber .*not rsync's dry run: that is --dry-run"
note_i="-i is cp's --interactive .*not rsync's itemize: that is --itemize-changes"

run_fcp -avn src d1 </dev/null
check_rc 0 "-avn"
check_eq "$(grep -c -- "$note_n" "$T/err")" 1 "one note for -avn"
check_eq "$(head -1 "$T/err" | grep -c -- "$note_n")" 1 "the note comes first"
check_eq "$(cat d1/a)" one "-avn copies (cp's -n), as the note says"
echo changed >src/a
run_fcp -nv src/a d1/a </dev/null
check_rc 0 "-nv"
check_grep "$note_n" "$T/err"
check_eq "$(cat d1/a)" one "no existing file replaced"

for quiet in "-n src d2" "--no-clobber -v src d3" "-avn --dry-run src d4"; do
	run_fcp $quiet </dev/null
	check_rc 0 "$quiet"
	check_nogrep "rsync's dry run" "$T/err"
done

echo yes >answers
run_fcp -ai src d1 <answers
check_rc 0 "-ai with stdin a file"
check_eq "$(grep -c -- "$note_i" "$T/err")" 1 "one note for -ai"
run_fcp -vi src/b d1/b </dev/null
check_grep "$note_i" "$T/err"
for quiet in "-i src d1" "-ai --itemize-changes src d1" "--interactive -a src d1"; do
	run_fcp $quiet </dev/null
	check_nogrep "rsync's itemize" "$T/err"
done
echo "PASS"
