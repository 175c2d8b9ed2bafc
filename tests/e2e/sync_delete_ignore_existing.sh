#!/bin/bash
# --ignore-existing (-n that may go with --delete) keeps everything that is
# there, also where it is of another kind than its source: a file in the
# way of a source directory and a whole directory tree in the way of a
# source file were deleted to make room (and the dry run said nothing of
# it). As rsync -a --ignore-existing --delete: both stay, byte for byte;
# fastcp names them (exit 1); --move keeps their sources. And -u --delete,
# which replaces a type conflict as rsync does, lists the deletions in
# its dry run.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

setup() {
	rm -rf src dst ref srcref
	mkdir -p src/a dst/b/deep
	echo A >src/a/x
	echo srcb >src/b
	echo new >src/new
	echo FILE >dst/a
	echo KEEP >dst/b/y
	head -c 100000 /dev/urandom >dst/b/deep/z
	echo extra >dst/extra
	cp -a dst ref
	cp -a src srcref
}

for opts in "--ignore-existing --delete" "--move --ignore-existing --delete" \
	    "--ignore-existing --mirror"; do
	setup
	# shellcheck disable=SC2086
	run_fcp $opts -T src dst
	check_eq "$(cat dst/a 2>/dev/null)" FILE "$opts: the file in the way of a directory"
	cmp ref/b/deep/z dst/b/deep/z || fail "$opts: the tree in the way of a file"
	check_eq "$(cat dst/b/y 2>/dev/null)" KEEP "$opts: the tree in the way of a file"
	check_rc 1 "$opts"
	check_grep "not replaced \(-n\), a non-directory in the way of a directory: 'dst/a'" "$T/err"
	check_grep "not replaced \(-n\), a directory in the way of a file: 'dst/b'" "$T/err"
	check_eq "$(cat dst/new)" new "$opts: the rest is copied"
	check_absent dst/extra "$opts: a true extra still goes"
	case $opts in
	--move*) check_tree srcref/a src/a; check_eq "$(cat src/b)" srcb "source kept"
		 check_absent src/new ;;
	esac
done

# --dry-run: nothing deleted, and no line says so; -vv lists what is kept;
# the run's failures are said, and it exits 1 as the run does.
setup
run_fcp --ignore-existing --delete --dry-run -vv -T src dst
check_tree ref dst
check_rc 1
check_grep "not replaced \(-n\), a non-directory in the way of a directory: 'dst/a'" "$T/err"
check_grep "not replaced \(-n\), a directory in the way of a file: 'dst/b'" "$T/err"
check_nogrep "delete 'dst/(a|b)" "$T/out"
check_grep "^keep 'dst/a'" "$T/out"
check_grep "^keep 'dst/b'" "$T/out"

# -u --delete replaces a type conflict (rsync's rule); its dry run says
# what that deletes, the real run does it.
setup
run_fcp -u --delete --dry-run -T src dst
check_tree ref dst
check_grep "^delete 'dst/b/deep/z'" "$T/out"
check_grep "^delete 'dst/a'" "$T/out"
run_fcp -u --delete -T src dst
check_rc 0
check_tree srcref dst
echo PASS
