#!/bin/bash
# A tree much deeper than the descriptor limit allows to keep open at once:
# 800 levels (short names, so the paths stay under PATH_MAX, where cp -a
# and rsync -a copy it too) under a hard limit of 256 open files. fastcp
# must not keep every level open: exit 0, an exact copy, no "Too many open
# files". The same with one worker and with the synchronous path.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd prlimit

levels=800
mkdir src
(
	cd src || exit 1
	for i in $(seq 1 $levels); do
		printf '%d\n' "$i" >f
		[ $((i % 100)) = 0 ] && mkdir s && printf 'side\n' >s/g
		mkdir d && cd d || exit 1
	done
	printf 'bottom\n' >bottom
) || fail "building the deep tree"

for variant in "" "-j 1" "--no-io-uring"; do
	rm -rf dst
	# The soft limit 64, the hard one 256: raising the soft limit alone
	# cannot hold 800 levels (1600 descriptors).
	FCP_WRAP="prlimit --nofile=64:256 --" run_fcp $variant src dst
	check_rc 0 "fastcp $variant of an $levels-level tree under a 256 descriptor limit"
	check_nogrep "open files" "$T/err"
	check_tree src dst
	check_no_temp dst
done
echo "$levels levels copied under a hard limit of 256 descriptors, exact"
