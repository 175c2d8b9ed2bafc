#!/bin/bash
# The summary as a table a robocopy user reads (issue 35): rows entries,
# directories, bytes; columns total, copied, skipped, failed, extras,
# deleted; with --stats or -v, not otherwise when stderr is no terminal.
# "changed" in --json's object and in the end event says whether DEST was
# changed; the exit status stays 0. The start event's options.preserve
# names the kinds of metadata kept.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p s/sub
printf '1234567890' >s/a          # 10 bytes
printf '12345' >s/b               # 5
printf '123' >s/sub/c             # 3
printf '12' >s/sub/d              # 2
# table FILE: the table's lines, spaces squeezed.
table() { grep -E '^fastcp: (  +total|entries|directories|bytes) ' "$1" | tr -s ' '; }

run_fcp --stats -T s d
check_rc 0 "the first copy"
table "$T/err" >got
cat >want <<'W'
fastcp: total copied skipped failed extras deleted
fastcp: entries 4 4 0 0 - 0
fastcp: directories 2 2 0 - - 0
fastcp: bytes 20 B 20 B 0 B - - -
W
diff want got || fail "the table of a new copy"

printf 'abcdefghijklmnopqrstuvwxy' >s/a   # 25 bytes
touch d/extra d/sub/extra2
touch -d '2020-01-01 00:00:00' s s/sub d d/sub
run_fcp -v --sync --delete -T s d
check_rc 0 "the re-run"
table "$T/err" >got
cat >want <<'W'
fastcp: total copied skipped failed extras deleted
fastcp: entries 4 1 3 0 2 2
fastcp: directories 2 0 2 - 0 0
fastcp: bytes 35 B 25 B 10 B - - -
W
diff want got || fail "the table of a re-run with --delete"

run_fcp --sync -T s d
check_rc 0 "a re-run without --stats"
check_eq "$(table "$T/err")" "" "a table without --stats or -v (stderr no terminal)"

run_fcp --json --events ev --sync -T s d
check_rc 0 "a re-run that changes nothing"
check_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["changed"])' "$T/out")" False \
	"changed: nothing copied"
python3 - ev <<'PY' || fail "the events: changed in the end event, preserve a list"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]['event'] == 'end' and ev[-1]['changed'] is False and ev[-1]['exit_status'] == 0, ev[-1]
assert ev[0]['options']['preserve'] == ['mode', 'ownership', 'timestamps', 'xattr', 'links'], ev[0]
PY
printf 'x' >s/b
run_fcp --json --events ev --no-preserve=ownership,xattr --sync -T s d
check_rc 0 "a re-run that copies one file"
check_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["changed"])' "$T/out")" True \
	"changed: a file copied"
python3 - ev <<'PY' || fail "the events of a run that changed DEST"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]['changed'] is True and ev[-1]['exit_status'] == 0, ev[-1]
assert ev[0]['options']['preserve'] == ['mode', 'timestamps', 'links'], ev[0]
done = [e for e in ev if e['event'] == 'done']
assert [(e['action'], e['path'], e['dest']) for e in done] == [('update', 's/b', 'd/b')], done
PY
# Many small files replaced (the io_uring batches take them too): each
# one an "update", none a "copy".
mkdir many
for i in $(seq 1 40); do echo "$i" >"many/f$i"; done
run_fcp -T many many.d
for i in $(seq 1 40); do echo "new $i" >"many/f$i"; done
run_fcp --json --events ev --sync -T many many.d
check_rc 0 "a re-run replacing 40 small files"
python3 - "$T/out" ev <<'PY' || fail "40 files replaced: 40 updates"
import json, sys
s = json.load(open(sys.argv[1]))
assert (s['files'], s['replaced'], s['changed']) == (40, 40, True), s
ev = [json.loads(l) for l in open(sys.argv[2])]
acts = sorted(e['action'] for e in ev if e['event'] == 'done')
assert acts == ['update'] * 40, acts
PY
echo "summary: a table; changed in the JSON"
