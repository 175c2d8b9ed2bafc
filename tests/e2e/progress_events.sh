#!/bin/bash
# --events: NDJSON, every line a complete JSON object: start (sources,
# dest, options), a line per item done or failed (path, kind, bytes,
# engine, reason), end (the summary, as --json prints it). Paths of any
# bytes come back exactly (surrogateescape). Interrupted by SIGINT mid-copy,
# the lines written are still whole and the end line still comes, with the
# signal. --json prints the summary as one JSON object on stdout; --log
# writes one line per item (action, path, bytes, result, reason); -v prints
# each item on stdout.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd python3

mkdir -p s/d e
printf 'a' >s/plain
printf 'b' >"$(printf 's/d/odd\377name')"
printf 'c' >"$(printf 's/d/new\nline\ttab "quote" \\back')"
printf 'd' >"s/d/caf$(printf '\303\251')"
ln -s plain s/link
head -c 300K /dev/urandom >s/d/medium
head -c 100K /dev/urandom >e/bad
faultfs_mount e failing --match=bad --eio-at=0

# Each line a JSON object; the items' paths as bytes (what the tree holds).
check_events() { # FILE WANT_EXIT [SIGNAL]
	python3 - "$@" <<'PY'
import json, os, sys
path, want_exit = sys.argv[1], int(sys.argv[2])
want_signal = int(sys.argv[3]) if len(sys.argv) > 3 else 0
lines = open(path, 'rb').read().split(b'\n')
assert lines[-1] == b'', "the last line does not end with a newline"
ev = [json.loads(l) for l in lines[:-1]]          # raises on a torn line
assert ev[0]['event'] == 'start', ev[0]
assert ev[-1]['event'] == 'end', ev[-1]
assert [e['event'] for e in ev].count('end') == 1
start, end = ev[0], ev[-1]
assert 'options' in start and 'dest' in start and start['sources'], start
assert end['exit_status'] == want_exit, end['exit_status']
assert end['summary']['signal'] == want_signal, end['summary']['signal']
items = [e for e in ev if e['event'] in ('done', 'skipped', 'failed')]
for e in items:
    for k in ('action', 'kind', 'path', 'bytes', 'engine', 'reason'):
        assert k in e, (k, e)
done = {os.fsencode(e['path']) for e in items if e['event'] == 'done'}
failed = [e for e in items if e['event'] == 'failed']
print(len(ev), "lines,", len(done), "done,", len(failed), "failed")
if want_signal:
    sys.exit(0)
src = {os.path.join(r, n).encode('utf-8', 'surrogateescape')
       for r, ds, fs in os.walk(b's'.decode('utf-8', 'surrogateescape'))
       for n in ds + fs} | {b's'}
assert done == src, ("done items differ from the tree", done ^ src)
files = [e for e in items if e['event'] == 'done' and e['kind'] == 'file']
assert all(e['engine'] for e in files), files
assert {e['path']: e['bytes'] for e in files}['s/d/medium'] == 300 * 1024
assert len(failed) == 1 and failed[0]['path'] == 'failing/bad' and \
       'Input/output error' in failed[0]['reason'], failed
s = end['summary']
assert (s['files'], s['directories'], s['symlinks'], s['failed']) == (5, 2, 1, 1), s
assert s['errors'] and 'failing/bad' in s['errors'][0], s['errors']
PY
}

