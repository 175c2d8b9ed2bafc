#!/bin/bash
# --move with --delete or --mirror, run again to finish: what the first run
# moved is in DEST only, and the source lacks it, so the second run took it
# for extras and deleted it (on the build before, the files of the first
# run were on neither side, and the second run exited 0). A --move now
# marks its copy before the first source goes (user.fastcp.moved); a run
# that finds the mark keeps those names and says so.
#   - Across filesystems, a source file that cannot be removed (immutable):
#     the first run deletes DEST's real extra, moves the rest, exits 1; the
#     same command again, the file freed, exits 0 with every file in DEST,
#     SOURCE gone and the mark gone.
#   - -T with --delete into a new DEST: the same.
#   - One filesystem, DEST holding a non-empty copy: the same.
#   - A plain --mirror of what is left after a partial move keeps the moved
#     files, says why and exits 1 (it cannot mirror); its dry run says so.
#   - A --mirror into a directory inside the marked copy, or of a directory
#     that holds it, keeps them too; and the marked copy whose source was
#     removed by hand is no extra to delete (exit 1, said).
#   - A copy of the marked copy (cp -a keeps user xattrs) is not marked.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "loop filesystems and chattr +i need root"
need_cmd chattr getfattr setfattr

t_mount_fs ext4 64M S
t_mount_fs ext4 64M E
chattr_ok() { touch S/.probe && chattr +i S/.probe 2>/dev/null && chattr -i S/.probe && rm S/.probe; }
chattr_ok || skip "chattr +i not supported on ext4 here"

# world DIR: a source tree with one file that cannot be removed.
world() {
	rm -rf "$1"
	mkdir -p "$1/d1" "$1/d2"
	echo one >"$1/d1/a"
	echo two >"$1/d1/b"
	echo three >"$1/d2/c"
	chattr +i "$1/d2/c"
}
# files DIR: its files and their contents, one line each.
files() { (cd "$1" && find . -type f | sort | while read -r f; do echo "$f=$(cat "$f")"; done); }
want="./d1/a=one
./d1/b=two
./d2/c=three"

case_rerun() { # NAME SRC DSTCOPY ARGS...: first run, free the file, same command again
	local name=$1 src=$2 copy=$3
	shift 3
	run_fcp "$@"
	check_rc 1 "$name: the first run (one source cannot be removed)"
	check_grep "cannot remove '$src/d2/c'" "$T/err" "$name: the kept source named"
	check_absent "$copy/old" "$name: DEST's real extra after the first run"
	chattr -i "$src/d2/c"
	run_fcp "$@"
	check_rc 0 "$name: the same command again"
	check_eq "$(files "$copy")" "$want" "$name: every file in DEST"
	check_grep "a --move into it has removed part of its source" "$T/err" "$name: the kept names said"
	check_absent "$src" "$name: SOURCE after the move finished"
	getfattr -n user.fastcp.moved "$copy" >/dev/null 2>&1 && fail "$name: the mark stayed after the move"
	true
}

world S/src
mkdir -p E/dst/src/old && echo x >E/dst/src/old/extra
case_rerun "--move --mirror across filesystems" S/src E/dst/src --move --mirror S/src E/dst/

world S/src
case_rerun "--move --delete -T into a new DEST" S/src E/new --move --delete -T S/src E/new
# (A new copy has no extras: the first run's check of old/ is vacuous.)

world S/src
mkdir -p S/dst/src/old && echo x >S/dst/src/old/extra
case_rerun "--move --mirror on one filesystem" S/src S/dst/src --move --mirror S/src S/dst/

# A partial move, then a plain --mirror of what is left.
world S/src
mkdir E/m
run_fcp --move S/src E/m/
check_rc 1 "a move with one source that cannot be removed"
chattr -i S/src/d2/c
rm S/src/d2/c
run_fcp --mirror --dry-run S/src E/m/
check_rc 1 "the dry run of a --mirror into a partly moved copy"
check_grep "deletions held back in 'E/m/src': a --move into it" "$T/err" "the dry run says why"
run_fcp --mirror S/src E/m/
check_rc 1 "a --mirror into a partly moved copy"
check_grep "deletions held back in 'E/m/src': a --move into it" "$T/err" "the mirror says why"
check_eq "$(files E/m/src)" "$want" "the moved files kept by --mirror"

# Inside the marked copy, and around it.
files_of() { (cd "$1" && find . -type f | sort | tr '\n' ' '); }
rm -rf S/p E/p
mkdir -p S/p/d/sub
echo f1 >S/p/d/f1
echo g1 >S/p/d/sub/g1
echo f2 >S/p/d/f2
chattr +i S/p/d # (its entries stay; sub/g1 goes, sub stays empty)
mkdir E/p
run_fcp --move S/p/d E/p/
check_rc 1 "a partial move for the cases around the copy"
check_eq "$(files_of E/p/d)" "./f1 ./f2 ./sub/g1 " "the copy"
run_fcp --mirror -T S/p/d/sub E/p/d/sub
check_rc 1 "--mirror into a directory inside the marked copy"
check_eq "$(files_of E/p/d)" "./f1 ./f2 ./sub/g1 " "the moved files, after a --mirror inside the copy"
run_fcp --mirror -T S/p E/p
check_rc 1 "--mirror of a directory that holds the marked copy"
check_grep "deletions held back in 'E/p/d/sub'" "$T/err" "the mirror around the copy says why"
check_eq "$(files_of E/p/d)" "./f1 ./f2 ./sub/g1 " "the moved files, after a --mirror around the copy"
chattr -i S/p/d
rm -r S/p/d
run_fcp --mirror --dry-run -T S/p E/p
check_rc 1 "the dry run of a --mirror that would delete the marked copy"
run_fcp --mirror -T S/p E/p
check_rc 1 "a --mirror that would delete the marked copy, its source removed by hand"
check_grep "it holds what a --move not finished has moved" "$T/err" "the kept copy said"
check_eq "$(files_of E/p/d)" "./f1 ./f2 ./sub/g1 " "the marked copy, its source gone"
setfattr -x user.fastcp.moved E/p/d
run_fcp --mirror -T S/p E/p
check_rc 0 "--mirror once the mark is removed by hand"
check_absent E/p/d "the copy, deleted once its mark was removed"

# cp -a of the marked copy: another directory, no mark of its own.
cp -a E/m/src E/copy
mkdir -p S/src && echo one >S/src/only
run_fcp --mirror -T S/src E/copy
check_rc 0 "a --mirror into a cp -a copy of a marked copy"
check_eq "$(files E/copy)" "./only=one" "that copy mirrored"
echo PASS
