#!/bin/bash
# fastcp-mpi not run as root, on 3 ranks: read-only directories (0500,
# 0555) whose subdirectories, files and names of linked inodes are copied
# by other ranks get their modes and times only after every rank is done,
# so nothing is refused and the copy is exact (owner aside: not root, it
# cannot be kept).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_mpi
need_treecmp
need_root "the copy is run as nobody, by root's setpriv"
need_cmd setpriv

mkdir -p src/ro
for d in $(seq 1 16); do
	mkdir -p "src/ro/d$d/sub"
	for i in $(seq 1 20); do echo "$d $i" >"src/ro/d$d/f$i"; done
	echo x >"src/ro/d$d/sub/x"
	chmod 0500 "src/ro/d$d/sub"
	ln "src/ro/d1/f1" "src/ro/d$d/link" 2>/dev/null
done
mkdir src/ro/many
(cd src/ro/many && seq 1 3000 | xargs touch)
chmod 0555 src/ro/many src/ro/d*
chmod 0500 src/ro
chmod -R go+rX src 2>/dev/null
chmod go+rx src/ro src/ro/d*/sub
mkdir dst && chown 65534:65534 dst
mkdir tmp && chown 65534:65534 tmp

# mpirun's daemon checks as nobody that it may run the program: the
# build may be under a directory only root can enter (a clone in a
# mktemp -d), so nobody runs a copy of it in $T.
mkdir "$T/bin" && cp "$FASTCP_MPI" "$T/bin/" && chmod 755 "$T/bin" "$T/bin/fastcp-mpi"
FASTCP_MPI=$T/bin/fastcp-mpi
# mpirun keeps its session files under TMPDIR: one nobody may write.
TMPDIR=$T/tmp HOME=$T/tmp FCP_TIMEOUT=180 \
	MPIRUN_OPTS= run_mpi_as "setpriv --reuid=65534 --regid=65534 --clear-groups" 3 src dst/
check_rc 0 "fastcp-mpi as nobody"
check_tree "$T/src" "$T/dst/src" --no-owner
check_no_temp "$T/dst"
