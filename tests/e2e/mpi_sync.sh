#!/bin/bash
# fastcp-mpi --sync --delete on 3 ranks: each directory is compared and
# tidied by the rank that reads it. After changes to the source (files
# changed, added, removed, a directory removed, a mode changed), the copy
# is exact again and what the source lost is gone; a second run finds
# everything up to date. And the options that write one shared file, and
# --move, are refused with one message, exit 2.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_mpi
need_treecmp

mkdir "$T/src"
for d in $(seq 1 24); do
	mkdir -p "$T/src/d$d/sub"
	for i in $(seq 1 30); do echo "$d $i" >"$T/src/d$d/f$i"; done
	echo "$d" >"$T/src/d$d/sub/g"
done
mkdir "$T/src/hl"
echo linked >"$T/src/d1/linked"
ln "$T/src/d1/linked" "$T/src/hl/a"
ln "$T/src/d1/linked" "$T/src/hl/b"
run_mpi 3 "$T/src" "$T/dst"
check_rc 0 "first copy"
check_tree "$T/src" "$T/dst"
# (DEST is the copy from now on: -T, as cp's.)

for d in 3 9 15 21; do
	echo changed >>"$T/src/d$d/f1"
	echo new >"$T/src/d$d/new"
	rm "$T/src/d$d/f2"
done
rm -r "$T/src/d5"
chmod 0700 "$T/src/d7"
touch -d '2001-02-03 04:05:06' "$T/src/d8/f3"
run_mpi 3 -T --sync --delete --stats "$T/src" "$T/dst"
check_rc 0 "--sync --delete"
check_tree "$T/src" "$T/dst"
check_no_temp "$T/dst"
check_grep 'deleted' "$T/err"

run_mpi 3 -T --sync --delete --json "$T/src" "$T/dst"
check_rc 0 "--sync again"
check_grep '"files":0,.*"updated":0,.*"deleted":0,' "$T/out" "a second --sync changed something"
check_tree "$T/src" "$T/dst"

# A name gone from a directory of the copy whose times still say it is up
# to date (as a killed run may leave it): the rank that reads it finds it
# so; the name, of an inode with several links, is made after the tree,
# which moves its times: they are set after that, whatever was found.
rm "$T/dst/hl/b"
touch -r "$T/src/hl" "$T/dst/hl"
run_mpi 3 -T --sync "$T/src" "$T/dst"
check_rc 0 "--sync of a directory missing a linked name"
check_tree "$T/src" "$T/dst"

# One file written by every rank at once, and --move (rank 0 removes a
# source only where it made or compared the copy itself), -K (another
# rank opens no directory through a symlink): refused, said
# once, nothing changed.
for opt in "--manifest=$T/m.db" "--events=$T/ev" "--log=$T/log" --check --move -K; do
	run_mpi 2 $opt "$T/src" "$T/dst"
	check_rc 2 "fastcp-mpi $opt"
	check_eq "$(grep -c 'not available across ranks' "$T/err")" 1 "$opt: one message"
done
check_tree "$T/src" "$T/dst"
run_mpi 2 --help
check_rc 0 "--help"
check_eq "$(grep -c '^usage: ' "$T/out")" 1 "--help printed once"
