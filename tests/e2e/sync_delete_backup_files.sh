#!/bin/bash
# -b with --delete/--mirror, as rsync -a -b --delete: a DEST file that a
# directory of the source replaces, and an extra that --delete takes, are
# renamed to their backup names, not removed; in an extra directory each
# non-directory gets its backup beside itself and the directory stays
# with them (said); an empty one goes. Every byte of the old files
# survives, the tree is rsync's, and the dry run lists a "backup" line for
# each, changing nothing.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

setup() {
	rm -rf "$1" && mkdir -p "$1/s/f" "$1/d/xd/sub" "$1/d/xd/empty" "$1/s/g" "$1/d/g/olddir"
	echo new >"$1/s/f/inner"; ln -s t "$1/s/l"; echo gg >"$1/s/g/x"
	echo "old file contents" >"$1/d/f"; echo "old l" >"$1/d/l"; echo "extra file" >"$1/d/h"
	echo in >"$1/d/xd/a"; echo in2 >"$1/d/xd/sub/b"; ln -s q "$1/d/xd/sym"
	echo old >"$1/d/g/x"; echo od >"$1/d/g/olddir/c"
}

setup "$T/f"
cp -a "$T/f" "$T/before"
run_fcp -b --mirror --dry-run -T "$T/f/s" "$T/f/d"
check_rc 0 "dry run"
check_tree "$T/before" "$T/f"
for p in f h xd/a xd/sub/b xd/sym g/olddir/c; do
	check_grep "^backup '$T/f/d/$p'$" "$T/out" "dry run: no backup line for $p"
done
check_nogrep "^delete '$T/f/d/(f|h|xd/a|xd/sub/b|xd/sym|g/olddir/c|xd|xd/sub|g/olddir)'$" "$T/out" \
	"dry run: a deletion the run does not make"
check_grep "^delete '$T/f/d/xd/empty'$" "$T/out" "dry run: the empty directory"
cp "$T/out" "$T/dry.out"

run_fcp -b --mirror -v -T "$T/f/s" "$T/f/d"
check_rc 0
check_eq "$(cat "$T/f/d/f~")" "old file contents" "the file a directory replaced"
check_eq "$(cat "$T/f/d/h~")" "extra file" "the extra"
check_eq "$(cat "$T/f/d/l~")" "old l" "the file a symlink replaced"
check_eq "$(cat "$T/f/d/xd/a~" "$T/f/d/xd/sub/b~" "$T/f/d/g/olddir/c~" "$T/f/d/g/x~")" \
	"$(printf 'in\nin2\nod\nold')" "the files in extra directories"
check_eq "$(readlink "$T/f/d/xd/sym~")" q "the symlink in an extra directory"
check_eq "$(cat "$T/f/d/f/inner")" new "the copy"
check_absent "$T/f/d/h"
check_absent "$T/f/d/xd/empty"
check_grep "^renamed '$T/f/d/h' -> '$T/f/d/h~' \\(backup\\)$" "$T/out"
check_grep "deletions held back in '$T/f/d/xd': it holds backups, which -b keeps" "$T/err"
check_tree "$T/before/s" "$T/f/s"
check_no_temp "$T/f/d"
# The dry run's lines are the run's.
sed -nE "s/^renamed ('[^']*') -> .*/backup \\1/p; s/^removed (directory )?'/delete '/p" "$T/out" |
	sort >"$T/real"
grep -E "^(backup|delete) '" "$T/dry.out" | sort >"$T/dry"
check_eq "$(cat "$T/dry")" "$(cat "$T/real")" "the dry run's backups and deletions"

# Beside rsync on the same tree: the same names with the same bytes.
if command -v rsync >/dev/null; then
	setup "$T/r"
	rsync -a -b --delete "$T/r/s/" "$T/r/d/" >/dev/null 2>&1
	check_tree "$T/r/d" "$T/f/d" --no-times
else
	note "no rsync: not compared"
fi

# --backup=numbered: NAME.~1~, and a second extra of that name .~2~.
setup "$T/n"
run_fcp --backup=numbered --delete -T "$T/n/s" "$T/n/d"
check_rc 0 numbered
echo "second h" >"$T/n/d/h"
run_fcp --backup=numbered --delete -T "$T/n/s" "$T/n/d"
check_rc 0 "numbered, second run"
check_eq "$(cat "$T/n/d/f.~1~" "$T/n/d/h.~1~" "$T/n/d/h.~2~")" \
	"$(printf 'old file contents\nextra file\nsecond h')" "numbered backups"

# Counted as what happened: two extras renamed to backup names are no
# deletions, in the summary, the table (extras 2, deleted 0), --json and
# the dry run's closing line; without -b they are deleted.
counts() { # DIR
	rm -rf "$1" && mkdir -p "$1/s" "$1/d"
	echo a >"$1/s/a"; echo e >"$1/d/e1"; echo e >"$1/d/e2"
}
counts "$T/c"
run_fcp --mirror -b --dry-run -T "$T/c/s" "$T/c/d"
check_rc 0 "counts: dry run"
check_grep "update metadata of [0-9]+, delete 0, rename 2 to backup names \(-b\)$" "$T/out" \
	"counts: the dry run's closing line"
run_fcp --mirror -b --stats -T "$T/c/s" "$T/c/d"
check_rc 0 counts
check_eq "$(ls "$T/c/d" | tr '\n' ' ')" "a e1~ e2~ " "counts: the tree"
check_grep "^fastcp: [0-9]+ unchanged, [0-9]+ with metadata updated, 0 deleted, 2 renamed to backup names \(-b\)$" \
	"$T/err" "counts: the summary line"
check_grep "^fastcp: entries +1 +1 +0 +0 +2 +0$" "$T/err" "counts: the table's entries"
counts "$T/c"
run_fcp --mirror -b --json -T "$T/c/s" "$T/c/d"
check_rc 0 "counts: --json"
check_grep '"deleted": ?0, ?"backed_up": ?2,' "$T/out" "counts: --json"
check_grep '"changed": ?true' "$T/out" "counts: --json changed"
counts "$T/c"
run_fcp --mirror --stats -T "$T/c/s" "$T/c/d"
check_rc 0 "counts without -b"
check_grep "^fastcp: [0-9]+ unchanged, [0-9]+ with metadata updated, 2 deleted$" "$T/err" \
	"counts without -b: the summary line"
check_grep "^fastcp: entries +1 +1 +0 +0 +2 +2$" "$T/err" "counts without -b: the table"

# Without -b extras still go.
setup "$T/p"
run_fcp --mirror -T "$T/p/s" "$T/p/d"
check_rc 0 "without -b"
check_absent "$T/p/d/h"; check_absent "$T/p/d/h~"; check_absent "$T/p/d/xd"
echo PASS