mkdir dst
run_fcp --events "$T/ev" --log "$T/log" -v s failing/bad dst
check_rc 1 "copy with one unreadable file"
check_events "$T/ev" 1 || fail "events of a copy with a failed item"
# -v: cp's line per item on stdout (a failure is on stderr, as cp's);
# --log: five tab-separated fields.
check_eq "$(grep -c "^'s/d/medium' -> 'dst/s/d/medium'$" "$T/out")" 1 "-v line of a file"
check_eq "$(grep -c "^'s/d' -> 'dst/s/d'$" "$T/out")" 1 "-v line of a directory"
check_eq "$(grep -c "failing/bad" "$T/out")" 0 "-v line of the failed file on stdout"
check_grep "^fastcp: .*'failing/bad': Input/output error$" "$T/err"
check_eq "$(wc -l <"$T/out")" 8 "-v lines (8 items)"
check_eq "$(wc -l <"$T/log")" 9 "--log lines"
check_eq "$(awk -F'\t' 'NF != 5' "$T/log" | wc -l)" 0 "--log lines of other than 5 fields"
check_grep "^copy	s/d/medium	307200	ok	-$" "$T/log"
check_grep "^copy	s/d/new\\\\012line\\\\011tab \"quote\" \\\\134back	1	ok	-$" "$T/log"
check_grep "^fail	failing/bad	0	failed	cannot .*: Input/output error$" "$T/log"

# A --sync re-run: each entry found up to date is skipped ("unchanged"),
# the directories too (s and s/d), each with its copy's path ("dest").
run_fcp --sync -T --events "$T/ev3" --log "$T/log3" s dst/s
check_rc 0 "--sync re-run"
python3 - "$T/ev3" <<'PY' || fail "events of a --sync re-run"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], 'rb')]
items = [e for e in ev if e['event'] in ('done', 'skipped', 'failed')]
assert len(items) == 8 and all(e['event'] == 'skipped' and e['action'] == 'unchanged'
                                for e in items), items
assert {e['path']: e['bytes'] for e in items}['s/d/medium'] == 300 * 1024
assert {e['path']: e['dest'] for e in items}['s/d'] == 'dst/s/d', items
assert sum(e['kind'] == 'directory' for e in items) == 2, items
PY
check_grep "^unchanged	s/d/medium	307200	skipped	-$" "$T/log3"

# --json: the summary alone on stdout, one object with the documented keys.
rm -rf dst2
run_fcp --json s dst2
check_rc 0 "copy with --json"
python3 - "$T/out" <<'PY' || fail "--json output"
import json, sys
text = open(sys.argv[1]).read()
assert text.count('\n') == 1, "not one line"
s = json.loads(text)
keys = {'files', 'directories', 'symlinks', 'symlink_kinds', 'hard_links', 'special_files',
        'bytes', 'bytes_cloned', 'bytes_holes', 'skipped', 'excluded', 'failed', 'errors',
        'seconds', 'bytes_per_second', 'files_per_second', 'io_operations', 'io_per_second',
        'cpu_user_seconds', 'cpu_system_seconds', 'cpu_percent', 'max_rss_kb', 'signal'}
assert keys <= set(s), keys - set(s)
assert (s['files'], s['directories'], s['symlinks']) == (5, 2, 1), s
assert s['bytes'] == 300 * 1024 + 4 and s['io_operations'] > 0 and s['max_rss_kb'] > 0, s
PY
check_eq "$(cat "$T/err")" "" "stderr of --json"

# --events -: the events on stdout.
rm -rf dst
mkdir dst
run_fcp --events - s failing/bad dst
check_rc 1 "copy with --events -"
check_events "$T/out" 1 || fail "events on stdout"

# SIGINT mid-copy: every line whole, the end line with the signal.
mkdir slowsrc
for i in $(seq 1 12); do head -c 256K /dev/urandom >"slowsrc/f$i"; done
faultfs_mount slowsrc slow --delay-ms=150
interruptible "$FASTCP" -j 1 --events "$T/ev2" slow dst3 2>"$T/err2" &
pid=$!
for ((i = 0; i < 100; i++)); do
	grep -q '"event":"done".*"kind":"file"' "$T/ev2" 2>/dev/null && break
	sleep 0.1
done
kill -0 "$pid" 2>/dev/null || fail "the slow copy ended before its first file was done"
kill -INT "$pid"
wait "$pid"
rc=$?
check_eq "$rc" 130 "exit status after SIGINT"
check_events "$T/ev2" 1 2 || fail "events after SIGINT"
echo "events: whole lines, exact paths, the end line also after SIGINT; --json, --log, -v"
