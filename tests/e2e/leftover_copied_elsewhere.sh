#!/bin/bash
# A killed run's temporary file is fastcp's only in the directory it was
# made in. Copied anywhere else (a user keeps what a killed run left, with
# cp -a, into a SOURCE), it is the user's file like any other:
#   - a --move that put it in DEST and was stopped before it finished, run
#     again (the source no longer has it), keeps it in DEST;
#   - a plain copy keeps it, naming it only as maybe a leftover;
#   - --mirror judges it as any name the source lacks: --exclude keeps it,
#     --max-delete 0 keeps it (exit 1), -b backs it up, --dry-run lists it;
#   - a directory of that shape that leaves SOURCE leaves DEST with
#     --mirror, and --check then finds the trees equal;
#   - the job's own --log, --events and --manifest files are never taken
#     for leftovers, whatever their names;
# while a leftover in the directory it was made in is still removed.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

# A genuine leftover: a copy into an existing directory killed while its
# file is under its temporary name.
mkdir -p big killed
head -c 8M /dev/urandom >big/f
"$FASTCP" --bwlimit 1M -T big killed 2>/dev/null &
pid=$!
for _ in $(seq 1 200); do
	left=$(cd killed && ls -A | grep '^\.fcp-' | head -1)
	[ -n "$left" ] && break
	sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
[ -n "$left" ] || fail "no temporary file appeared in the killed copy"

# The user keeps it in their tree.
setup() {
	rm -rf src dst
	mkdir -p src/d dst
	echo a >src/d/a
	cp -a "killed/$left" src/d/
	cp -a "killed/$left" src/d/keep-me
	run_fcp -T src dst
	check_rc 0 "the first copy of a tree holding a copy of a leftover"
	check_tree src dst
	want=$(sha256sum <"killed/$left")
}

# A --move stopped after DEST had the file and SOURCE did not: the same
# --move again.
setup
rm "src/d/$left"
run_fcp --move -T src dst
check_rc 0 "--move again"
check_eq "$(sha256sum <"dst/d/$left" 2>&1)" "$want" "--move removed the only copy of a user's file"
check_nogrep "removed 'dst/d/$left'" "$T/err" "a user's file removed as a leftover"
check_grep "'dst/d/$left' has the name of a temporary file of an interrupted run, but fastcp cannot tell that it made it there" "$T/err"

# A plain copy.
setup
rm "src/d/$left"
run_fcp -T src dst
check_rc 0 "a plain copy"
check_eq "$(sha256sum <"dst/d/$left" 2>&1)" "$want" "a plain copy removed a user's file"

# --mirror: an extra like any other.
setup
rm "src/d/$left"
run_fcp --mirror --exclude '.fcp-*' -T src dst
check_rc 0 "--mirror --exclude"
check_eq "$(sha256sum <"dst/d/$left" 2>&1)" "$want" "--mirror removed an excluded file"
run_fcp --mirror --max-delete 0 -T src dst
check_rc 1 "--mirror --max-delete 0"
check_eq "$(sha256sum <"dst/d/$left" 2>&1)" "$want" "--max-delete 0 removed a file"
run_fcp --mirror --dry-run -T src dst
check_rc 0 "--mirror --dry-run"
check_grep "^delete 'dst/d/$left'$" "$T/out"
run_fcp --mirror -b -T src dst
check_rc 0 "--mirror -b"
check_absent "dst/d/$left" "--mirror kept a file the source lacks"
check_eq "$(sha256sum <"dst/d/$left~" 2>&1)" "$want" "--mirror -b: no backup of the deleted file"

# A directory of that shape leaves SOURCE: it leaves DEST.
setup
dname=$(t_tempname killed)
mkdir "src/d/$dname" && echo in >"src/d/$dname/f"
run_fcp -T src dst
check_rc 0 "a copy of a directory with a temporary name"
rm -r "src/d/$dname"
run_fcp --mirror -T src dst
check_rc 0 "--mirror after the directory left SOURCE"
check_absent "dst/d/$dname" "--mirror kept a directory the source lacks"
run_fcp --check -T src dst
check_rc 0 "--check after --mirror"

# The job's own files are never its leftovers, whatever their names: a
# --log, --events and --manifest inside DEST named as temporary files of
# that very directory.
log=$(t_tempname dst/d 1) ev=$(t_tempname dst/d 2) man=$(t_tempname dst/d 3)
run_fcp --sync --log "dst/d/$log" --events "dst/d/$ev" --manifest "dst/d/$man" -T src dst
check_rc 0 "a copy whose own files have temporary names"
for f in "$log" "$ev" "$man"; do
	check_file "dst/d/$f" "the job removed its own file as a leftover"
done
check_grep . "dst/d/$log" "the --log file is empty"

# A user's directory of that shape beside DEST's copies, with something
# in it: named only as maybe a leftover, never called one.
mkdir -p top && udir=$(t_tempname killed) && mkdir "top/$udir" && echo mine >"top/$udir/f"
run_fcp src top/
check_rc 0 "a copy beside a user's directory of the temporary shape"
check_grep "/top/$udir' has the name of an unfinished copy of an interrupted run, but fastcp cannot tell" "$T/err"
check_nogrep "/top/$udir' is an unfinished copy" "$T/err" "a user's directory called an unfinished copy"
check_eq "$(cat "top/$udir/f")" mine "a user's directory of the temporary shape"

# The leftover where it was made goes.
run_fcp -T big killed
check_rc 0 "the killed copy again"
check_absent "killed/$left" "a leftover in its own directory"
check_grep "removed 'killed/$left', a temporary file left by an interrupted run" "$T/err"
check_tree big killed
echo "a copy of a leftover made elsewhere is the user's file"
