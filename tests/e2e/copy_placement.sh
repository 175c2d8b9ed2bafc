#!/bin/bash
# cp's placement rules: one source to a new DEST (DEST becomes the copy), into
# an existing directory, several sources into a directory, -T (DEST is the
# copy itself), trailing slashes, DEST as a symlink to a directory, and the
# habit flags -r/-R/-a.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

mkdir src src/d
printf 'a\n' >src/a
printf 'x\n' >src/d/x
printf 'b\n' >b

# One file to a name that does not exist: the name becomes the copy.
run_fcp src/a new_a
check_rc 0
check_file new_a
check_eq "$(cat new_a)" a "content of new_a"

# One file into an existing directory: DIR/basename.
mkdir into
run_fcp src/a into
check_rc 0
check_file into/a

# One file onto an existing file: replaced, as cp does.
printf 'old content\n' >existing
run_fcp b existing
check_rc 0
check_eq "$(cat existing)" b "content of the replaced file"
check_no_temp .

# A directory to a new name: the name becomes the copy (no nesting).
run_fcp src newdir
check_rc 0
check_file newdir/d/x
check_absent newdir/src "copy nested one level too deep"
check_tree src newdir

# A directory into an existing directory: DIR/basename.
mkdir dest5
run_fcp src dest5
check_rc 0
check_tree src dest5/src

# A trailing slash on the source does not change its name.
mkdir dest6
run_fcp src/ dest6
check_rc 0
check_file dest6/src/d/x

# An existing directory named through a symlink (and with a trailing slash).
mkdir real_dest
ln -s real_dest dest_link
run_fcp src/a dest_link/
check_rc 0
check_file real_dest/a
check_link dest_link "DEST symlink replaced"

# Several sources into an existing directory.
mkdir dest7
run_fcp src/a b src/d dest7
check_rc 0
check_file dest7/a
check_file dest7/b
check_file dest7/d/x

# Several sources, DEST not a directory: refused, nothing created.
run_fcp src/a b nodir
[ "$RC" = 1 ] || [ "$RC" = 2 ] || fail "several sources into a non-directory: exit $RC, want 1 or 2"
check_absent nodir
run_fcp src/a b existing
[ "$RC" != 0 ] || fail "several sources onto a file succeeded"
check_eq "$(cat existing)" b "file DEST was changed by a refused copy"
check_grep "existing" "$T/err" "message does not name the DEST"

# -T: DEST is the copy itself, even when it is an existing directory (merge).
mkdir dest9
printf 'keep\n' >dest9/keep
run_fcp -T src dest9
check_rc 0
check_file dest9/d/x
check_file dest9/a
check_file dest9/keep "-T removed an unrelated file"
check_absent dest9/src "-T nested the copy"
mkdir dest9b
run_fcp --no-target-directory src/a dest9b/a_copy
check_rc 0
check_file dest9b/a_copy

# -T with two sources is bad usage.
run_fcp -T src/a b dest10
check_rc 2 "-T with two sources"
check_absent dest10

# -T: a file cannot replace a directory.
mkdir dest11
run_fcp -T src/a dest11
[ "$RC" != 0 ] || fail "-T file onto a directory succeeded"
check_dir dest11

# Habit flags are accepted and change nothing.
for f in -r -R -a -ra --recursive --archive; do
	run_fcp "$f" src "habit$f"
	check_rc 0 "fastcp $f"
	check_tree src "habit$f"
done

# --help and --version exit 0 and print to stdout; --help documents exit codes.
run_fcp --help
check_rc 0 "--help"
check_grep 'Exit status' "$T/out"
run_fcp --version
check_rc 0 "--version"
check_grep '^fastcp [0-9]' "$T/out"

# Nothing was left behind anywhere.
check_no_temp "$T"
echo "placement rules ok"
