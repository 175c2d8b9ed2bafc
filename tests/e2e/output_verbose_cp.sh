#!/bin/bash
# -v prints GNU cp -v's line, 's/a' -> 'd/a', quoted as cp quotes (issue
# 35): beside cp -rv on names with spaces, quotes, control characters,
# bytes that are not UTF-8 and UTF-8 ones, in a UTF-8 locale and in C. A
# name with both a quote and a control character is the one cp writes
# with an empty '' in front: there each line is checked to be a shell
# word that means the name. A re-run lists only what changed, and a
# deletion is rm -v's line; a metadata-only update its own.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd cp
cp --version 2>/dev/null | grep -q 'GNU coreutils' || skip "cp is not GNU cp"
locale -a 2>/dev/null | grep -qix 'c\.utf-\?8' || skip "no C.UTF-8 locale"

mkdir s s/sub
for n in plain 'a b' "it's" $'nl\nx' $'bad\xff' 'café' 'x"y' $'t\tab' '$d' 'a\b' \
	"café'" $'\x7f' $'\x01' '`' "it's \$x" "it's!" '~a' sub/f; do
	printf '%s' "$n" >"s/$n"
done

for loc in C.UTF-8 C; do
	rm -rf d dc
	LC_ALL=$loc cp -rv s dc >"cp.$loc" || fail "cp -rv in $loc"
	LC_ALL=$loc run_fcp -v s d
	check_rc 0 "fastcp -v in $loc"
	sort "$T/out" >"fcp.$loc"
	sed -E "s/ -> (['\"])dc/ -> \\1d/" "cp.$loc" | sort >"cp.$loc.sorted"
	diff "cp.$loc.sorted" "fcp.$loc" || fail "-v lines differ from cp -rv's in $loc"
	check_eq "$(wc -l <"fcp.$loc")" 20 "-v lines in $loc (18 files, 2 directories)"
done
check_grep "^'s/caf.*' -> 'd/café'$" fcp.C.UTF-8
check_grep "^'s/caf'\\$'\\\\303\\\\251' -> 'd/caf'\\$'\\\\303\\\\251'$" fcp.C

# A quote and a control character: a shell word that means the name.
rm -rf d
q="q'"$'\n'
printf x >"s/$q"
run_fcp -v s d
check_rc 0 "fastcp -v with a quote and a newline in a name"
line=$(grep -a "^'s/q'" "$T/out") || fail "no line for the name with a quote and a newline"
# words LINE: the shell words of a line of cp -v ("->" left out) in w.
words() { eval "w=(${1/ -> / })"; }
words "$line"
check_eq "${#w[@]}" 2 "words of the line"
check_eq "${w[0]}" "s/$q" "the source's word"
check_eq "${w[1]}" "d/$q" "the copy's word"
rm -rf dc
words "$(LC_ALL=C.UTF-8 cp -rv s dc | grep -a "^'*s/q'")"
check_eq "${w[1]}" "dc/$q" "cp's word for the same name"

# A re-run with --sync: only what changed, as cp's lines; a deletion as rm -v's.
printf changed >s/plain
rm "s/$q"
run_fcp -v --sync --delete -T s d
check_rc 0 "--sync re-run"
check_grep "^'s/plain' -> 'd/plain'$" "$T/out"
grep -qxF "removed 'd/q'\\'''\$'\\n'" "$T/out" || fail "rm -v's line of the deletion"
# The directory s, whose mtime changed (the deletion), gets its metadata:
# no data copied, so not cp's arrow but its own line, naming the copy.
check_grep "^update metadata 'd'$" "$T/out"
check_nogrep "^'s' -> 'd'$" "$T/out"
check_eq "$(wc -l <"$T/out")" 3 "-v lines of a re-run (what changed, nothing else)"
run_fcp -v --sync -T s d
check_eq "$(cat "$T/out")" "" "-v lines of a re-run that changes nothing"
run_fcp -vv --sync -T s d
check_grep "^unchanged 'd/plain'$" "$T/out"
check_eq "$(wc -l <"$T/out")" 20 "-vv lines: each item (18 files, 2 directories), unchanged"
echo "-v: cp's lines, cp's quoting; a re-run lists what changed"
