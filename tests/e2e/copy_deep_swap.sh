#!/bin/bash
# A deep copy under a low descriptor limit gives back the descriptors of
# the levels nobody works in and re-opens them by name later. If a source
# directory on that path is swapped meanwhile for another one with the
# same names below it, the re-open must notice (not the same inode),
# report it and copy nothing from the impostor. faultfs holds the open of
# the file at the bottom until the swap is done, which holds the copy there.
# The copy is a new root copy with levels missing, failed items: it gets its
# name without them, and the job says so.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd prlimit

levels=300 swap_at=100
chain() { # DIR MARKER: a chain of $levels directories "d" in DIR
	(
		mkdir -p "$1" && cd "$1" || exit 1
		for ((i = 1; i <= levels; i++)); do
			printf '%s %d\n' "$2" "$i" >f
			mkdir d && cd d || exit 1
		done
		mkdir last
		printf 'slow\n' >slow
	) || fail "building $1"
}
mkdir backing out
chain backing/src real
chain backing/impostor impostor
touch hold
faultfs_mount backing mnt --match=slow --block-open --hold="$T/hold"

prlimit --nofile=64:128 -- "$FASTCP" mnt/src out/ >out.log 2>err.log &
pid=$!
# The copy reached the bottom: faultfs holds its open of the file there
# (src's; the impostor is not copied) until the swap is done.
faultfs_held "open of /src/(d/)+slow"
# Swap level $swap_at of the source for the impostor's.
p=backing/src$(printf '/d%.0s' $(seq 1 $((swap_at - 1))))
q=backing/impostor$(printf '/d%.0s' $(seq 1 $((swap_at - 1))))
check mv "$p/d" "$p/moved"
check mv "$q/d" "$p/d"
rm hold
wait "$pid"
rc=$?
sed 's/^/  err| /' err.log | head -5
check_eq "$rc" 1 "exit status after a source directory was swapped"
check_grep "was replaced during the copy" err.log
# Nothing of the impostor was copied, under any name.
! grep -rqs impostor out || fail "the impostor's files were copied"
check_dir out/src "the copy without the levels that failed"
check_grep "the copy of 'mnt/src' has its name 'out/src' without the [0-9]+ items that failed" err.log
check_eq "$(find out -mindepth 1 -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies"
echo "swap at level $swap_at detected: $(grep -c 'replaced during the copy' err.log) levels refused"
