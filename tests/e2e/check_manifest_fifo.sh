#!/bin/bash
# --check --manifest FILE DEST (no SOURCE) reads every recorded file of
# DEST again. A recorded regular file replaced by a FIFO was opened for
# reading, and the check then waited for a writer forever; a device node
# was opened too (opening one can act: a tape rewinds), and a socket made
# the check fail ("cannot open"). Now only a regular file is opened (its
# name opened O_PATH, its type looked at, then that very inode reopened
# O_NONBLOCK): anything else in its place is a difference in the words of
# a check against the source ("type file != fifo"), exit 1. Checked for a
# FIFO, a socket, a symlink and (as root) a character and a block device,
# in DEST's tree and as DEST itself (a one-file copy), with and without
# SOURCE; inotify counts the opens of the FIFO and the devices (an O_PATH
# open is none): there must be none. Then a swapper exchanges a recorded
# file with a FIFO (and, as root, another with a device) thousands of
# times a second while both checks run again and again: each must end in
# time, and say the file equal or of another type, never open them. As
# root, the check runs once more without /proc (a mount namespace without
# it), where the name is opened a second time.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd python3
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"
cd "$T" || fail "cd $T"
FCP_TIMEOUT=10 # a check of three small files: a hang, not a slow disk

root=
[ "$(id -u)" = 0 ] && root=1

mksock() { python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$1"; }

# The special files swapped in, kept outside DEST (the same filesystem,
# for the exchanges below), watched for opens the whole test.
mkdir spare
mkfifo spare/p
watched="spare/p"
kinds="fifo socket symlink"
if [ -n "$root" ]; then
	mknod spare/z c 1 5 # reads as endless zeros
	mknod spare/b b 60 0 # local/experimental: no driver, an open fails
	watched="$watched spare/z spare/b"
	kinds="$kinds chr blk"
else
	note "not root: no device node to swap in"
fi
pids=()
stop_swappers() { touch "$T/stop"; for p in "${pids[@]}"; do wait "$p"; done; pids=(); }
# The swappers and the counter stop first, also after a failure; the
# test's own exit status goes on to the cleanup.
trap 'r=$?; stop_swappers; touch "$T/counted"; wait; (exit $r); t_cleanup_' EXIT
# shellcheck disable=SC2086
python3 "$TESTLIB/count_opens.py" "$T/counted" $watched >opens &
counter=$!
for _ in $(seq 1 500); do [ -e "$T/counted.ready" ] && break; sleep 0.01; done
[ -e "$T/counted.ready" ] || fail "the inotify counter did not start"

mkdir -p src/sub
printf 'the real f\n' >src/f
printf 'the real g\n' >src/sub/g
head -c 100000 /dev/urandom >src/h
run_fcp --manifest m.db -T src dst
check_rc 0 "copy with --manifest"
printf 'one\n' >one
run_fcp --manifest m1.db one dst1
check_rc 0 "one-file copy with --manifest"
run_fcp --check --manifest m.db dst
check_rc 0 "check of the intact copy"
run_fcp --check --manifest m1.db dst1
check_rc 0 "check of the intact one-file copy"

# put_in KIND PATH: PATH (a recorded file) replaced by a file of KIND (a
# FIFO or device: a hard link of a watched one); its word in a check's
# "type" line in $word.
put_in() {
	rm -f "$2"
	case $1 in
	fifo) ln spare/p "$2"; word=fifo ;;
	socket) mksock "$2"; word=socket ;;
	symlink) ln -s "$(realpath src/f)" "$2"; word=symlink ;; # to a file
	chr) ln spare/z "$2"; word="character device" ;;
	blk) ln spare/b "$2"; word="block device" ;;
	esac || fail "cannot make a $1 at $2"
}
# exchange A B: renameat2 RENAME_EXCHANGE, once.
exchange() {
	python3 -c 'import ctypes, os, sys
if ctypes.CDLL(None).renameat2(-100, os.fsencode(sys.argv[1]), -100, os.fsencode(sys.argv[2]), 2):
    sys.exit("renameat2 failed")' "$1" "$2" || fail "exchange $1 $2"
}
# only_allowed: every line of the check's output one a swap can cause.
only_allowed() {
	! grep -Evq "^(type file != (fifo|character device): 'dst/[fh]'|mtime .*: 'dst')$" "$T/out" ||
		fail "unexpected lines while swapping"
}

