#!/bin/bash
# fastcp-mpi on a tree whose work is one large file: the rank that opened
# it gives parts of its chunks to the other, which copies them into the
# file under its temporary name; the owner lands it. On 2 and 4 ranks,
# into a new copy or into directories that exist, the copy is exact (data, holes, metadata), and another rank copied part
# of it. Stopped by SIGTERM while ranks share it, nothing has a final
# name; --sync then finishes the copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_mpi
need_treecmp

mkdir -p "$T/src/d/e"
head -c 320M /dev/urandom >"$T/src/d/e/big" || fail "making the large file"
# Data islands in the last half, where a range given away lies.
truncate -s 1G "$T/src/d/sparse"
for mib in 600 900 1000; do
	head -c 100000 /dev/urandom | dd of="$T/src/d/sparse" bs=1M seek=$mib conv=notrunc \
		status=none || fail "making the sparse file"
done
chmod 0640 "$T/src/d/e/big"
touch -d '2001-02-03 04:05:06' "$T/src/d/e/big"
echo small >"$T/src/small"

# 2 and 4 ranks into a new copy; 2 into a copy that exists already (its
# new directories are not hidden: a lone process would write the file
# there as an unnamed inode).
mkdir -p "$T/into/src"
for n in 2 4 into; do
	case $n in
	into) dst=$T/into/src; MPIRUN_OPTS=--tag-output run_mpi 2 --debug "$T/src" "$T/into/" ;;
	*) dst=$T/dst$n; MPIRUN_OPTS=--tag-output run_mpi "$n" --debug "$T/src" "$dst" ;;
	esac
	check_rc 0 "fastcp-mpi -np $n"
	check_tree "$T/src" "$dst"
	check_no_temp "$dst"
	# "[job,rank]<stderr>:fastcp: debug: 'P': chunks A to B of N, for rank R"
	shared=$(sed -nE "s/^\[[0-9]+,([0-9]+)\]<stderr>:fastcp: debug: '[^']*\/big': chunks .* for rank ([0-9]+)$/\1 \2/p" \
		"$T/err")
	note "-np $n: ranges of big (taker owner):" $shared
	echo "$shared" | awk 'NF == 2 && $1 != $2 { ok = 1 } END { exit !ok }' ||
		fail "-np $n: no rank copied part of another's large file"
	used=$(du -k "$dst/d/sparse" | cut -f1)
	[ "$used" -lt 4096 ] || fail "-np $n: the sparse file's holes were written ($used KiB)"
done

# SIGTERM while the ranks share the file (--bwlimit 32M a rank keeps its
# 320 MiB going 5 s at least, on any machine).
mpi_stop_midway "$T/src" "$T/dst" 0.8 --bwlimit 32M
left=$(find "$T/dst" -mindepth 1 -maxdepth 1 ! -name '.fcp-*')
[ -z "$left" ] || fail "a stopped job left names in DEST: $left"
# Inside the copy left under its temporary name, no file has a final name
# unless it is whole.
for f in d/e/big d/sparse; do
	for p in "$T"/dst/.fcp-*/"$f"; do
		[ -e "$p" ] || continue
		cmp -s "$p" "$T/src/$f" || fail "a partial file has its final name: $p"
	done
done
FCP_TIMEOUT=120 run_mpi 2 --sync "$T/src" "$T/dst/"
check_rc 0 "fastcp-mpi --sync after the signal"
check_tree "$T/src" "$T/dst/src"
check_no_temp "$T/dst"

# A rank that sees another file at the large file's path (its own mount
# namespace, a file bound over it) takes no part of it: the part comes
# back failed, the file's rank reports the file, the job fails, and the
# copy gets its name without that file.
need_root "a mount namespace per rank needs root"
need_cmd unshare
# A chroot, whose root is no mount point, cannot make the rank's namespace.
unshare -m true 2>/dev/null ||
	skip "the parts above passed; a rank with its own view not tried: no mount namespace can be made here (a chroot?)"
mkdir -p "$T/v/src"
head -c 320M /dev/urandom >"$T/v/src/big" || fail "making the large file"
echo other >"$T/v/other"
# views [fastcp-mpi options]: rank 1 sees $T/v/other at the large file's
# path. --bwlimit 64M a rank keeps the owner's 320 MiB going for seconds,
# so that the other rank is given a part on any machine (unlimited, a fast
# one copied it all alone).
views() {
	rm -rf "$T/vdst" && mkdir "$T/vdst"
	timeout -k 5 120 $MPIRUN_ --tag-output \
		-np 1 "$FASTCP_MPI" --debug --bwlimit 64M "$@" "$T/v/src" "$T/vdst/" : \
		-np 1 unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh \
		"$T/v/other" "$T/v/src/big" "$FASTCP_MPI" --debug --bwlimit 64M "$@" "$T/v/src" "$T/vdst/" \
		>"$T/out" 2>"$T/err"
	rc=$?
	sed 's/^/  err| /' "$T/err" | head -20
	mountpoint -q "$T/v/src/big" && fail "the bind mount leaked out of the rank's namespace"
	grep -q "chunks .* for rank 0" "$T/err" || grep -q "Stale file handle" "$T/err" ||
		fail "no part of the file was given to the other rank (the copy ended first)"
}
views
[ "$rc" = 1 ] || fail "a part that failed on another rank: exit $rc, not 1"
check_grep "another rank could not copy its part of '$T/v/src/big'.*Stale file handle" "$T/err"
check_dir "$T/vdst/src"
check_absent "$T/vdst/src/big" "the failed file under its final name"
check_eq "$(find "$T/vdst" -mindepth 1 -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies"

# With --retries, the file copied again stays with its owner (a part on
# the rank whose view differs would fail again): the copy succeeds.
views --retries 1 --retry-wait 0
[ "$rc" = 0 ] || fail "--retries after a part failed on another rank: exit $rc, not 0"
check_tree "$T/v/src" "$T/vdst/src"
check_no_temp "$T/vdst"
true
