#!/bin/bash
# fastcp --help is grouped the way people look for things: its headings are
# all there, in this order, the examples come last and run only options it
# lists, every long option the parser knows is on it, and it fits 80 columns.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
need_fastcp
run_fcp --help
check_rc 0 "--help"
help=$T/out
want="Copying:
Copying again (sync, mirror, delete, resume, move):
Checking (verify, check, manifest):
Choosing what to copy (filters):
Output:
cp compatibility (and rsync habits; see 'Differences from cp' in fastcp(1)):
Tuning:
Examples:"
got=$(grep -E '^[A-Za-z][^:]*:$' "$help")
check_eq "$got" "$want" "--help's headings and their order"

# the option a user looks for is under its heading
section() { awk -v h="$1" '$0 == h { p = 1; next } /^[A-Za-z][^:]*:$/ { p = 0 } p' "$help"; }
in_section() { section "$1" | grep -qE -- "^ +(-[A-Za-z], )*$2( |,|\$)" || fail "$2 is not under '$1'"; }
in_section "Copying:" "-T, --no-target-directory"
in_section "Copying again (sync, mirror, delete, resume, move):" "--mirror"
in_section "Copying again (sync, mirror, delete, resume, move):" "--move"
in_section "Checking (verify, check, manifest):" "--check"
in_section "Checking (verify, check, manifest):" "--manifest FILE"
in_section "Choosing what to copy (filters):" "--gitignore"
in_section "Choosing what to copy (filters):" "--prune-empty-dirs"
in_section "Output:" "--json"
in_section "Output:" "--itemize-changes"
in_section "cp compatibility (and rsync habits; see 'Differences from cp' in fastcp(1)):" "--no-clobber"
in_section "cp compatibility (and rsync habits; see 'Differences from cp' in fastcp(1)):" "--preserve=context"
in_section "cp compatibility (and rsync habits; see 'Differences from cp' in fastcp(1)):" "--ignore-existing"
in_section "Tuning:" "--threads N"
in_section "Tuning:" "--no-io-uring"

# the examples: each a fastcp command line, with options --help lists
section "Examples:" | grep -E '^  fastcp ' >"$T/examples"
n=$(wc -l <"$T/examples")
[ "$n" -ge 3 ] || fail "--help has $n examples"
grep -oE -- ' --?[a-zA-Z][a-z-]*' "$T/examples" | sort -u | while read -r o; do
	grep -E '^ +-' "$help" | grep -qE -- "(^| )$o([ ,=[]|\$)" ||
		fail "example option $o is not listed by --help"
done || exit 1
# after the examples, only the closing notes (the exit status among them)
tail -n 4 "$help" | grep -q '^Exit status: 0 all copied, 1 some items failed, 2 bad usage' ||
	fail "--help does not end with the exit status"

# every long option of the parser is on the help
opts=$(awk '/longopts\[\] = \{/ { p = 1; next } p && /^\};/ { exit } p' "$top_/lib/face/cli.c" |
	grep -oE '^\s*\{ "[a-z0-9-]+", ' | grep -oE '"[a-z0-9-]+"' | tr -d '"')
[ -n "$opts" ] || fail "no long options found in lib/face/cli.c"
for o in $opts; do
	grep -qE -- "--$o([^a-z0-9-]|\$)" "$help" || fail "--$o is not on --help"
done
awk 'length > 80 { print; bad = 1 } END { exit bad }' "$help" || fail "--help has lines wider than 80 columns"
echo "help sections: ok"
