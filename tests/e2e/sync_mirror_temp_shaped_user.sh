#!/bin/bash
# A user's file whose name merely has fastcp's temporary shape
# (.fcp-<16 hex>-<n>-<n>, but without the tag fastcp gives it in DEST's directory) is an
# ordinary entry under --mirror, in DEST only or in SOURCE too:
#   - --exclude keeps it (no --delete-excluded);
#   - --dry-run lists its deletion, and the run then deletes what it said;
#   - --max-delete counts it (0: kept, exit 1);
#   - -b backs it up before it goes;
#   - the SOURCE's file of that shape is copied over DEST's;
# while a killed run's own temporary file (the tag of its directory) is still
# removed as a leftover and named so.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

user=.fcp-0123456789abcdef-1-0 both=.fcp-0123456789abcdef-2-0
setup() {
	rm -rf src dst
	mkdir -p src/d dst/d
	tagged=$(t_tempname dst/d) # a name fastcp makes in dst/d
	echo a >src/d/a
	echo "source's" >src/d/$both
	echo "user's" >dst/d/$user
	echo "dest's" >dst/d/$both
	echo partial >dst/d/$tagged
}

setup
run_fcp --mirror --exclude '.fcp-0123456789abcdef-*' -T src dst
check_rc 0 "--mirror --exclude"
check_eq "$(cat dst/d/$user 2>&1)" "user's" "--mirror removed an excluded file of the temporary shape"
check_eq "$(cat dst/d/$both 2>&1)" "dest's" "--mirror replaced an excluded file of the temporary shape"
check_absent dst/d/$tagged "a killed run's tagged temporary file"
check_grep "removed 'dst/d/$tagged', a temporary file left by an interrupted run" "$T/err"
check_nogrep "$user" "$T/err" "a user's excluded file called a leftover"

setup
run_fcp --mirror --dry-run -T src dst
check_rc 0 "--mirror --dry-run"
check_grep "^delete 'dst/d/$user'$" "$T/out"
check_grep "^update 'dst/d/$both'$" "$T/out"
check_grep "would .*, delete 1$" "$T/all"
check_eq "$(cat dst/d/$user 2>&1)" "user's" "--dry-run changed DEST"
run_fcp --mirror -v -T src dst
check_rc 0 "--mirror after its dry run"
check_absent dst/d/$user "--mirror kept what its dry run said it deletes"
check_eq "$(cat dst/d/$both 2>&1)" "source's" "the source's file of the temporary shape"
check_absent dst/d/$tagged "a killed run's tagged temporary file"
check_nogrep "'dst/d/$user'.*(left by|temporary)" "$T/err" "a user's file called a leftover"

setup
run_fcp --mirror --max-delete 0 -T src dst
check_rc 1 "--mirror --max-delete 0"
check_eq "$(cat dst/d/$user 2>&1)" "user's" "--max-delete 0 deleted a file of the temporary shape"
check_grep "max-delete 0 reached: not deleting 'dst/d/$user'" "$T/err"

setup
run_fcp --mirror -b -T src dst
check_rc 0 "--mirror -b"
check_absent dst/d/$user "--mirror -b kept a file the source lacks"
check_eq "$(cat "dst/d/$user~" 2>&1)" "user's" "--mirror -b: no backup of the deleted file"
check_eq "$(cat "dst/d/$both~" 2>&1)" "dest's" "--mirror -b: no backup of the replaced file"
check_eq "$(cat dst/d/$both 2>&1)" "source's" "the source's file of the temporary shape"
echo "a user's file of the temporary shape is an ordinary entry under --mirror"
