#!/bin/bash
# A killed --in-place rewrite leaves the file half written, and its writes
# gave it a newer mtime than its source's: the same command again (-u)
# kept it for good ("unchanged", exit 0), its tail lost; so did
# --size-only (the rewrite gives it its full size first). The rewrite now
# marks the file unfinished until it is whole (and gives it the epoch as
# mtime until its first write): the re-run copies it again. The copy is
# held by faultfs at a known point of the source's read and killed there.
# -n, which keeps what is there, kept such a file too (exit 0, its tail
# lost): it is fastcp's own unfinished work, not the user's, and is copied
# again. A SIGTERM there said "nothing partial was left": it now says that
# a file rewritten in place is left half written, and the re-run mends it.
# --attributes-only over such a file gave it the source's times and took
# its mark with the source's xattrs: it looked whole to -n, -u and the
# quick check. It now leaves it as it is, marked, and fails the item.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

for spec in "--in-place -u" "--in-place --sync --size-only" "--in-place --sync" \
	"--in-place|-n" "--in-place|--in-place -n" "--in-place|-n|TERM" \
	"--in-place|--attributes-only"; do
	IFS='|' read -r opts again sig <<<"$spec"
	again=${again:-$opts} sig=${sig:-KILL}
	rm -rf back dst hold
	mkdir -p back/src dst
	head -c 3000000 /dev/urandom >back/src/f
	touch -d 2020-01-01 back/src/f
	head -c 2000000 /dev/urandom >dst/f # (of another size: --size-only rewrites it)
	touch -d 2001-01-01 dst/f
	touch hold
	# A faultfs of its own for each case, over its backing directory
	# made anew, and a log of its own: a read at the offset is logged
	# as held also when no --hold file holds it (the re-runs).
	k=$((${k:-0} + 1))
	: >"$T/faultfs.log"
	faultfs_mount back "mnt$k" --match=f --block-at=1000000 --hold="$T/hold"
	# shellcheck disable=SC2086
	"$FASTCP" $opts -T "mnt$k/src" dst >/dev/null 2>"$T/err" &
	pid=$!
	faultfs_held "read of /src/f at"
	kill -"$sig" "$pid"
	[ "$sig" = KILL ] || rm hold
	wait "$pid" 2>/dev/null
	rm -f hold
	if [ "$sig" = TERM ]; then
		check_nogrep "nothing partial was left" "$T/err" "$opts, SIGTERM"
		check_grep "any file that was being rewritten in place [(]--in-place[)] is left half written" \
			"$T/err" "$opts, SIGTERM: the half-written file said"
	fi
	# (It was given its full size first: the tail is a hole.)
	cmp -s back/src/f dst/f && fail "$opts: the kill did not leave a file half written"
	if [ "$again" = --attributes-only ]; then
		before=$(stat -c %Y dst/f)
		run_fcp --attributes-only -T "mnt$k/src" dst
		check_rc 1 "--attributes-only over a half-written file"
		check_grep "will not give metadata to a file a killed --in-place run left half written" \
			"$T/err" "--attributes-only: the half-written file named"
		check_eq "$(stat -c %Y dst/f)" "$before" "--attributes-only: mtime left as it was"
		getfattr --absolute-names -n user.fastcp.inplace dst/f >/dev/null 2>&1 ||
			fail "--attributes-only took the mark of the half-written file"
		cmp -s back/src/f dst/f && fail "--attributes-only changed the data"
		again=-n
	fi
	# The same command again (or -n): the file is whole.
	# shellcheck disable=SC2086
	run_fcp $again -T "mnt$k/src" dst
	check_rc 0 "$opts, then $again"
	cmp back/src/f dst/f || fail "$opts, then $again: the re-run kept the file the killed run left half written"
	check_eq "$(stat -c %Y dst/f)" "$(stat -c %Y back/src/f)" "$opts: mtime"
	check_eq "$(getfattr --absolute-names -d -m - dst/f 2>/dev/null | grep -c fastcp)" 0 \
		"$opts: no mark left on a whole file"
done
echo PASS
