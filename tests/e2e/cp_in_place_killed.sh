#!/bin/bash
# A killed --in-place rewrite leaves the file half written, and its writes
# gave it a newer mtime than its source's: the same command again (-u)
# kept it for good ("unchanged", exit 0), its tail lost; so did
# --size-only (the rewrite gives it its full size first). The rewrite now
# marks the file unfinished until it is whole (and gives it the epoch as
# mtime until its first write): the re-run copies it again. The copy is
# held by faultfs at a known point of the source's read and killed there.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

for opts in "--in-place -u" "--in-place --sync --size-only" "--in-place --sync"; do
	rm -rf back dst hold
	mkdir -p back/src dst
	head -c 3000000 /dev/urandom >back/src/f
	touch -d 2020-01-01 back/src/f
	head -c 2000000 /dev/urandom >dst/f # (of another size: --size-only rewrites it)
	touch -d 2001-01-01 dst/f
	touch hold
	grep -qs " $T/mnt fuse" /proc/self/mounts ||
		faultfs_mount back mnt --match=f --block-at=1000000 --hold="$T/hold"
	# shellcheck disable=SC2086
	"$FASTCP" $opts -T mnt/src dst >/dev/null 2>"$T/err" &
	pid=$!
	faultfs_held "read of /src/f at"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	rm hold
	# (It was given its full size first: the tail is a hole.)
	cmp -s back/src/f dst/f && fail "$opts: the kill did not leave a file half written"
	# The same command again: the file is whole.
	# shellcheck disable=SC2086
	run_fcp $opts -T mnt/src dst
	check_rc 0 "$opts"
	cmp back/src/f dst/f || fail "$opts: the re-run kept the file the killed run left half written"
	check_eq "$(stat -c %Y dst/f)" "$(stat -c %Y back/src/f)" "$opts: mtime"
	check_eq "$(getfattr --absolute-names -d -m - dst/f 2>/dev/null | grep -c fastcp)" 0 \
		"$opts: no mark left on a whole file"
done
echo PASS
