#!/bin/bash
# --delete, --max-delete, --mirror, issue 18: what the source lacks goes,
# inside the copied tree only: a symlink among the extras is removed as a
# link (what it points to, outside or inside, stays), nothing beside the
# copy is touched, a .fcp-* leftover of an interrupted run is removed and
# named (--delete implies --sync since issue 35, as --mirror did);
# --max-delete N stops before the N+1th deletion with exit 1; --mirror
# is --sync --delete (unchanged files keep their inodes); bad usage
# exits 2.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

mkdir -p src/d/e outside sib
printf 'a\n' >src/a
printf 'b\n' >src/d/b
printf 'c\n' >src/d/e/c
printf 'keep\n' >outside/keep
printf 'sib\n' >sib/f
printf 'beside\n' >beside
run_fcp -T src dst
check_rc 0 "first copy"

printf 'x\n' >dst/x
mkdir -p dst/d/xdir/deeper && printf 'y\n' >dst/d/xdir/deeper/y && printf 'z\n' >dst/d/xdir/z
ln -s "$T/outside" dst/d/e/to_outside       # a link to a directory outside
ln -s e dst/d/to_inside                      # a link to a directory inside
ln -s "$T/outside/keep" dst/to_file
left=$(t_tempname dst/d)
printf 'left\n' >"dst/d/$left"
run_fcp -v --delete -T src dst
check_rc 0 "--delete"
check_grep "^fastcp: [0-9]+ unchanged, [0-9]+ with metadata updated, 8 deleted$|, 8 deleted$" "$T/err"
check_grep "^fastcp: removed 'dst/d/$left', a temporary file left by an interrupted run" "$T/err"
check_absent "dst/d/$left" ".fcp-* leftover kept by a quick-checking --delete"
check_tree src dst
check_eq "$(cat outside/keep sib/f beside)" "$(printf 'keep\nsib\nbeside')" "outside the copy"
check_file dst/d/e/c "followed a symlink into the copy"

# --max-delete: five extras, two may go.
for i in 1 2 3 4 5; do printf '%d\n' "$i" >"dst/extra$i"; done
run_fcp --delete --max-delete 2 -T src dst
check_rc 1 "--max-delete 2 with 5 extras"
check_grep "max-delete 2 reached: not deleting 'dst/extra[0-9]'" "$T/err"
check_eq "$(ls dst | grep -c extra)" 3 "extras left after --max-delete 2"
run_fcp --delete --max-delete 3 -T src dst
check_rc 0 "--max-delete 3 with 3 extras"
check_tree src dst

# --mirror: --sync --delete.
ino=$(stat -c %i dst/d/b)
printf 'x\n' >dst/d/e/extra
printf 'changed\n' >src/a
run_fcp -v --mirror -T src dst
check_rc 0 "--mirror"
check_tree src dst
check_eq "$(stat -c %i dst/d/b)" "$ino" "--mirror copied an unchanged file again"
check_grep "^fastcp: copied 1 file \(" "$T/err"

# A type change under --mirror: the directory in the way of a file, and
# the file in the way of a directory, go (as with rsync --delete); without
# --delete they stay and the entry fails.
rm src/d/b && mkdir src/d/b && printf 'in\n' >src/d/b/in
mkdir -p dst/d/e/c_dir_now && rm -r src/d/e/c && printf 'c\n' >src/d/e/c && rm -r dst/d/e/c
mkdir dst/d/e/c && printf 'deep\n' >dst/d/e/c/deep
run_fcp --sync -T src dst
check_rc 1 "type changes without --delete"
check_file dst/d/e/c/deep "--sync alone removed a directory in the way"
run_fcp -v --mirror -T src dst
check_rc 0 "type changes with --mirror"
check_tree src dst

# Never the root copy's own name: a file onto a directory with -T fails.
mkdir -p adir && printf 'keep\n' >adir/keep
run_fcp --mirror -T src/a adir
check_rc 1 "--mirror -T file onto a directory"
check_file adir/keep "--mirror removed the directory given as DEST"

# A new copy: nothing to delete, nothing beside it touched.
run_fcp --delete src sib
check_rc 0 "--delete into a directory"
check_tree src sib/src
check_file sib/f "--delete removed a sibling of the copy"

# Bad usage.
run_fcp --delete src beside
check_rc 2 "--delete onto a file"
check_grep "needs a directory" "$T/err"
check_eq "$(cat beside)" "beside" "the file DEST"
for bad in abc -1 1x "" 99999999999; do
	run_fcp --delete --max-delete "$bad" -T src dst
	check_rc 2 "--max-delete '$bad'"
	check_grep "invalid --max-delete" "$T/err"
done
run_fcp --max-delete 3 -T src dst
check_rc 2 "--max-delete without --delete"
echo "delete: extras go, inside the copy only"
