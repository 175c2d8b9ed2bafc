#!/bin/bash
# A new root copy whose only problems are failed items gets its final
# name: the failed items are named, the copy says it lacks them, exit 1
# (cp and rsync leave the rest in place too). --atomic keeps such a copy
# hidden, all or nothing. A copy that was stopped (a signal, a full
# destination) stays hidden, and the same command (no --sync) takes it up
# and finishes it: never a second hidden copy. The file in flight at the
# stop is no failed item ("Interrupted system call"). In a killed run's
# copy taken up, a file that fails now, or whose source is gone, may be
# that run's partial file: it is removed before the copy gets its name;
# and -n does not keep it.
# Kills and signals come at a fixed point: a large file read at --bwlimit
# has begun in the hidden copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

# hidden_in DIR: the .fcp-* directories in DIR, one a line.
hidden_in() { find "$1" -mindepth 1 -maxdepth 1 -name '.fcp-*' -type d; }

# stop_mid SIG DIR ARGS...: run fastcp ARGS (stderr in $T/err_stop, run
# as $FCP_WRAP) and send SIG once its hidden copy in DIR holds the start
# of big (read slowly at --bwlimit); $rc is its exit status.
stop_mid() {
	local sig=$1 dir=$2 pid h i
	shift 2
	# shellcheck disable=SC2086
	interruptible ${FCP_WRAP:-} "$FASTCP" -j 2 --bwlimit 256K "$@" 2>"$T/err_stop" &
	pid=$!
	for ((i = 0; i < 400; i++)); do
		h=$(hidden_in "$dir" | head -1)
		[ -n "$h" ] && [ -s "$h/big" ] && break
		sleep 0.025
	done
	began=$i
	kill -s "$sig" "$pid"
	{ wait "$pid"; } 2>/dev/null
	rc=$?
	sed 's/^/  stop| /' "$T/err_stop"
	[ "$began" -lt 400 ] || fail "the copy never began its large file"
}

mktree() {
	rm -rf "$1" && mkdir -p "$1/sub"
	for i in $(seq 1 40); do echo "photo $i" >"$1/IMG_$i.JPG"; done
	for i in $(seq 1 5); do head -c $((i * 3000)) /dev/urandom >"$1/sub/f$i"; done
	head -c 3000000 /dev/urandom >"$1/big"
}

# 1. A failed item (a read error, by faultfs): the rest gets its name.
if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && [ -x "$TOOLS/faultfs" ]; then
	mkdir -p fb/t/sub && echo ok >fb/t/ok && head -c 100000 /dev/urandom >fb/t/sub/bad
	for i in $(seq 1 20); do echo "$i" >"fb/t/sub/g$i"; done
	faultfs_mount fb "$T/fsrc" --match=bad --eio-at=4096
	run_fcp "$T/fsrc/t" d1
	check_rc 1 "a copy with a failed item"
	check_grep "^fastcp: cannot copy '$T/fsrc/t/sub/bad': Input/output error" "$T/err"
	check_grep "^fastcp: the copy of '$T/fsrc/t' has its name 'd1' without the 1 item that failed" \
		"$T/err"
	check_grep "^fastcp: 1 item failed" "$T/err"
	check_nogrep "unfinished|interrupted" "$T/err" "a failed item called an interruption"
	check_absent d1/sub/bad "the failed file"
	check_eq "$(hidden_in . | wc -l)" 0 "hidden copies after a failed item"
	rm -rf fb/t/sub/bad
	# The copy keeps the marker by which the same command finishes it in
	# place (copy_failed_rerun.sh); nothing else differs.
	getfattr --absolute-names -n user.fastcp.move d1 >/dev/null 2>&1 ||
		fail "the copy with a failed item lost its marker"
	check_tree fb/t d1 --no-times

	# --atomic: all or nothing. The same command without it then takes
	# the hidden copy up: one copy, never two.
	head -c 100000 /dev/urandom >fb/t/sub/bad
	run_fcp --atomic "$T/fsrc/t" d2
	check_rc 1 "--atomic with a failed item"
	check_absent d2 "an --atomic copy with a failed item under its name"
	left=$(hidden_in .)
	[ -d "$left" ] || fail "no hidden copy with --atomic: $left"
	check_grep "^fastcp: the unfinished copy of '$T/fsrc/t' is left as '$T/${left#./}': 1 item failed \(--atomic\); renamed to 'd2', the same command with --sync finishes it" \
		"$T/err"
	# faultfs (FUSE) gives no birth time: nothing tells this source
	# from another at its path, so the copy is held, never a second one
	# made; renamed as the message says, --sync finishes it.
	run_fcp "$T/fsrc/t" d2
	check_rc 1
	check_grep "^fastcp: not copied: '$T/fsrc/t': '$T/${left#./}' may be the unfinished copy of it" \
		"$T/err"
	check_eq "$(hidden_in . | wc -l)" 1 "hidden copies after the same command"
	check_absent d2 "a copy beside the held one"
	mv "$left" d2
	run_fcp --sync "$T/fsrc/t" d2
	check_rc 1
	check_file d2/ok
	check_absent d2/sub/bad
