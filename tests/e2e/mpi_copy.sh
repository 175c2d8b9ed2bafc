#!/bin/bash
# fastcp-mpi on 1, 2 and 4 ranks of this machine copies the rich sample
# tree (sizes, holes, odd names, a tree deeper than PATH_MAX, hard links,
# every kind of symlink, FIFO, devices, modes, owners, xattrs, ACLs, ns
# times) exactly, as fastcp does: treecmp finds no difference, no
# temporary name is left, one summary comes from rank 0 alone.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_mpi
need_treecmp
need_cmd setfattr setfacl

t_mktree "$T/src"
# A dry run's closing line: its total and kinds summed over every rank,
# as fastcp's own (the kinds were rank 0's alone).
run_fcp --dry-run "$T/src" "$T/dry/"
check_rc 0 "fastcp --dry-run"
want=$(grep '^fastcp: dry run' "$T/all")
[ -n "$want" ] || fail "fastcp --dry-run said no closing line"
for n in 2 4; do
	run_mpi "$n" --dry-run "$T/src" "$T/dry/"
	check_rc 0 "fastcp-mpi -np $n --dry-run"
	check_eq "$(grep '^fastcp: dry run' "$T/all")" "$want" "-np $n: the dry run's closing line"
done
for n in 1 2 4; do
	run_mpi "$n" --stats "$T/src" "$T/dst$n"
	check_rc 0 "fastcp-mpi -np $n"
	check_tree "$T/src" "$T/dst$n"
	check_no_temp "$T/dst$n"
	[ "$(grep -c '^fastcp: copied' "$T/err")" = 1 ] || fail "-np $n: not one summary"
	grep -q ' failed' "$T/err" && ! grep -q ' 0 failed' "$T/err" && fail "-np $n: failures counted"
	# Copied into an existing directory, the copy is DEST/src, as cp's.
	mkdir "$T/into$n"
	run_mpi "$n" "$T/src" "$T/into$n"
	check_rc 0 "fastcp-mpi -np $n into a directory"
	check_tree "$T/src" "$T/into$n/src"
	check_no_temp "$T/into$n"
done
