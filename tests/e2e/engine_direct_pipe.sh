#!/bin/bash
# Medium files of 2 MiB and more, none of them cached, go through the
# direct pipe (lib/engine/direct_pipe.c): read and written with O_DIRECT, several
# requests in flight. The copy must be byte-exact whatever the size's
# alignment (the last partial block is written through the cache), with
# more slots than the pipe has (slots used again), on XFS, btrfs and tmpfs
# destinations, and the same with the pipe's conditions unmet
# (--no-io-uring, --verify, --direct-read=never, --sparse=always). Written
# directly, the copy leaves at most its last block in the page cache: a
# buffered copy leaves all of it, so that check fails if the pipe is not
# taken.
# A destination that takes O_DIRECT on the descriptor and then refuses a
# direct request with EINVAL (faultfs --einval-write-at, on the second
# slot's write): the pipe gives the file back to the synchronous loop,
# which copies it again from its start, the bytes counted once; and the
# pipe stays off for the rest of the job.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd cmp dd
"$FASTCP" --version --verbose | grep -q "when none of the file is cached" ||
	skip "this kernel has no cachestat(2): medium files are read through the cache"
command -v fincore >/dev/null || skip "no fincore (util-linux) to see what the copy left cached"

t_mount_fs xfs 512M "$T/s"
sizes="$((2 << 20)) $(((2 << 20) + 1)) $(((4 << 20) - 100)) $(((5 << 20) + 4096)) $(((9 << 20) + 777)) $(((3 << 20) + 12345))"
for n in $sizes; do head -c "$n" /dev/urandom >"s/f$n"; done
mkdir s/sub && head -c $(((6 << 20) + 3)) /dev/urandom >s/sub/g
touch -d '2004-05-06 07:08:09.25' s/f* s/sub/g
dd if=s/f$((2 << 20)) of=/dev/null bs=4096 count=1 iflag=direct status=none ||
	skip "no O_DIRECT on this machine's XFS"

drop() { sync; for f in s/f* s/sub/g; do dd if="$f" iflag=nocache count=0 status=none; done; }

t_mount_fs xfs 512M "$T/dx"
t_mount_fs btrfs 512M "$T/db"
t_mount_fs tmpfs 256M "$T/dt"
# Each destination with two workers, and XFS again with one.
for run in "dx 2" "db 2" "dt 2" "dx 1"; do
	read -r dst j <<<"$run"
	rm -rf "$dst/c"
	drop
	[ "$(t_cached s/sub/g)" = 0 ] || skip "the page cache kept the source"
	run_fcp -j "$j" s "$dst/c"
	check_rc 0 "copy to $dst, -j $j"
	# Before anything reads the copy. tmpfs is the page cache: nothing
	# to see there.
	for f in s/f* s/sub/g; do
		[ "$dst" = dt ] || [ "$(t_cached "$dst/c/${f#s/}")" -le 4096 ] ||
			fail "$dst/c/${f#s/}: $(t_cached "$dst/c/${f#s/}") bytes cached after a direct copy"
	done
	check_tree s "$dst/c"
	for f in s/f* s/sub/g; do check cmp "$f" "$dst/c/${f#s/}"; done
	check_no_temp "$dst"
done

# The conditions unmet: the synchronous paths, the same copy.
for opts in "--no-io-uring" "--verify" "--direct-read=never" "--sparse=always"; do
	rm -rf dx/c
	drop
	# shellcheck disable=SC2086
	run_fcp $opts s dx/c
	check_rc 0 "copy $opts"
	check_tree s dx/c
	for f in s/f* s/sub/g; do check cmp "$f" "dx/c/${f#s/}"; done
done

# The refusal. One worker: the files are copied one after another, so
# every file after the one refused is copied once the refusal is known.
B=$T/back
mkdir -p "$B"
faultfs_mount "$B" "$T/df" --einval-write-at=$((1 << 20))
drop
run_fcp -j 1 --debug --json s df/c
check_rc 0 "copy to a destination that refuses a direct write"
grep -q "faultfs: EINVAL for the write of .* at $((1 << 20)) " "$T/faultfs.log" ||
	fail "faultfs refused no direct write at 1 MiB: the test proves nothing ($(cat "$T/faultfs.log"))"
check_tree s "$B/c"
for f in s/f* s/sub/g; do check cmp "$f" "$B/c/${f#s/}"; done
check_no_temp "$B"
check_nogrep "several requests in flight" "$T/err"
want=$(cat s/f* s/sub/g | wc -c)
got=$(grep -o '"bytes":[0-9]*' "$T/out" | head -1 | cut -d: -f2)
check_eq "$got" "$want" "bytes counted after the pipe's refusal"
echo "direct pipe copies exact on xfs, btrfs, tmpfs and without the pipe; a refusal falls back"
