#!/bin/bash
# cp's -n/--no-clobber and -u/--update[=older|all|none] (issue 20), beside
# GNU cp on the same input: -n keeps every file already there (exit 0),
# -u replaces only a file older than its source, --update=all is the
# default; directories are merged either way. -i and -n: the last wins.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p src/sub out/sub
	for f in older newer same new sub/older sub/newer; do echo "src $f" >src/$f; done
	touch -d '2020-01-01' src/older src/sub/older
	touch -d '2022-01-01' src/newer src/sub/newer src/same
	for f in older newer same sub/older sub/newer; do echo "old $f" >out/$f; done
	touch -d '2019-01-01' out/older out/sub/older     # older than its source
	touch -d '2023-01-01' out/newer out/sub/newer     # newer than its source
	touch -d '2022-01-01' out/same                    # as old as its source
	ln -s nowhere src/link; ln -s elsewhere out/link  # a link is a file too
}

for opts in "-n" "--no-clobber" "-i -n" "-n -u" "-u -n" "-u" "--update"; do
	cp_twins setup
	cp_both $opts -T src out
	cp_same
	check_eq "$(cat "$T/fcp/out/same")" "old same" "$opts kept"
done
check_eq "$(cat "$T/fcp/out/older")" "src older" "-u replaced an older file"
check_eq "$(cat "$T/fcp/out/sub/newer")" "old sub/newer" "-u kept a newer file"

# A single file onto a file, and into a directory.
for opts in "-n" "-u"; do
	cp_twins setup
	cp_both $opts src/newer out/newer
	cp_same
	cp_both $opts src/older out/sub
	cp_same
done

# --update=none is -n, --update=all the default, --update=older -u (this
# GNU cp may predate the values: compared with its -n, nothing and -u).
for pair in "--update=none:-n" "--update=all:" "--update=older:-u"; do
	cp_twins setup
	(cd "$T/gnu" && cp -a ${pair#*:} -T src out) || fail "cp ${pair#*:}"
	cd "$T/fcp" && run_fcp "${pair%%:*}" -T src out && cd "$T"
	check_rc 0
	check_tree "$T/gnu" "$T/fcp" --no-times
done
# Counted as kept, and said so by a dry run.
cp_twins setup
cd "$T/fcp" && run_fcp -v -n -T src out && cd "$T"
check_grep "^fastcp: 6 files kept where they were already \(-n, -u or -i\)$" "$T/err"
check_nogrep "[1-9][0-9]* skipped" "$T/err"
cp_twins setup
cd "$T/fcp" && run_fcp --dry-run -u -T src out && cd "$T"
check_eq "$(grep -c "^keep '" "$T/out")" 0 "dry run: what is kept listed without -vv"
cd "$T/fcp" && run_fcp --dry-run -vv -u -T src out && cd "$T"
check_eq "$(grep -c "^keep '" "$T/out")" 4 "dry run -vv: kept by -u"
check_grep "^keep 'out/sub/newer'$" "$T/out"
run_fcp --update=newer a b
check_rc 2
check_grep "invalid --update value 'newer'" "$T/err"
echo PASS
