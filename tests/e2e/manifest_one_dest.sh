#!/bin/bash
# A manifest serves one DEST (review M9): its records are keyed by the
# path relative to DEST, so copies into two DESTs sharing one manifest
# would leave one record for two files of one name, and a check of the
# first would report a false difference. The first DEST that uses a
# manifest is recorded in it; a copy (or a check against a source) into
# another DEST is refused, exit 2, and makes nothing. The same DEST
# spelled another way (a trailing slash, "..", absolute or relative) is the
# same DEST.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd sqlite3
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"
cd "$T" || fail "cd $T"

mkdir A B
echo 12345 >A/index.txt
echo 123456 >B/index.txt
run_fcp --manifest m.db -T A cA
check_rc 0 "copy A into cA"
# The refused run changes nothing: not even the times of the directory
# that holds the manifest (SQLite's journal files come and go there).
touch -d '2001-02-03 04:05:06.123456789' .
before=$(stat -c '%y' .)
run_fcp --manifest m.db -T B cB
check_rc 2 "copy B into cB with the manifest of cA"
check_eq "$(stat -c '%y' .)" "$before" "the manifest's directory's mtime after a refused run"
check_grep "cannot use manifest 'm.db': it records the files of '$T/cA', not '$T/cB'" "$T/err"
check_absent cB "nothing made for the refused copy"
check_eq "$(cat cA/index.txt)" 12345 "cA untouched"
run_fcp --check --manifest m.db -T B cB
check_rc 2 "check of B against cB with the manifest of cA"
run_fcp --check --manifest m.db cA
check_rc 0 "check of cA: no false difference"
check_eq "$(cat "$T/out")" "" "no difference in cA"

# The same DEST, spelled otherwise.
mkdir sub
echo more >A/more.txt
run_fcp --sync --manifest m.db -T A cA/
check_rc 0 "sync into cA/"
run_fcp --sync --manifest m.db -T A sub/../cA
check_rc 0 "sync into sub/../cA"
run_fcp --sync --manifest m.db -T A "$T/cA"
check_rc 0 "sync into cA by its absolute path"
(cd cA && "$FASTCP" --sync --manifest ../m.db -T ../A .) || fail "sync into ."
run_fcp --check --manifest m.db cA
check_rc 0 "check of cA after the syncs"
# A copy INTO a DEST (the sources' names below it) is keyed the same way.
mkdir into
run_fcp --manifest m3.db A into/
check_rc 0 "copy of A into into/"
run_fcp --manifest m3.db B into
check_rc 0 "copy of B into into (the same DEST)"
run_fcp --check --manifest m3.db into
check_rc 0 "check of into"
check_eq "$(sqlite3 m3.db "select count(*) from files where side = 0")" "$(find A B -type f | wc -l)" "both copies recorded"
echo "PASS"
