#!/bin/bash
# --resume: a file of 1 GiB and more, killed part way, is finished from its
# last durable record instead of being copied again; a source changed since
# (here: one byte, with size and mtime put back, so only ctime tells) starts
# over; without --resume nothing is recorded. XFS to XFS on loop devices,
# real data (holes would make skipping trivial). The bytes the re-run
# writes to the destination device prove what was not written again.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd getfattr strace findmnt
t_mount_fs xfs 1600m "$T/s"
t_mount_fs xfs 3500m "$T/d"
setfattr -n user.fastcp.probe -v 1 "$T/d" 2>/dev/null || skip "XFS here takes no user xattrs"

S=$T/s/src D=$T/d
SIZE=$(((1 << 30) + 12345)) # a short last chunk
mkdir -p "$S/sub"
head -c "$SIZE" /dev/urandom >"$S/big" || fail "cannot write the source"
for i in 1 2 3 4 5; do head -c $((i * 7000)) /dev/urandom >"$S/sub/f$i"; done
touch -d @1500000000.123456789 "$S/big"
dev=$(basename "$(findmnt -n -o SOURCE "$T/d")")
[ -r "/sys/block/$dev/stat" ] || skip "no /sys/block/$dev/stat to count the writes with"
written() { # bytes written to the destination device so far, after a sync
	sync -f "$D"
	echo $(($(awk '{print $7}' "/sys/block/$dev/stat") * 512))
}
# The killed runs read the source at RATE (--bwlimit): whatever the
# machine's speed, a copy of SIZE takes SIZE/RATE seconds at least (16 s at
# 64 MiB/s). The kill waits for the state it needs, a third of the file
# recorded as durable (a record comes every 128 MiB, the one past a third
# at about 6 s), and then comes before the rest, two thirds at RATE at
# most, can be copied: no moment is guessed, and a copy that outran the
# kill fails the test instead of being tried again.
RATE=64M
record() { getfattr --only-values -n user.fastcp.resume "$1" 2>/dev/null; }
done_of() { record "$1" | sed -n 's/.* done=\([0-9]*\) .*/\1/p'; }

# kill_at_third GLOB ARGS...: after CLEAN, run fastcp --bwlimit RATE ARGS
# and SIGKILL (or $SIG) it once the record on the file GLOB names says a
# third of it is durable; DONE is then what the record says after the
# kill, which must still be a third or more.
kill_at_third() {
	local glob=$1 pid f d i rc want
	shift
	eval "$CLEAN"
	"$FASTCP" --bwlimit "$RATE" "$@" >/dev/null 2>"$T/err" &
	pid=$!
	# A copy with no third recorded after 120 s (a third at 3 MB/s) is stuck.
	for ((i = SECONDS + 120; ; )); do
		for f in $glob; do
			d=$(done_of "$f")
			[ -n "$d" ] && [ "$d" -ge $((SIZE / 3)) ] && break 2
		done
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			fail "the copy ended (exit $?) before a third of it was recorded, at $RATE: $(cat "$T/err")"
		fi
		if [ "$SECONDS" -ge "$i" ]; then
			kill -KILL "$pid"
			fail "no third of the file recorded in 120 s"
		fi
		sleep 0.02
	done
	kill -"${SIG:-KILL}" "$pid"
	{ wait "$pid"; } 2>/dev/null
	rc=$? want=$((128 + $(kill -l "${SIG:-KILL}")))
	DONE=$(done_of "$f")
	note "killed at $d recorded: exit $rc, $DONE of $SIZE bytes recorded ($f)"
	[ "$rc" = "$want" ] || fail "the copy was not stopped by SIG${SIG:-KILL} (exit $rc, want $want): $(cat "$T/err")"
	[ -n "$DONE" ] && [ "$DONE" -ge "$d" ] ||
		fail "after SIG${SIG:-KILL}, the record on '$f' says '$DONE', less than the $d seen before"
}

# resumed WHAT: the re-run wrote the rest, not the part recorded as done.
resumed() {
	local w=$(($(written) - W0)) most=$((SIZE - DONE + (64 << 20)))
	note "$1: the re-run wrote $w bytes; the part not recorded is $((SIZE - DONE))"
	[ "$w" -le "$most" ] || fail "$1: the re-run wrote $w bytes, more than $most: not resumed"
}

# 1. A new root copy (its hidden directory, the file under its final name
# in it): taken up again and finished.
CLEAN="rm -rf '$D/a' '$D'/.fcp-*"
kill_at_third "$D/.fcp-*/big" --resume "$S" "$D/a"
check_absent "$D/a" "a killed copy appeared under its final name"
W0=$(written)
run_fcp --sync --resume "$S" "$D/a"
check_rc 0
resumed "hidden root copy"
check_tree "$S" "$D/a"
check_no_temp "$D"
rm -rf "$D/a"

