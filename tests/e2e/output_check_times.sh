#!/bin/bash
# --check's mtime lines for people are ISO 8601 local time with the
# nanoseconds (issue 35: "1793698095.831308123" was printed); its events
# keep the exact numbers, named: source_mtime, dest_mtime.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
export TZ=UTC

mkdir src
printf 'f\n' >src/f
touch -m -d '@1600000000.5' src/f
run_fcp -T src dst
check_rc 0 "the copy"
touch -m -d '@1500000000.25' dst/f
touch -m -d '@1600000000.5' src dst
run_fcp --check --events ev -T src dst
check_rc 1 "--check with an mtime difference"
check_eq "$(cat "$T/out")" \
	"mtime 2020-09-13T12:26:40.500000000+0000 != 2017-07-14T02:40:00.250000000+0000: 'dst/f'" \
	"the line of --check"
python3 - ev <<'PY' || fail "the difference event: its exact mtimes"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if '"difference"' in l]
assert len(ev) == 1, ev
e = ev[0]
assert e['what'] == 'mtime 2020-09-13T12:26:40.500000000+0000 != 2017-07-14T02:40:00.250000000+0000', e
assert (e['source_mtime'], e['dest_mtime'], e['path']) == \
       ('1600000000.500000000', '1500000000.250000000', 'dst/f'), e
PY
TZ=Europe/Paris run_fcp --check -T src dst
check_eq "$(cat "$T/out")" \
	"mtime 2020-09-13T14:26:40.500000000+0200 != 2017-07-14T04:40:00.250000000+0200: 'dst/f'" \
	"the line in another time zone: local time"
echo "--check: ISO 8601 times for people, exact numbers in the events"
