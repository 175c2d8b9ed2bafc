#!/bin/bash
# Ctrl-C twice (issue 35): the first signal stops the copy cleanly, the
# second kills at once (SA_RESETHAND), with no time to say anything. So the
# first one says at once where the unfinished new copy stays, under its
# temporary name, and the copy is there after the kill, its finished files
# whole.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir slowsrc
for i in $(seq 1 8); do head -c 64K /dev/urandom >"slowsrc/f$i"; done
faultfs_mount slowsrc slow --delay-ms=1000
interruptible "$FASTCP" -j 1 --events "$T/ev" slow dst 2>"$T/err" &
pid=$!
for ((i = 0; i < 200; i++)); do
	grep -q '"event":"done".*"kind":"file"' "$T/ev" 2>/dev/null && break
	sleep 0.1
done
kill -0 "$pid" 2>/dev/null || fail "the slow copy ended before its first file was done"
kill -INT "$pid"
# The handler has run once SIGINT is no longer caught (SA_RESETHAND).
for ((i = 0; i < 100; i++)); do
	mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	[ -n "$mask" ] && (( 0x$mask & 2 )) || break
	sleep 0.01
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
cat "$T/err"
check_eq "$rc" 130 "exit status after two SIGINTs"
check_absent dst "the unfinished copy took its final name"
hidden=$(ls -d .fcp-* 2>/dev/null)
check_eq "$(echo "$hidden" | wc -w)" 1 "one unfinished copy under a temporary name"
# (A FUSE source has no birth time to know its copy by: renamed, then.)
check_grep "^fastcp: stopping; the unfinished copy of 'slow' stays as '[^']*/?\\$hidden' \\(also if a second signal kills fastcp at once\\): (the same command finishes it|once renamed to 'dst', the same command with --sync finishes it)$" "$T/err"
n=0
for f in "$hidden"/f*; do
	[ -e "$f" ] || continue
	cmp -s "$f" "slowsrc/${f##*/}" || fail "a file of the unfinished copy differs: $f"
	n=$((n + 1))
done
note "$n finished files in the unfinished copy"
[ "$n" -ge 1 ] || fail "no finished file in the unfinished copy"
# As it says: renamed, --sync finishes it (from the same data, not slowed).
mv "$hidden" dst
run_fcp --sync -T slowsrc dst
check_rc 0 "the copy finished by another run"
check_tree slowsrc dst
echo "Ctrl-C twice: the first signal names the unfinished copy"
