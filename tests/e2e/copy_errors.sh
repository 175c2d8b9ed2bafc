#!/bin/bash
# Bad input: a missing source (exit 1, message names it, the other sources
# are still copied), bad options (exit 2, nothing done), a directory copied
# into itself or below itself, and a file copied onto itself (refused with a
# clear message, nothing changed).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir src src/sub
printf 'a\n' >src/a
printf 'x\n' >src/sub/x

# A missing source among good ones.
mkdir dst1
run_fcp src/a nope/missing src/sub dst1
check_rc 1 "missing source"
check_grep "^fastcp: .*'nope/missing'.*No such file or directory" "$T/err" \
	"no 'fastcp: ... 'PATH': No such file or directory' message"
check_file dst1/a "the good source before the missing one"
check_file dst1/sub/x "the good source after the missing one"
run_fcp "$T/only_missing" "$T/dst2"
check_rc 1
check_grep "$T/only_missing" "$T/err"
check_absent "$T/dst2"

# Bad usage: exit 2, a message, nothing created.
bad_usage() {
	run_fcp "$@"
	check_rc 2 "fastcp $*"
	[ -s "$T/err" ] || fail "fastcp $*: no message on stderr"
	# Messages name the program as "fastcp:", not by the path it was run by.
	check_nogrep "^/|^[^ ]+/fastcp:" "$T/err" "fastcp $*: message prefixed with the binary's path"
}
bad_usage --bogus-option src d_bad1
bad_usage -Y src d_bad2
bad_usage --reflink=sometimes src d_bad3
bad_usage --symlinks=maybe src d_bad4
bad_usage --no-preserve=colour src d_bad5
bad_usage --threads abc src d_bad6
bad_usage --threads -3 src d_bad7
bad_usage src
bad_usage
for d in d_bad1 d_bad2 d_bad3 d_bad4 d_bad5 d_bad6 d_bad7; do check_absent "$d"; done

# A directory into itself or below itself: refused, nothing created.
snapshot() { find src | sort | md5sum; }
before=$(snapshot)
for args in "src src" "src src/sub" "src src/sub/deeper" "-T src src/sub/x2" "src/ src/./sub" "src $T/src/sub"; do
	# shellcheck disable=SC2086
	run_fcp $args
	[ "$RC" = 1 ] || [ "$RC" = 2 ] || fail "fastcp $args: exit $RC, want refusal (1 or 2)"
	check_grep "itself" "$T/err" "fastcp $args: message does not say 'into itself'"
	check_eq "$(snapshot)" "$before" "fastcp $args changed the source tree"
done
# Through a symlink to the source's parent: same directory, other name.
ln -s "$T" alias
run_fcp src alias/src/sub
[ "$RC" != 0 ] || fail "copy into itself through a symlink succeeded"
check_eq "$(snapshot)" "$before" "copy into itself through a symlink changed the tree"

# A file onto itself, also through another name: refused, content intact.
printf 'precious\n' >f
ln f f_hardlink
ln -s f f_symlink
for args in "f f" "f ./f" "f $T/f" "f f_hardlink" "f_symlink f" "-T f f"; do
	# shellcheck disable=SC2086
	run_fcp $args
	[ "$RC" = 1 ] || [ "$RC" = 2 ] || fail "fastcp $args: exit $RC, want refusal"
	check_grep "same file|itself" "$T/err" "fastcp $args: message does not say 'same file'"
	check_eq "$(cat f)" precious "fastcp $args damaged the file"
done
# A file into its own directory is the same as onto itself.
run_fcp f .
[ "$RC" != 0 ] || fail "fastcp f . succeeded"
check_eq "$(cat f)" precious "fastcp f . damaged the file"

check_no_temp "$T"
echo "bad input handled"
