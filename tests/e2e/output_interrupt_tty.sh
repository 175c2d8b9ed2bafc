#!/bin/bash
# Ctrl-C on a terminal while the status line is shown (util-linux script
# gives the pseudo-terminal): the signal's note starts on a cleared line,
# not glued onto the status line ("...ETA -:--fastcp: stopping"), and the
# unfinished copy's name is said once (the note; the end does not say it
# again). The copy stays under its temporary name, its finished files
# whole.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd script python3

mkdir slowsrc
for i in $(seq 1 8); do head -c 64K /dev/urandom >"slowsrc/f$i"; done
faultfs_mount slowsrc slow --delay-ms=700
# A progress tick is 100 ms or so: the line is drawn many times per file.
interruptible script -qfc "echo \$\$ >'$T/pid'; exec '$FASTCP' -j 1 --events '$T/ev' slow dst" "$T/tty" >/dev/null </dev/null &
spid=$!
for ((i = 0; i < 300; i++)); do
	grep -q '"event":"done".*"kind":"file"' "$T/ev" 2>/dev/null && break
	sleep 0.1
done
pid=$(cat "$T/pid" 2>/dev/null)
[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || fail "the copy is not running under script"
grep -q '"event":"done".*"kind":"file"' "$T/ev" || { kill -KILL "$pid"; fail "no file copied in 30 s"; }
grep -q $'\x1b\\[K' "$T/tty" || { kill -KILL "$pid"; fail "no status line drawn"; }
kill -INT "$pid"
wait "$spid"
hidden=$(ls -d .fcp-* 2>/dev/null)
check_eq "$(echo "$hidden" | wc -w)" 1 "one unfinished copy under a temporary name"
check_absent dst "the unfinished copy took its final name"
for f in "$hidden"/f*; do
	[ -e "$f" ] || continue
	cmp -s "$f" "slowsrc/${f##*/}" || fail "a file of the unfinished copy differs: $f"
done
python3 - "$T/tty" "$hidden" <<'PY' || fail "the interrupt's lines on the terminal"
import sys
raw = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
hidden = sys.argv[2]
ok = True
at = raw.find("fastcp: stopping")
if at < 0:
    print("no note of the signal"); ok = False
elif not (raw[:at].endswith('\r\x1b[K') or raw[:at].endswith('\n')):
    print("the note is glued onto the status line:", repr(raw[max(0, at - 60):at + 20])); ok = False
said = raw.count(hidden)
if said != 1:
    print(f"the unfinished copy '{hidden}' is named {said} times, not once"); ok = False
if "is left as" in raw:
    print("the end says again where the copy is left"); ok = False
sys.exit(0 if ok else 1)
PY
echo "Ctrl-C on the status line: the note on a cleared line, the kept copy said once"
