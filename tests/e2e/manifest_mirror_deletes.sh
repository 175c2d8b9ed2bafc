#!/bin/bash
# The README's workflow: fastcp --mirror --manifest m.db -T src dst, then
# fastcp --check --manifest m.db dst. What a run with --manifest takes out
# of DEST (an extra file, a directory with everything in it, a file a
# directory or a symlink replaces, a directory a file replaces, a file -b
# renames to its backup name, a file a --move rename replaces) loses its
# record in that run: the check of DEST alone does not say it missing on
# every later run. A directory's records go by byte prefix: its neighbours
# ('a_' removed, 'ab' kept; 'p%' removed, 'pq' kept; 'd' removed, 'd0' and
# 'd.k' kept; a name that is not UTF-8) keep theirs. A file gone from DEST by
# other hands keeps its record, and the check says it missing (exit 1),
# also after a mirror that had nothing to delete for it.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd sqlite3
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"
cd "$T" || fail "cd $T"

ff=$'\xff'
# rows DB: the destination records, one path a line, sorted by bytes.
rows() { sqlite3 "$1" "select hex(path) from files where side = 0" | sort; }
# files DIR: the regular files below DIR, relative, as rows() spells them.
files() {
	(cd "$1" && find . -type f -printf '%P\n' | while IFS= read -r p; do
		printf '%s' "$p" | od -An -v -tx1 | tr -d ' \n' | tr a-f A-F
		echo
	done) | sort
}
hexname() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n' | tr a-f A-F; }
has_row() { rows "$1" | grep -qx "$(hexname "$2")"; }

mkdir -p src/d/sub src/e src/a_ src/ab src/p% src/pq "src/$ff"
for f in f1 f2 f3 d/x d/sub/y d0 d.k t s e/z a_/u ab/keep p%/u pq/keep "$ff/u" "$ff.k" \
	"${ff}0"; do
	head -c $((RANDOM + 1)) /dev/urandom >"src/$f"
done

run_fcp --mirror --manifest m.db -T src dst
check_rc 0 "first mirror"
check_eq "$(rows m.db)" "$(files dst)" "every file of the first copy recorded"

# The source changes: files and directories go, three names change type.
rm -r src/f2 src/d src/a_ src/p% "src/$ff"
rm src/t && mkdir src/t && echo inside >src/t/in
rm src/s && ln -s f1 src/s
rm -r src/e && echo now-a-file >src/e
run_fcp -v --mirror --manifest m.db -T src dst
check_rc 0 "mirror that deletes"
check_grep "^removed 'dst/f2'$" "$T/out"
check_grep "^removed directory 'dst/d'$" "$T/out"
check_tree src dst
check_eq "$(rows m.db)" "$(files dst)" "the records after the mirror are DEST's files"
for keep in ab/keep pq/keep d0 d.k "$ff.k" "${ff}0" t/in e; do
	has_row m.db "$keep" || fail "record of '$keep' lost"
done
for gone in f2 d/x d/sub/y a_/u p%/u "$ff/u" t s e/z; do
	has_row m.db "$gone" && fail "record of '$gone' kept"
done
run_fcp --check --manifest m.db dst
check_rc 0 "check of DEST alone after the mirror"
check_eq "$(cat "$T/out")" "" "no line from the check"
run_fcp --mirror --manifest m.db -T src dst
check_rc 0 "mirror again"
run_fcp --check --manifest m.db dst
check_rc 0 "check after a second mirror"

# A dry run changes nothing, the manifest included (it is refused).
rows m.db >before
rm src/f3
run_fcp --dry-run --mirror --manifest m.db -T src dst
check_rc 2 "--dry-run with --manifest"
check_eq "$(rows m.db)" "$(cat before)" "records after a dry run"
check_file dst/f3
echo f3 >src/f3

# -b: the extra renamed to its backup name loses the record of its name.
run_fcp --mirror --manifest m.db -T src dst
check_rc 0 "mirror with f3 back"
rm src/f3
run_fcp -b --mirror --manifest m.db -T src dst
check_rc 0 "mirror -b"
check_file "dst/f3~"
check_eq "$(cat "dst/f3~")" f3 "the backup's bytes"
has_row m.db f3 && fail "record of 'f3', renamed to its backup name, kept"
run_fcp --check --manifest m.db dst
check_rc 1 "check with a backup in DEST (not part of the copy)"
check_nogrep "missing in DEST" "$T/out"
check_grep "^not in the manifest: 'dst/f3~'$" "$T/out"
rm "dst/f3~"

# A file removed by hand is data lost: said, by every check.
rm dst/f1
run_fcp --check --manifest m.db dst
check_rc 1 "check after a file was removed by hand"
check_grep "^missing in DEST: 'dst/f1'$" "$T/out"
check_eq "$(wc -l <"$T/out")" 1 "lines of the check"
# Removed by hand from DEST, and from the source since: the mirror has
# nothing to delete, the record stays and the loss is still said.
rm src/d0 dst/d0
run_fcp --mirror --manifest m.db -T src dst
check_rc 0 "mirror after files were removed by hand"
check_tree src dst
run_fcp --check --manifest m.db dst
check_rc 1 "check after the mirror"
check_grep "^missing in DEST: 'dst/d0'$" "$T/out"
check_eq "$(wc -l <"$T/out")" 1 "lines of the check (f1 copied again)"

# Into DEST (records keyed by the copy's name first).
mkdir into
run_fcp --mirror --manifest m2.db src into
check_rc 0 "mirror into into"
rm -r src/ab
run_fcp --mirror --manifest m2.db src into
check_rc 0 "mirror into into that deletes a directory"
check_tree src into/src
has_row m2.db src/ab/keep && fail "record of 'src/ab/keep' kept"
has_row m2.db src/pq/keep || fail "record of 'src/pq/keep' lost"
run_fcp --check --manifest m2.db into
check_rc 0 "check of into alone"

# --move renames a file over a recorded one: its record goes (the rename
# reads nothing, so the file it put there is not recorded, and said so).
mkdir ma mb mdst
echo one >ma/f && echo gee >ma/g && echo twotwo >mb/f
run_fcp --manifest m3.db ma/f ma/g mdst
check_rc 0 "copy with a manifest"
run_fcp --move --manifest m3.db mb/f mdst
check_rc 0 "move over a recorded file"
check_absent mb/f
check_eq "$(cat mdst/f)" twotwo "the moved file's bytes"
run_fcp --check --manifest m3.db mdst
check_rc 1 "check after the move"
check_nogrep "size|content differs|missing" "$T/out"
check_grep "^not in the manifest: 'mdst/f'$" "$T/out"
echo PASS
