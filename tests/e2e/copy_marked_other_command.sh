#!/bin/bash
# A copy with a failed item keeps its marker (user.fastcp.move), by which
# the same command again goes on into DEST itself instead of DEST/SOURCE.
# Only that command: not a copy of DEST made with cp -a (which keeps user
# xattrs), and not a command that deletes after one that did not (or the
# other way round): --mirror SOURCE DEST then copies into DEST/SOURCE, as
# cp places it, and deletes nothing of what the user keeps in DEST.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
getfattr --version >/dev/null 2>&1 || skip "getfattr missing (attr)"

mkdir photos && echo p1 >photos/p1 && ln -s loop photos/loop
run_fcp -L photos backup
check_rc 1 "a copy with a symlink loop"
getfattr -n user.fastcp.move backup >/dev/null 2>&1 || skip "no user xattrs here: no marker"
cp -a backup archive
echo keep >archive/other
mkdir backup/docs && echo important >backup/docs/thesis.txt
rm photos/loop

run_fcp --mirror photos archive
check_rc 0 "--mirror into a cp -a copy of a marked copy"
check_eq "$(cat archive/other 2>&1)" keep "--mirror deleted a file of a copy made by cp -a"
check_file archive/photos/p1 "--mirror did not copy into DEST/SOURCE"

run_fcp -L --mirror photos backup
check_rc 0 "--mirror after a plain copy with a failed item"
check_eq "$(cat backup/docs/thesis.txt 2>&1)" important "--mirror deleted a user's file in DEST"
check_file backup/photos/p1 "--mirror did not copy into DEST/SOURCE"

# The same command again still goes on into its copy.
rm -rf photos backup
mkdir photos && echo p1 >photos/p1 && ln -s loop photos/loop
run_fcp -L --mirror photos backup
check_rc 1 "a --mirror with a symlink loop"
echo extra >backup/extra
rm photos/loop
run_fcp -L --mirror photos backup
check_rc 0 "the same --mirror again"
check_absent backup/photos "the same command again copied into DEST/SOURCE"
check_absent backup/extra "the same --mirror again kept an extra of its copy"
check_eq "$(cat backup/p1)" p1 "the copy"
echo "a marked copy is gone on into by the same command only"
