#!/bin/bash
# An immutable (chattr +i) or append-only (+a) entry in DEST takes no
# change, also from root: its metadata updated in place (--attributes-only,
# or a re-run whose data is the same) fails the item (exit 1; it said
# "copied" with warnings, exit 0), and a dry run says what the run meets:
# an extra --mirror cannot delete or back up, a directory in a file's way
# that cannot be emptied (it listed them deleted, exit 0).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "chattr +i needs root"
need_cmd chattr
touch probe && chattr +i probe 2>/dev/null || skip "this filesystem takes no chattr +i"
chattr -i probe

fresh() { chattr -R -i -a s d 2>/dev/null; rm -rf s d; mkdir -p s d; }
# same_rc WHAT ARGS...: the dry run and the run fail alike, and name the
# same paths.
same_rc() {
	local what=$1; shift
	run_fcp --dry-run "$@"
	check_rc 1 "$what: dry run"
	grep -o "'d/[^']*'" "$T/err" | sort -u >dry.names
	run_fcp "$@"
	check_rc 1 "$what: run"
	grep -o "'d/[^']*'" "$T/err" | sort -u >run.names
	[ -s run.names ] || fail "$what: the run named nothing"
	cmp -s dry.names run.names || { cat dry.names run.names; fail "$what: the dry run named other paths than the run"; }
}

# --attributes-only over an immutable file: refused, its metadata as it was.
fresh
echo aaa >s/f; chmod 600 s/f; touch -d 2020-01-01 s/f
echo aaa >d/f; chmod 644 d/f; touch -d 2001-01-01 d/f
for flag in +i +a; do
	chattr "$flag" d/f
	same_rc "--attributes-only, chattr $flag" --attributes-only -T s d
	check_grep "cannot update the metadata of immutable or append-only 'd/f'" "$T/err"
	check_eq "$(stat -c '%a %Y' d/f)" "644 $(date -d 2001-01-01 +%s)" "chattr $flag: metadata as it was"
	chattr "-${flag#+}" d/f
done

# --mirror: an immutable extra stays, and the dry run says it cannot go.
fresh
echo a >s/a; echo e >d/imm; chattr +i d/imm
same_rc "--mirror, an immutable extra" --mirror -T s d
check_grep "cannot delete 'd/imm'" "$T/err"
check_file d/imm
same_rc "--mirror -b, an immutable extra" --mirror -b -T s d
check_grep "cannot back up 'd/imm'" "$T/err"

# An extra in an append-only directory: the same.
fresh
echo a >s/a; mkdir d/ad; echo e >d/ad/x; chattr +a d/ad
mkdir s/ad
same_rc "--mirror, an extra in an append-only directory" --mirror -T s d
check_file d/ad/x

# A directory in a file's way, holding an immutable file.
fresh
echo b >s/y; mkdir d/y; echo i >d/y/q; chattr +i d/y/q
same_rc "--mirror, a directory in the way that cannot be emptied" --mirror -T s d
check_grep "cannot delete 'd/y/q'" "$T/err"
check_file d/y/q
echo PASS