for kind in $kinds; do
	put_in "$kind" dst/sub/g
	run_fcp --check --manifest m.db dst
	check_rc 1 "check with a $kind for a recorded file"
	check_eq "$(cat "$T/out")" "type file != $word: 'dst/sub/g'" "the check's lines ($kind)"
	check_eq "$(cat "$T/err")" "" "the check's errors ($kind)"
	# The same words as a check against the source, with the manifest.
	run_fcp --check --manifest m.db -T src dst
	check_rc 1 "check against the source with a $kind"
	check_grep "^type file != $word: 'dst/sub/g'$" "$T/out"
	check_nogrep "cannot" "$T/err"
	put_in "$kind" dst1
	run_fcp --check --manifest m1.db dst1
	check_rc 1 "check of a one-file copy replaced by a $kind"
	check_eq "$(cat "$T/out")" "type file != $word: 'dst1'" "the check's lines (one file, $kind)"
	check_eq "$(cat "$T/err")" "" "the check's errors (one file, $kind)"
	# (A DEST operand that is a symlink is followed by a run with SOURCE,
	# as cp follows it: not a file swapped in.)
	if [ "$kind" != symlink ]; then
		run_fcp --check --manifest m1.db one dst1
		check_rc 1 "check of a one-file copy against its source, replaced by a $kind"
		check_grep "^type file != $word: 'dst1'$" "$T/out"
	fi
	rm -f dst1 && cp -p one dst1
	rm -f dst/sub/g && cp -p src/sub/g dst/sub/g
done
touch -r src/sub dst/sub
run_fcp --check --manifest m.db -T src dst
check_rc 0 "check after the files were put back"

# Swapped back and forth while the checks run: the open that follows the
# look at the type must not meet another file. The FIFO and device live
# outside DEST between swaps (not "not in the manifest").
pairs="dst/f:spare/p"
[ -n "$root" ] && pairs="$pairs dst/h:spare/z"
for pair in $pairs; do
	python3 "$TESTLIB/swap.py" "${pair%:*}" "${pair#*:}" "$T/stop" &
	pids+=($!)
done
for _ in $(seq 1 20); do
	run_fcp --check --manifest m.db dst
	[ "$RC" = 0 ] || [ "$RC" = 1 ] || fail "check while swapping: exit $RC"
	only_allowed
	check_eq "$(cat "$T/err")" "" "the check's errors while swapping"
	# Swapped in between the check's statx and its open, a FIFO or
	# device is a difference of type too, not "cannot read".
	run_fcp --check --manifest m.db -T src dst
	[ "$RC" = 0 ] || [ "$RC" = 1 ] || fail "check against the source while swapping: exit $RC"
	only_allowed
	check_nogrep "cannot" "$T/err"
	run_fcp --check --manifest m.db --no-io-uring -T src dst
	[ "$RC" = 0 ] || [ "$RC" = 1 ] || fail "check (no io_uring) while swapping: exit $RC"
	only_allowed
	check_nogrep "cannot" "$T/err"
done
stop_swappers
for pair in $pairs; do
	[ -f "${pair%:*}" ] || exchange "${pair%:*}" "${pair#*:}"
	check_file "${pair%:*}" "the swapped file back in DEST"
done
run_fcp --check --manifest m.db dst
check_rc 0 "check after the swapping"

# Without /proc (a mount namespace without it): the name is opened a
# second time, checked to be the inode looked at. A chroot (whose root
# is no mount point) cannot make one: then not here.
noproc=
# Nor under the sanitizers, whose runtime cannot end without /proc.
if [ -n "$root" ] && [ -z "${FCP_SANITIZE:-}" ] && command -v unshare >/dev/null &&
	unshare -m true 2>/dev/null; then
	noproc=1
	noproc_fcp() {
		# shellcheck disable=SC2016 # the inner shell's $0 and $@
		timeout -k 5 "$FCP_TIMEOUT" unshare -m sh -c 'umount -l /proc && "$0" "$@"' \
			"$FASTCP" "$@" >"$T/out" 2>"$T/err"
		ran_ $? "fastcp (no /proc)" "$*"
	}
	noproc_fcp --check --manifest m.db dst
	check_rc 0 "check of the intact copy without /proc"
	put_in fifo dst/sub/g
	noproc_fcp --check --manifest m.db dst
	check_rc 1 "check with a FIFO without /proc"
	check_eq "$(cat "$T/out")" "type file != fifo: 'dst/sub/g'" "the check's lines (no /proc)"
fi

touch "$T/counted"
wait "$counter" || fail "the inotify counter failed"
check_eq "$(cat opens)" 0 "opens of the FIFO or devices put in for a recorded file"
[ -n "$noproc" ] ||
	skip "special files for recorded files said, never opened; no device nodes and no check without /proc tried (not root, no unshare, a chroot, or a sanitizer build)"
echo "PASS"
