#!/bin/bash
# fastcp-mpi: the names of one inode, spread over directories that
# different ranks read, become one inode in the copy (regular files, a
# FIFO, a symlink), with as many names as in the source; on 2 and 4 ranks.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_mpi
need_treecmp

# 48 directories of 40 files each; inode k (1..12) has a name in d$k,
# d$((k+12)), d$((k+24)) and d$((k+36)): far apart in the walk, so that
# the ranks that read them differ.
mkdir "$T/src"
for d in $(seq 1 48); do
	mkdir "$T/src/d$d"
	for i in $(seq 1 40); do echo "$d $i" >"$T/src/d$d/f$i"; done
done
for k in $(seq 1 12); do
	echo "inode $k" >"$T/src/d$k/link$k"
	for j in 12 24 36; do ln "$T/src/d$k/link$k" "$T/src/d$((k + j))/link$k"; done
done
mkfifo "$T/src/d1/fifo" && ln "$T/src/d1/fifo" "$T/src/d30/fifo"
ln -s target "$T/src/d2/sym" && ln -P "$T/src/d2/sym" "$T/src/d40/sym"

for n in 2 4; do
	MPIRUN_OPTS=--tag-output run_mpi "$n" -v "$T/src" "$T/dst$n"
	check_rc 0 "fastcp-mpi -np $n"
	check_tree "$T/src" "$T/dst$n"
	check_no_temp "$T/dst$n"
	for k in $(seq 1 12); do
		# shellcheck disable=SC2046
		set -- $(stat -c '%i %h' "$T/dst$n"/d{$k,$((k + 12)),$((k + 24)),$((k + 36))}/link$k)
		[ "$1 $2" = "$3 $4" ] && [ "$1 $2" = "$5 $6" ] && [ "$1 $2" = "$7 $8" ] && [ "$2" = 4 ] ||
			fail "-np $n: the names of inode $k are not one inode of 4 links: $*"
	done
	check_eq "$(stat -c %i "$T/dst$n/d1/fifo")" "$(stat -c %i "$T/dst$n/d30/fifo")" "-np $n: FIFO"
	check_eq "$(stat -c %i "$T/dst$n/d2/sym")" "$(stat -c %i "$T/dst$n/d40/sym")" "-np $n: symlink"
	# The directories holding the names were read by different ranks:
	# the ranks that copied their other files.
	spread=0
	for k in $(seq 1 12); do
		r=$(grep -E "<stdout>:'[^']*/d($k|$((k + 12))|$((k + 24))|$((k + 36)))/f[^']*' -> " "$T/out" |
			sed -E 's/^\[[0-9]+,([0-9]+)\].*/\1/' | sort -u | wc -l)
		[ "$r" -gt 1 ] && spread=$((spread + 1))
	done
	note "-np $n: $spread of 12 inodes had names in directories of different ranks"
	[ "$spread" -gt 0 ] || fail "-np $n: no inode had its names read by different ranks"
done
