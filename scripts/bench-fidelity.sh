#!/bin/bash
# scripts/bench-fidelity.sh: what each copier keeps of the tests' hard-case
# tree, item by item (BENCHMARKS.md's fidelity row; the table is in
# docs/benchmarks/2026-12-01-two-scales-beside-dcp.md).
#   sudo bash scripts/bench-fidelity.sh [OUT.md]
# The tree is tests/lib/lib.sh's t_mktree (sizes, holes, odd names, a path
# deeper than PATH_MAX, hard links across directories, every kind of
# symlink, FIFO, devices, modes 0000-7777, owners, user/trusted xattrs,
# ACLs, nanosecond times). Each command copies it to a fresh name on one
# XFS loopback filesystem; treecmp (tests/lib/treecmp.c) then lists every
# difference, one line each, and the exit status is recorded. The table
# counts the differences by kind; OUT.md gets the table and every line.
# TOOLS (default "fastcp fastcp-mpi cp rsync") names the commands; PEERS=DIR
# adds mpiFileUtils' dcp -p on 2 ranks (DIR/bin/dcp, built outside the
# repository); MPI_NP (default 2) is the ranks of fastcp-mpi and dcp.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/bench-results/fidelity.md}
np=${MPI_NP:-2}
[ "$(id -u)" = 0 ] || { echo "bench-fidelity: needs root (devices, owners, loop mount)" >&2; exit 2; }
for b in fastcp tests/lib/treecmp; do
	[ -x "$top/build/$b" ] || { echo "bench-fidelity: build/$b missing (make all)" >&2; exit 2; }
done
export TESTLIB=$top/tests/lib TREECMP=$top/build/tests/lib/treecmp FASTCP=$top/build/fastcp
# lib.sh's helpers: the tree, the loop filesystem, the cleanup on exit.
# shellcheck source=/dev/null
. "$top/tests/lib/lib.sh"
t_init
t_mount_fs xfs 1G "$T/fs"
t_mktree "$T/fs/src"

mpi="mpirun --allow-run-as-root --oversubscribe --bind-to none -np $np"
tools=${TOOLS:-fastcp fastcp-mpi cp rsync}
[ -n "${PEERS:-}" ] && tools="$tools dcp"
case " $tools " in *" fastcp-mpi "*)
	[ -x "$top/build/fastcp-mpi" ] ||
		{ echo "bench-fidelity: build/fastcp-mpi missing (libopenmpi-dev; or leave it out of TOOLS)" >&2; exit 2; } ;;
esac
declare -A cmd
cmd[fastcp]="$FASTCP SRC DST"
cmd[fastcp-mpi]="$mpi $top/build/fastcp-mpi SRC DST"
cmd[cp]="cp -a SRC DST"
cmd[rsync]="rsync -aHAXS --numeric-ids SRC/ DST/"
cmd[tar]="mkdir DST && tar --xattrs --acls -C SRC -cf - . | tar --xattrs --acls -C DST -xpf -"
cmd[dcp]="$mpi ${PEERS:-}/bin/dcp -p SRC DST"

mkdir -p "$(dirname "$out")"
{
	echo "| command | exit | differences | by kind |"
	echo "|---|---|---|---|"
} >"$T/table"
: >"$T/lines"
for t in $tools; do
	c=${cmd[$t]:-}
	[ -n "$c" ] || { echo "bench-fidelity: unknown tool '$t'" >&2; exit 2; }
	dst=$T/fs/dst-$t
	c=${c//SRC/$T/fs/src}
	c=${c//DST/$dst}
	sh -c "$c" >"$T/run.out" 2>&1
	rc=$?
	# The chain deeper than PATH_MAX is named by its length, not spelt out.
	"$TREECMP" "$T/fs/src" "$dst" 2>&1 |
		sed -E 's#(d{200}/)+d{200}#(the chain of 200-byte names past PATH_MAX)#' >"$T/cmp.out"
	n=$(wc -l <"$T/cmp.out")
	# The kind is what follows the path, its names and numbers left out.
	kinds=$(sed -E 's/^[^:]+: //; s/'"'[^']*'"'/NAME/g; s/[0-9(].*//; s/ +$//; s/^DST allocates$/holes filled (sparse file written whole)/' "$T/cmp.out" | sort | uniq -c |
		sort -rn | awk '{ c = $1; $1 = ""; sub(/^ /, ""); printf "%s%s %s", sep, c, $0; sep = "; " }')
	echo "| \`$t\` | $rc | $n | ${kinds:-none} |" >>"$T/table"
	{
		echo
		echo "### $t: \`${cmd[$t]}\` (exit $rc, $n differences)"
		echo
		echo '```'
		cat "$T/cmp.out"
		echo '```'
	} >>"$T/lines"
	echo "bench-fidelity: $t: exit $rc, $n differences" >&2
done
{
	echo "## Fidelity: the hard-case tree, item by item (treecmp)"
	echo
	cat "$T/table"
	cat "$T/lines"
} >"$out"
cat "$T/table"
