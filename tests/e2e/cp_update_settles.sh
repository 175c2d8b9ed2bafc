#!/bin/bash
# -n, -u and -i settle: on a tree already identical to its source, the same
# command again sets no directory's metadata (no ctime moves), says each
# directory unchanged and prints no -v line, as --sync does. Where a
# directory's metadata differs, they still set it, and where this run's
# new files moved a directory's mtime, it is put back.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd python3

# ctimes DIR: each directory's path and st_ctime_ns, one a line.
ctimes() {
	python3 -c 'import os, sys
for r, ds, fs in sorted(os.walk(sys.argv[1])):
    print(r, os.lstat(r).st_ctime_ns)' "$1"
}

mkdir -p src/a/b src/c
echo one >src/a/f; echo two >src/a/b/g; ln -s f src/a/l
touch -d '2021-02-03' src/a/b src/a src/c src
run_fcp -a -T src dst
check_rc 0 "the first copy"

for opts in "-n" "-u" "-a -n" "-a -u" "-i" "--update=none"; do
	for run in 1 2; do
		ctimes dst >before
		sleep 0.05
		timeout 60 "$FASTCP" $opts -v -T src dst </dev/null >"$T/out" 2>"$T/err"
		ran_ $? fastcp "$opts -v -T src dst ($run)"
		check_rc 0 "$opts on an identical tree"
		ctimes dst >after
		diff before after || fail "$opts (run $run) changed a directory's ctime"
		check_eq "$(cat "$T/out")" "" "$opts -v lines on an identical tree"
		check_grep "^fastcp: 4 unchanged, 0 with metadata updated, 0 deleted$" "$T/err"
		check_eq "$(grep -c "^fastcp: directories  *4  *0  *4 " "$T/err")" 1 \
			"$opts: the table's directories, all skipped"
	done
done

# A directory whose permissions differ still gets its source's: only the
# equal ones are left alone.
chmod 700 dst/a
run_fcp -n -v -T src dst
check_rc 0 "-n with a directory's mode changed"
check_eq "$(stat -c %a dst/a)" "$(stat -c %a src/a)" "-n set the differing directory's mode"
check_grep "^fastcp: 3 unchanged, 1 with metadata updated, 0 deleted$" "$T/err"
check_eq "$(grep -c "dst/a'$" "$T/out")" 1 "-v line of the directory updated"

# A new file under -a -u: its directory's mtime, moved by this run, is
# put back and the directory counts as unchanged; again, nothing moves.
echo new >src/a/b/new
touch -d '2021-02-03' src/a/b
run_fcp -a -u -v -T src dst
check_rc 0 "-a -u with a new file"
check_eq "$(cat dst/a/b/new)" "new" "the new file copied"
check_eq "$(stat -c %y dst/a/b)" "$(stat -c %y src/a/b)" "its directory's mtime put back"
ctimes dst >before
sleep 0.05
run_fcp -a -u -v -T src dst
check_rc 0 "-a -u again"
ctimes dst >after
diff before after || fail "-a -u again changed a directory's ctime"
check_grep "^fastcp: 4 unchanged, 0 with metadata updated, 0 deleted$" "$T/err"
echo "-n, -u, -i: a tree already identical is left as it is, and said unchanged"
