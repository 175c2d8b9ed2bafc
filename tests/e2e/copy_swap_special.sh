#!/bin/bash
# A regular source file swapped for a FIFO or a device node between the
# directory read and the open must never hang the copy nor be read from,
# nor even be opened (opening a device can act: a tape rewinds, a modem
# hangs up): the name is opened with O_PATH|O_NOFOLLOW, which opens
# nothing, its type checked on what was opened, and only a regular file is
# opened for reading, through that very inode. inotify counts the opens of
# the FIFO and the device (IN_OPEN; an O_PATH open is none): there must be
# none (47 in a run before). --sync --checksum, which reads both sides
# to compare them (by io_uring in batches, or one by one), is run over each
# copy too. Swappers exchange a file
# with a FIFO and (as root) another with /dev/zero's twin thousands of times
# a second (renameat2 RENAME_EXCHANGE) while fastcp copies the directory
# again and again, on the io_uring and the synchronous path. Every copy
# must end in time, and each name must hold what was there at some moment:
# the regular file's own content, or a FIFO / the device re-created, or a
# failure reported with its path. (Whether the race is hit depends on
# timing; with the O_NONBLOCK or the type check taken out, this test hung
# or failed in every run tried.)
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd python3

# Many other files in the directory: the open of a swapped name comes long
# after the directory read, so what it finds is a toss-up, not what the
# read saw.
mkdir s
for i in $(seq 1 300); do printf 'other %d\n' "$i" >"s/a$i"; done
printf 'the real f\n' >s/f
mkfifo s/p
pairs="f:p"
if [ "$(id -u)" = 0 ]; then
	printf 'the real g\n' >s/g
	mknod s/z c 1 5 # reads as endless zeros: reading it would never end
	pairs="$pairs g:z"
else
	note "not root: no device node to swap in, FIFO only"
fi

pids=()
stop_swappers() { touch "$T/stop"; for p in "${pids[@]}"; do wait "$p"; done; pids=(); }
# The swappers and the counter stop first, also after a failure; the
# test's own exit status goes on to the cleanup.
trap 'r=$?; stop_swappers; touch "$T/counted"; wait; (exit $r); t_cleanup_' EXIT

special="s/p"
[ "$(id -u)" = 0 ] && special="$special s/z"
# shellcheck disable=SC2086
python3 "$TESTLIB/count_opens.py" "$T/counted" $special >opens &
counter=$!
for _ in $(seq 1 500); do [ -e "$T/counted.ready" ] && break; sleep 0.01; done
[ -e "$T/counted.ready" ] || fail "the inotify counter did not start"

for pair in $pairs; do
	python3 "$TESTLIB/swap.py" "s/${pair%:*}" "s/${pair#*:}" "$T/stop" &
	pids+=($!)
done

# check_name DIR NAME REGULAR-CONTENT SPECIAL-KIND
check_name() {
	local f=$1/$2
	if [ -f "$f" ] && [ ! -L "$f" ]; then
		check_eq "$(cat "$f")" "$3" "content of $f"
	elif [ -e "$f" ]; then
		check_eq "$(stat -c %F "$f")" "$4" "kind of $f"
	else
		check_grep "'s/$2'" "$T/err" "$f missing and not reported"
	fi
}

FCP_TIMEOUT=20
for i in $(seq 1 30); do
	path=--reflink=never
	[ $((i % 2)) = 0 ] && path=--no-io-uring
	# Into a directory that exists: a failed item leaves the rest in place
	# (a new root copy with one would keep its temporary name).
	mkdir "d$i"
	run_fcp -j 2 "$path" -T s "d$i"
	[ "$RC" = 0 ] || [ "$RC" = 1 ] || fail "exit $RC"
	[ "$RC" = 0 ] || check_grep "'s/[fpgz]'" "$T/err" "exit 1 without a message"
	for pair in $pairs; do
		case $pair in
		f:p) want='the real f' kind=fifo ;;
		g:z) want='the real g' kind='character special file' ;;
		esac
		check_name "d$i" "${pair%:*}" "$want" "$kind"
		check_name "d$i" "${pair#*:}" "$want" "$kind"
	done
	# --checksum reads both sides to compare them (plan.c): it must not
	# open a swapped-in FIFO or device either, nor hang on one.
	run_fcp --sync --checksum -j 2 "$path" -T s "d$i"
	[ "$RC" = 0 ] || [ "$RC" = 1 ] || fail "--checksum: exit $RC"
	rm -rf "d$i"
done
stop_swappers
touch "$T/counted"
wait "$counter" || fail "the inotify counter failed"
check_eq "$(cat opens)" 0 "opens of the FIFO or device swapped in for a regular file"

# Without /proc (a mount namespace without it): regular files are opened
# by name again, checked to be the inode looked at, and copied.
# A chroot (whose root is no mount point) cannot make one: then not here.
noproc=
# Nor under the sanitizers, whose runtime cannot end without /proc.
if [ "$(id -u)" = 0 ] && [ -z "${FCP_SANITIZE:-}" ] && command -v unshare >/dev/null &&
	unshare -m true 2>/dev/null; then
	noproc=1
	mkdir np
	printf 'small\n' >np/a
	head -c 300000 /dev/urandom >np/b
	for path in --reflink=never --no-io-uring; do
		unshare -m sh -c "umount -l /proc && \"\$0\" \"\$@\"" "$FASTCP" $path -T np "np$path" ||
			fail "copy without /proc ($path)"
		cmp np/a "np$path/a" && cmp np/b "np$path/b" || fail "copy without /proc differs ($path)"
	done
fi
[ -n "$noproc" ] ||
	skip "swapped special files ok, never opened; the copy without /proc not tried (not root, no unshare, a chroot, or a sanitizer build)"
echo "swapped special files ok, never opened"