# 2. Into a directory that exists (-T): the file has a name derived from
# its final one; the re-run finds it, records after an fdatasync.
mkdir "$D/b"
CLEAN="rm -rf '$D/b'; mkdir '$D/b'"
kill_at_third "$D/b/.fcp-resume-*" --resume -T "$S" "$D/b"
check_absent "$D/b/big" "a killed copy appeared under its final name"
RNAME=$(cd "$D/b" && echo .fcp-resume-*)
W0=$(written)
run_fcp --sync --resume -T "$S" "$D/b"
check_rc 0
resumed "file in an existing directory"
check_tree "$S" "$D/b"
check_no_temp "$D"
rm -rf "$D/b"

# 2b. Stopped by SIGTERM instead: the file stays (said so), and is resumed.
CLEAN="rm -rf '$D/b'; mkdir '$D/b'"
SIG=TERM kill_at_third "$D/b/.fcp-resume-*" --resume -T "$S" "$D/b"
check_grep "the copy so far is kept for --sync --resume as '$D/b/.fcp-resume-[0-9a-f]*'" "$T/err"
check_grep "1 unfinished copy left under a temporary name" "$T/err"
check_nogrep "nothing partial was left" "$T/err"
W0=$(written)
run_fcp --sync --resume -T "$S" "$D/b"
check_rc 0
resumed "file kept by a stopped run"
check_tree "$S" "$D/b"
check_no_temp "$D"
rm -rf "$D/b"

# 3. The source changed between the runs, in a part already copied: size
# and mtime put back, so only ctime (and the content) differ. Starts over.
mkdir "$D/c"
CLEAN="rm -rf '$D/c'; mkdir '$D/c'"
kill_at_third "$D/c/.fcp-resume-*" --resume -T "$S" "$D/c"
printf 'changed' | dd of="$S/big" bs=1 seek=4096 conv=notrunc status=none
touch -d @1500000000.123456789 "$S/big"
W0=$(written)
run_fcp --sync --resume -T "$S" "$D/c"
check_rc 0
w=$(($(written) - W0))
note "changed source: the re-run wrote $w bytes"
[ "$w" -ge "$SIZE" ] || fail "changed source: only $w bytes written, it did not start over"
check_tree "$S" "$D/c"
check_no_temp "$D"
rm -rf "$D/c"

# 4. A whole copy with --resume: each record follows an fdatasync of its
# file made since the record before; the record goes before the rename.
strace -f -qq -o "$T/trace" -e trace=fdatasync,fsetxattr,fremovexattr,rename,renameat,renameat2 \
	"$FASTCP" --resume "$S" "$D/e" 2>"$T/err" || fail "copy with --resume: $(cat "$T/err")"
check_tree "$S" "$D/e"
check_no_temp "$D"
awk '/fdatasync\(/ { sub(/.*fdatasync\(/, ""); synced[$0 + 0] = 1 }
     /fsetxattr\(.*user\.fastcp\.resume/ { sub(/.*fsetxattr\(/, ""); fd = $0 + 0
	if (!synced[fd]) { print "record without fdatasync on fd " fd; bad = 1 }
	synced[fd] = 0; n++ }
     /fremovexattr\(.*user\.fastcp\.resume/ { gone = 1 }
     /rename/ && !gone { print "renamed before the record went"; bad = 1 }
     END { if (!n) { print "no record written"; bad = 1 }; exit bad }' "$T/trace" ||
	fail "records and syncs: $(grep -E 'fdatasync|resume|rename' "$T/trace" | head)"
rm -rf "$D/e"

# 5. Without --resume: no record and no fdatasync at all.
strace -f -qq -o "$T/trace" -e trace=fdatasync,fsync,fsetxattr \
	"$FASTCP" "$S" "$D/e" 2>"$T/err" || fail "plain copy: $(cat "$T/err")"
check_tree "$S" "$D/e"
check_nogrep 'fdatasync\(|fsync\(|user\.fastcp\.resume' "$T/trace"
rm -rf "$D/e"

# 6. A symlink at the name a resumable file gets, owned by someone else:
# neither followed, nor removed, nor written through; the copy goes under
# an ordinary temporary name.
mkdir "$D/f"
echo keep >"$T/victim"
ln -s "$T/victim" "$D/f/$RNAME"
chown -h nobody "$D/f/$RNAME"
run_fcp --sync --resume "$S/big" "$D/f/"
check_rc 0
check cmp "$S/big" "$D/f/big"
check_link "$D/f/$RNAME" "the planted symlink went"
check_eq "$(cat "$T/victim")" keep "written through the planted symlink"
rm -rf "$D/f"

# 7. A destination without user xattrs: said once, the copy is whole.
mkdir "$D/g"
faultfs_mount "$D/g" "$T/nox" --no-user-xattr
run_fcp --resume "$S/big" "$T/nox/"
check_rc 0
check cmp "$S/big" "$T/nox/big"
check_eq "$(grep -c 'warning: --resume cannot record progress' "$T/err")" 1 "the warning, once"
check_no_temp "$T/nox"
echo "resumed from the record, started over after a change, nothing recorded without --resume"
