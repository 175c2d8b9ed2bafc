#!/bin/bash
# cp's --backup[=CONTROL] and -S SUFFIX (issue 20), beside GNU cp: each
# replaced non-directory is kept as NAME~ (simple), NAME.~N~ (numbered,
# one past the highest), or numbered only where numbered backups exist
# (existing, the default); $VERSION_CONTROL and $SIMPLE_BACKUP_SUFFIX as
# in cp; directories are merged, never backed up.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p src/sub out/sub
	for f in a b sub/c new; do echo "src $f" >src/$f; done
	for f in a b sub/c; do echo "old $f" >out/$f; done
	echo "first a" >out/a.~1~; echo "third a" >out/a.~3~  # numbered already
	echo "older b" >out/b~
	ln -s to-src src/link; ln -s to-old out/link          # a link is backed up too
	mkdir src/dir out/dir; echo x >src/dir/x              # a directory is merged
}

for opts in "--backup" "-b" "--backup=numbered" "--backup=t" "--backup=existing" \
	    "--backup=nil" "--backup=simple" "--backup=never" "--backup=none" "--backup=off" \
	    "-S .bak" "--suffix=.orig --backup=numbered" "-b -S _old"; do
	cp_twins setup
	cp_both $opts -T src out
	cp_same
done
check_file "$T/fcp/out/a.~1~"
check_absent "$T/fcp/out/dir~"

# The environment: VERSION_CONTROL for a bare --backup, SIMPLE_BACKUP_SUFFIX.
cp_twins setup
export VERSION_CONTROL=numbered SIMPLE_BACKUP_SUFFIX=.sav
cp_both -b -T src out
cp_same
check_file "$T/fcp/out/b.~1~"
export VERSION_CONTROL=never
cp_both -b -T src out
cp_same
check_file "$T/fcp/out/b.sav"
unset VERSION_CONTROL SIMPLE_BACKUP_SUFFIX

# Twice: the second run's backups are of the first run's copies.
cp_twins setup
cp_both --backup=numbered src/a out/a
cp_both --backup=numbered src/a out/a
cp_same
check_eq "$(cat "$T/fcp/out/a.~5~")" "src a" "second numbered backup"

run_fcp --backup=bogus src out
check_rc 2
run_fcp -n -b src out
check_rc 2
check_grep "mutually exclusive" "$T/err"
echo PASS
