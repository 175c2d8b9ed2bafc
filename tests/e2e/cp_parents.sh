#!/bin/bash
# cp's --parents (issue 20), beside GNU cp: SOURCE is copied to
# DEST/SOURCE, its whole path; the directories of the path are made with
# their sources' mode, owner and times; DEST must be a directory. A ".."
# in the path is refused (it would climb out of DEST; cp makes the copy
# outside DEST).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p a/b/c x/y out/a
	echo f >a/b/c/f; echo g >a/b/g; echo h >x/y/h; echo top >top
	chmod 750 a/b; chmod 700 x
	touch -d 2020-01-01 a/b/c a/b x/y x
}

for cmd in "--parents a/b/c/f out" "--parents a/b/g x/y/h top out" "--parents a/b out" \
	   "--parents ./a//b/c/ out" "--parents x/y/h out/" "--parents a/b/c/f x/y/h -t out" \
	   "--parents a/b/g out/a"; do
	cp_twins setup
	cp_both $cmd
	cp_same
	# The times of the directories made: their sources'.
	for d in x x/y; do
		[ -d "$T/fcp/out/$d" ] && [ ! -d "$T/base/out/$d" ] || continue
		check_eq "$(stat -c '%a %Y' "$T/fcp/out/$d")" "$(stat -c '%a %Y' "$T/gnu/out/$d")" "$d"
	done
done
cp_twins setup
cp_both --parents x/y/h out
check_eq "$(stat -c '%a %Y' "$T/fcp/out/x")" "700 $(stat -c %Y "$T/fcp/x")" "out/x"

cp_twins setup
cp_both --parents a/b/g top
check_rc 2
check_grep "with --parents, the destination must be a directory" "$T/err"
cd "$T/fcp/a" && run_fcp --parents ../top b && cd "$T"
check_rc 1
check_absent "$T/fcp/a/top"
check_grep "'..' in its path" "$T/err"

# A directory of the path that is there already keeps its own mode and
# owner (the man page says so; cp -a gives it the source's).
cp_twins setup
mkdir -p "$T/fcp/out/a"; chmod 751 "$T/fcp/out/a"
chmod 700 "$T/fcp/a"
before=$(stat -c '%a %u' "$T/fcp/out/a")
cd "$T/fcp" && run_fcp --parents a/b/c/f out && cd "$T"
check_rc 0
check_eq "$(stat -c '%a %u' "$T/fcp/out/a")" "$before" "an existing directory of the path"
check cmp "$T/fcp/a/b/c/f" "$T/fcp/out/a/b/c/f"

# --dry-run makes none of the path's directories: it names them.
cp_twins setup
cd "$T/fcp" && run_fcp --dry-run --parents a/b/c/f x/y/h out && cd "$T"
check_rc 0
check_absent "$T/fcp/out/a/b" "--dry-run made a directory of the path"
check_absent "$T/fcp/out/x" "--dry-run made a directory of the path"
check_grep "^mkdir 'out/a/b'$" "$T/out"
check_grep "^mkdir 'out/x/y'$" "$T/out"
check_grep "copy 'out/a/b/c/f'" "$T/out"
echo PASS
