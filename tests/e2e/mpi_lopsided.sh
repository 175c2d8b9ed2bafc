#!/bin/bash
# fastcp-mpi on a lopsided tree: one directory of 20,000 files (its
# batches of files move between ranks, not only whole directories) and a
# chain of 300 nested directories, beside a few small ones. On 2 and 4
# ranks the copy is exact, and the big directory's files were copied by
# more than one rank.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_mpi
need_treecmp

mkdir -p "$T/src/huge" "$T/src/small/a" "$T/src/small/b"
(cd "$T/src/huge" && seq 1 20000 | xargs touch) || fail "making the big directory"
echo data >"$T/src/huge/00-with-data"
(
	cd "$T/src" || exit 1
	for i in $(seq 1 300); do mkdir c && cd c || exit 1; done
	echo bottom >bottom
) || fail "making the chain"
echo a >"$T/src/small/a/f"
echo b >"$T/src/small/b/f"
chmod 0500 "$T/src/small/b"

for n in 2 4; do
	MPIRUN_OPTS=--tag-output run_mpi "$n" -v "$T/src" "$T/dst$n"
	check_rc 0 "fastcp-mpi -np $n"
	check_tree "$T/src" "$T/dst$n"
	check_no_temp "$T/dst$n"
	ranks=$(grep "<stdout>:'[^']*/huge/[^']*' -> " "$T/out" | sed -E 's/^\[[0-9]+,([0-9]+)\].*/\1/' |
		sort | uniq -c)
	note "-np $n: files of the big directory per rank:" $ranks
	[ "$(echo "$ranks" | wc -l)" -gt 1 ] || fail "-np $n: one rank copied the whole big directory"
done
