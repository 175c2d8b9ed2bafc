#!/bin/bash
# --dry-run lists only what would change (issue 35: 1,951 of 1,963 lines
# were "unchanged"), as rsync -n and robocopy /L do, and ends with one line
# of what it would do; -vv lists every entry; --json has the same numbers
# and "changed"; --json with --events - is refused (two formats on stdout).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir s
for i in $(seq 1 50); do printf 'file %s\n' "$i" >"s/f$i"; done
run_fcp -T s d
check_rc 0 "the first copy"
printf 'longer data\n' >s/f7   # 12 bytes, another size
chmod 600 s/f8
printf 'new\n' >s/new          # 4 bytes
touch d/extra
touch -d '2020-01-01 00:00:00' s d
snap() { find d -printf '%p %m %s %T@\n' | sort; }
snap >before

run_fcp --dry-run --sync --delete -T s d
check_rc 0 "the dry run"
sort "$T/out" >lines
cat >want <<'W'
copy 'd/new'
delete 'd/extra'
fastcp: dry run, nothing changed: would copy 1 entry (1 file; 4 B), update 1 (12 B), update metadata of 1, delete 1
update 'd/f7'
update metadata 'd/f8'
W
diff want lines || fail "the dry run's lines: only what would change, and the closing line"
check_eq "$(tail -n 1 "$T/out")" "$(grep '^fastcp: dry run' want)" "the closing line comes last"
snap >after
diff before after || fail "the dry run changed the destination"

run_fcp --dry-run -vv --sync --delete -T s d
check_rc 0 "the dry run with -vv"
check_eq "$(grep -c "^unchanged 'd/f" "$T/out")" 48 "-vv: the files left as they are"
check_grep "^unchanged 'd'$" "$T/out"
check_eq "$(wc -l <"$T/out")" 54 "-vv: 48 unchanged, the root, 4 changes, the closing line"

run_fcp --dry-run --json --sync --delete -T s d
check_rc 0 "the dry run with --json"
python3 - "$T/out" <<'PY' || fail "--dry-run --json: the numbers of the closing line, changed"
import json, sys
s = json.load(open(sys.argv[1]))
got = (s['would_copy'], s['would_copy_bytes'], s['would_update'], s['would_update_bytes'],
       s['updated'], s['deleted'], s['changed'], s['dry_run'])
assert got == (1, 4, 1, 12, 1, 1, True, True), got
PY
check_grep "^fastcp: dry run, nothing changed: would copy 1 entry " "$T/err"

run_fcp -q --dry-run --sync -T s d
check_nogrep "^fastcp: dry run" "$T/out"

run_fcp --sync --delete -T s d
check_rc 0 "the copy"
run_fcp --dry-run --sync --delete -T s d
check_eq "$(cat "$T/out")" \
	"fastcp: dry run, nothing changed: would copy 0 entries (0 B), update 0 (0 B), update metadata of 0, delete 0" \
	"a dry run with nothing to do: its closing line alone"
run_fcp --dry-run --json --sync -T s d
check_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["changed"])' "$T/out")" False \
	"changed of a dry run with nothing to do"

# --json and --events -: two formats on one stdout, refused.
run_fcp --json --events - s d2
check_rc 2 "--json --events -"
check_eq "$(cat "$T/out")" "" "stdout of the refused command"
check_grep "^fastcp: --json and --events - would both write to standard output" "$T/err"
check_absent d2
run_fcp --json --events ev s d2
check_rc 0 "--json --events FILE"
echo "--dry-run: what would change, and a closing line"
