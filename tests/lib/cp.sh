# cp.sh - fastcp beside GNU cp, for the tests of cp's own options
# (tests/e2e/cp_*.sh). Source after lib.sh and t_init:
#
#   setup() { mkdir d; echo a >d/f; }   # run inside the input tree
#   cp_twins setup                      # $T/base, copied to $T/gnu, $T/fcp
#   cp_both -n d out                    # GNU cp -a -n d out in $T/gnu,
#                                       # fastcp -n d out in $T/fcp
#   cp_same                             # both trees equal, same exit status
#
# cp runs with -a: fastcp's archive mode is its default. Times are not
# compared by cp_same (each run changes the directories it writes to at
# its own moment); a test that needs them checks them itself.
command -v cp >/dev/null && cp --version 2>/dev/null | grep -q 'GNU coreutils' ||
	skip "GNU cp is not installed"

# cp_twins SETUP: make the input once, then two identical copies of it.
cp_twins() {
	rm -rf "$T/base" "$T/gnu" "$T/fcp"
	mkdir "$T/base" && (cd "$T/base" && "$1") || fail "setup $1"
	cp -a "$T/base" "$T/gnu" && cp -a "$T/base" "$T/fcp" || fail "twin copies"
}

# cp_both ARGS...: the same command line in each twin; stdin from
# $CP_STDIN (default /dev/null). Exit statuses in $CP_RC and $RC, stderr
# in $T/cp.err and $T/err. An option given as $CP_DROP is fastcp's alone
# (cp's own behaviour): left out of cp's command line.
CP_RC=
cp_both() {
	local a cpargs=()
	for a; do [ "$a" = "${CP_DROP:-}" ] || cpargs+=("$a"); done
	(cd "$T/gnu" && cp -a "${cpargs[@]}" <"${CP_STDIN:-/dev/null}" >"$T/cp.out" 2>"$T/cp.err")
	CP_RC=$?
	echo "\$ cp -a ${cpargs[*]} -> exit $CP_RC"
	sed 's/^/  cp| /' "$T/cp.err" | head -20
	cd "$T/fcp" || fail "cd"
	run_fcp "$@" <"${CP_STDIN:-/dev/null}"
	cd "$T" || fail "cd"
}

# cp_same [treecmp options]: the twins are equal, and so are the statuses.
cp_same() {
	check_eq "$RC" "$CP_RC" "fastcp's exit status against cp's"
	check_tree "$T/gnu" "$T/fcp" --no-times "$@"
	check_no_temp "$T/fcp"
}
