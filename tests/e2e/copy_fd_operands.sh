#!/bin/bash
# More SOURCE operands than descriptors: `fastcp src/f* dst/` with 120 files
# under a limit of 64 open files. DEST is one directory for all of them and
# is opened once, so the operands need no descriptor each: every file is
# copied, at once (no wait for descriptors that never come back), exit 0.
# And a SIGTERM ends such a job promptly (faultfs holds it in slow reads
# meanwhile): a second or two, not minutes.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd prlimit

n=120
mkdir src dst
for i in $(seq 1 $n); do printf 'file %d\n' "$i" >"src/f$i"; done

FCP_TIMEOUT=30 FCP_WRAP="prlimit --nofile=64:64 --" run_fcp src/f* dst/
check_rc 0 "$n operands under a limit of 64 descriptors"
check_nogrep "open files" "$T/err"
# (DEST itself is no copy: its times are its own.)
check_eq "$(ls dst | wc -l)" "$n" "files in dst"
check diff -r src dst
check_no_temp dst

# The same operands, ten of them slow to read (faultfs, 300 ms a call: a
# second and more each, so that the copy is still under way when the test
# sees its first file, whatever the machine's speed): a SIGTERM then ends
# it.
mkdir backing
mv src backing/src
faultfs_mount backing mnt --match='f11?' --delay-ms=300
rm -rf dst && mkdir dst
prlimit --nofile=64:64 -- "$FASTCP" mnt/src/f* dst/ >out.log 2>err.log &
pid=$!
for ((i = 0; i < 150; i++)); do
	[ -n "$(ls dst)" ] && break
	sleep 0.1
done
kill -0 "$pid" 2>/dev/null || fail "the slow copy ended before the signal"
kill -TERM "$pid"
for ((i = 0; i < 30; i++)); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
	kill -KILL "$pid"
	wait "$pid"
	sed 's/^/  err| /' err.log | head -5
	fail "still running 3 s after SIGTERM"
fi
wait "$pid"
rc=$?
sed 's/^/  err| /' err.log | head -5
check_eq "$rc" 143 "exit status after SIGTERM (128 + 15, as the shell says)"
check_grep "interrupted by signal 15" err.log
check_no_temp dst
echo "$n operands under 64 descriptors copied; SIGTERM obeyed within 3 s"