else
	note "no faultfs here (root, /dev/fuse): the read-error cases are not run"
fi

# 2. SIGINT: the copy stays hidden, the file in flight is no failure;
# the same command (no --sync) finishes it.
mktree s
stop_mid INT . s d3
check_eq "$rc" 130 "exit status after SIGINT"
check_nogrep "Interrupted system call" "$T/err_stop" "the stop reported as a failed item"
check_nogrep "item.? failed" "$T/err_stop" "the stop counted as a failed item"
check_absent d3 "a stopped copy under its name"
left=$(hidden_in .)
check_eq "$(printf '%s\n' "$left" | grep -c .)" 1 "hidden copies after SIGINT"
# (said once, by the signal's note)
check_grep "the unfinished copy of 's' stays as '$T/${left#./}' \\(also if a second signal kills fastcp at once\\): the same command finishes it" \
	"$T/err_stop"
check_nogrep "is left as" "$T/err_stop" "the end says the kept copy again"
run_fcp s d3
check_rc 0 "the same command after SIGINT"
check_grep "^fastcp: finishing '$T/${left#./}', the copy of 's' that an interrupted run left" "$T/err"
check_tree s d3
check_eq "$(hidden_in . | wc -l)" 0 "hidden copies after the same command"

# 3. Killed (SIGKILL) while big was written, then big unreadable (EACCES,
# as user nobody) or gone: the partial big goes, the rest gets its name.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p k && chown nobody k
	mktree s
	FCP_WRAP="setpriv --reuid=65534 --regid=65534 --clear-groups" stop_mid KILL k s k/d4
	left=$(hidden_in k)
	[ -d "$left" ] || fail "no hidden copy after the kill"
	size=$(stat -c %s "$left/big")
	[ "$size" -lt 3000000 ] || fail "big was whole at the kill: $size bytes"
	cp s/big big.ref
	chmod 000 s/big
	FCP_WRAP="setpriv --reuid=65534 --regid=65534 --clear-groups" run_fcp s k/d4
	check_rc 1 "an unreadable file after a kill"
	check_grep "^fastcp: cannot open 's/big': Permission denied" "$T/err"
	check_grep "^fastcp: the copy of 's' has its name 'k/d4' without the 1 item that failed" "$T/err"
	check_absent k/d4/big "the killed run's partial file under its final name"
	check_eq "$(hidden_in k | wc -l)" 0 "hidden copies after the same command"
	chmod 644 s/big && mv s/big big.keep
	check_tree s k/d4 --no-owner --no-times
	mv big.keep s/big
	cmp -s big.ref s/big || fail "the source was altered"
else
	note "not root, or no setpriv: the unreadable case is not run"
fi
for sync in '' --sync; do
	mktree s
	stop_mid KILL . s d5
	left=$(hidden_in .)
	[ -d "$left" ] && [ -s "$left/big" ] || fail "no partial file in the hidden copy after the kill"
	rm s/big
	run_fcp $sync s d5
	check_rc 0 "a killed copy whose file in flight left the source ($sync)"
	check_absent d5/big "the killed run's partial file of a source gone since ($sync)"
	check_tree s d5 --no-times
	check_eq "$(hidden_in . | wc -l)" 0 "hidden copies after the same command ($sync)"
	rm -rf d5
done

# cp's guards keep files that were there; a taken-up copy's files are the
# killed run's own: -n must not keep the partial big.
mktree s
stop_mid KILL . s d7
left=$(hidden_in .)
[ -d "$left" ] && [ -s "$left/big" ] || fail "no partial file in the hidden copy after the kill"
run_fcp -n --sync s d7
check_rc 0 "-n --sync after a kill"
cmp -s s/big d7/big || fail "-n kept the killed run's partial file under its final name"
check_tree s d7
check_eq "$(hidden_in . | wc -l)" 0 "hidden copies after -n --sync"

# 4. A full destination stops the copy: it stays hidden; with room made,
# the same command finishes it.
t_mount_fs tmpfs 2m "$T/small"
mktree s
run_fcp s "$T/small/d6"
check_rc 1 "a full destination"
check_absent "$T/small/d6" "a copy stopped by a full destination under its name"
left=$(hidden_in "$T/small")
[ -d "$left" ] || fail "no hidden copy after ENOSPC"
cp "$T/err" err_enospc
mount -o remount,size=20m "$T/small" || skip "cannot grow the tmpfs"
run_fcp s "$T/small/d6"
check_rc 0 "the same command with room"
check_tree s "$T/small/d6"
check_eq "$(hidden_in "$T/small" | wc -l)" 0 "hidden copies after the same command"
check_grep "is left as '$left': the copy was stopped; the same command finishes it" err_enospc
echo "failed items do not hide a copy; a stopped copy is finished by the same command"
