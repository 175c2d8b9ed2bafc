#!/bin/bash
# Rounds must not make a partial merge under the final name. In
# `fastcp d1/x d2/x c` the second x merges into the first, so both go one
# after the other (rounds). A failed item in the first one's new root copy
# does not hold it back: it gets its name, and the second merges into it,
# as with cp. With --atomic it keeps its .fcp-* name; the second must then
# not be copied as a new c/x of its own: that would be a tree under the
# final name that lacks d1's half. It is counted as not copied, with one
# line, exit 1.
# As root every file can be read, so fastcp runs as user nobody (setpriv).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "needs root to set up a tree that user nobody cannot fully read"
need_cmd setpriv

mkdir -p d1/x d2/x c
printf 'a\n' >d1/x/a
printf 'secret\n' >d1/x/secret && chmod 0000 d1/x/secret
printf 'b\n' >d2/x/b
chown 65534:65534 c
chmod 755 "$T"

FCP_WRAP="setpriv --reuid=65534 --regid=65534 --clear-groups" run_fcp d1/x d2/x c
check_rc 1 "a failed item in round 0"
check_grep "^fastcp: cannot open '[^']*d1/x/secret': Permission denied$" "$T/err"
check_eq "$(cat c/x/a c/x/b)" "$(printf 'a\nb')" "both halves merged"
check_absent c/x/secret "the failed file"
check_eq "$(find c -mindepth 1 -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies"
rm -rf c/x

FCP_WRAP="setpriv --reuid=65534 --regid=65534 --clear-groups" run_fcp --atomic d1/x d2/x c
check_rc 1 "a failed item in round 0 (--atomic)"
check_grep "^fastcp: cannot open '[^']*d1/x/secret': Permission denied$" "$T/err"
check_absent c/x "a partial merge under the final name"
left=$(find c -mindepth 1 -maxdepth 1 -name '.fcp-*')
[ "$(printf '%s\n' "$left" | grep -c .)" = 1 ] || fail "not one hidden copy: $left"
check_file "$left/a"
check_absent "$left/b" "the second operand went into the unfinished copy"
check_grep "d2/x" "$T/err"
[ "$(grep -c 'd2/x' "$T/err")" = 1 ] || fail "not one line about d2/x"
echo "a later round does not make a partial copy under the final name"
