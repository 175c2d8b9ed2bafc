#!/bin/bash
# "--mirror disk1/photos disk2/photos backup/" (issue 33, item 4): sources
# of one name merge into one copy, and --delete judges that copy against
# all of them (as rsync keeps the union of its sources): no round deletes
# what another copied, on the first run or any later one, while an extra
# that none of them has goes, at every depth. So does "dir/.", which merges
# into DEST itself, beside another SOURCE's copy. A directory in the way of a
# file is not removed where another source has it. --check of the merge
# finds no extras.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p disk1/photos/2024 disk2/photos/2024 disk2/photos/only2 disk1/photos/only1
for i in 1 2 3; do head -c $((i * 1000)) /dev/urandom >"disk1/photos/a$i.jpg"; done
for i in 1 2 3; do head -c $((i * 1100)) /dev/urandom >"disk2/photos/b$i.jpg"; done
head -c 3000 /dev/urandom >disk1/photos/2024/a.jpg
head -c 3100 /dev/urandom >disk2/photos/2024/b.jpg
head -c 3200 /dev/urandom >disk1/photos/only1/c.jpg
head -c 3300 /dev/urandom >disk2/photos/only2/d.jpg
mkdir disk1/photos/kind && printf 'dir in 1\n' >disk1/photos/kind/k
(cd disk1/photos && find . -type f -print0 | sort -z | xargs -0 sha256sum) >sums1
(cd disk2/photos && find . -type f -print0 | sort -z | xargs -0 sha256sum) >sums2

# What the backup held before, which neither source has.
mkdir -p backup/photos/2024 backup/photos/gone backup/photos/only1
printf 'stale\n' >backup/photos/stale.jpg
printf 'stale\n' >backup/photos/2024/stale.jpg
printf 'stale\n' >backup/photos/gone/x
printf 'stale\n' >backup/photos/only1/stale.jpg

both() {
	(cd backup/photos && sha256sum --quiet -c "$T/sums1") || fail "$1: a file of disk1 is missing"
	(cd backup/photos && sha256sum --quiet -c "$T/sums2") || fail "$1: a file of disk2 is missing"
}

run_fcp --mirror disk1/photos disk2/photos backup/
check_rc 0 "first --mirror of two sources of one name"
both "first run"
for f in stale.jpg 2024/stale.jpg gone only1/stale.jpg; do
	check_absent "backup/photos/$f" "an extra neither source has"
done
run_fcp -v --mirror disk1/photos disk2/photos backup/
check_rc 0 "second --mirror"
both "second run"
# -v's lines: rm's for a deletion, cp's arrow for data copied.
check_nogrep "^removed " "$T/out" "the second run deleted"
check_nogrep " -> " "$T/out" "the second run copied again"

# An extra that appears later goes; so does one in the other order.
printf 'stale\n' >backup/photos/2024/late.jpg
run_fcp --mirror disk2/photos disk1/photos backup/
check_rc 0 "--mirror in the other order"
both "the other order"
check_absent backup/photos/2024/late.jpg "an extra neither source has, later"

# --check of the merge: no extras (the merged directories' times are the
# later source's, which the earlier one's round lists).
run_fcp --check disk1/photos disk2/photos backup/
check_nogrep "extra in DEST" "$T/all"
check_nogrep "'backup/photos/[^']*\.jpg'" "$T/out" "--check found a file differing"

# A file in one source where the other has a directory: the directory
# the other copied is not removed for it; that file fails.
printf 'file in 2\n' >disk2/photos/kind
run_fcp --mirror disk1/photos disk2/photos backup/
check_rc 1 "a file of one source where the other has a directory"
check_grep "not replacing an entry another SOURCE has: 'backup/photos/kind'" "$T/err"
check_eq "$(cat backup/photos/kind/k)" "dir in 1" "the other source's directory"
rm disk2/photos/kind

# "dir/." merges into DEST itself, where another SOURCE's copy lies (both
# in one round, at once): neither deletes the other's.
mkdir -p top/docs cam/photos nest/photos/old
printf 'top\n' >top/t
printf 'doc\n' >top/docs/d
for i in $(seq 1 200); do printf '%d\n' "$i" >"cam/photos/p$i"; done
printf 'stale\n' >nest/stale
printf 'stale\n' >nest/photos/old/stale
for run in 1 2 3; do
	run_fcp --mirror top/. cam/photos nest/
	check_rc 0 "--mirror top/. cam/photos nest/, run $run"
	check_eq "$(ls nest/photos | wc -l)" 200 "cam/photos' copy beside top/.'s, run $run"
	check_eq "$(cat nest/t nest/docs/d)" "$(printf 'top\ndoc')" "top/.'s copy, run $run"
	check_absent nest/stale "an extra of DEST that neither has"
	check_absent nest/photos/old "an extra of cam/photos' copy"
done

# The same on several ranks (fastcp-mpi), where other ranks tidy some of
# the merged directories.
if command -v mpirun >/dev/null 2>&1 && [ -x "$FASTCP_MPI" ]; then
	[ "${FCP_SANITIZE:-}" = asan ] && mpi_lsan_ # Open MPI's own memory (need_mpi)
	for d in $(seq 1 20); do
		mkdir -p "disk1/photos/m$d" "disk2/photos/m$d" "backup/photos/m$d"
		for f in $(seq 1 30); do
			printf '%d %d\n' "$d" "$f" >"disk1/photos/m$d/a$f"
			printf '%d %d\n' "$f" "$d" >"disk2/photos/m$d/b$f"
		done
		printf 'stale\n' >"backup/photos/m$d/stale"
	done
	(cd disk1/photos && find . -type f -print0 | sort -z | xargs -0 sha256sum) >sums1
	(cd disk2/photos && find . -type f -print0 | sort -z | xargs -0 sha256sum) >sums2
	for run in 1 2; do
		run_mpi 3 --mirror disk1/photos disk2/photos backup/
		check_rc 0 "fastcp-mpi --mirror of two sources of one name, run $run"
		both "fastcp-mpi, run $run"
		check_eq "$(find backup/photos -name stale | wc -l)" 0 "fastcp-mpi: extras left"
	done
else
	note "fastcp-mpi not tried: mpirun or fastcp-mpi missing"
fi
exit 0
