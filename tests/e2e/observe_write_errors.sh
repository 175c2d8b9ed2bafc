#!/bin/bash
# The outputs that record a copy (--events, --log, -v, --json) are not the
# copy: a write to one that fails is said once with its path, nothing more
# is written there, the copy goes on to the end, and the exit status is 1
# (not 0 as if the record were whole). A line is never left cut short in a
# file: --events on a full filesystem ends with its last whole JSON object.
# A reader of a FIFO that quits does not kill the copy with SIGPIPE (exit
# 141). The copy itself is checked whole each time (treecmp).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd python3

mkdir src
for i in $(seq 1 400); do printf 'file %d\n' "$i" >"src/a_rather_long_file_name_$i"; done

# whole_json FILE, whole_log FILE: every line is whole (the file ends with
# a newline), a JSON object (events) or five tab-separated fields (log).
whole_json() {
	python3 -c 'import json, sys
d = open(sys.argv[1], "rb").read()
assert d and d.endswith(b"\n"), "ends mid-line: %r" % d[-60:]
for l in d.splitlines(): json.loads(l)' "$1" || fail "$1 is not whole lines of JSON"
}
whole_log() {
	[ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] || fail "$1 ends mid-line"
	awk -F '\t' 'NF != 5 { exit 1 }' "$1" || fail "$1 has a line without its 5 fields"
}

# A filesystem too small for the record of 400 files.
if [ "$(id -u)" = 0 ]; then
	t_mount_fs tmpfs 64k "$T/full"
	run_fcp --events "$T/full/ev.ndjson" --log "$T/full/copy.log" src d1
	check_rc 1 "--events and --log on a full filesystem"
	check_tree src d1
	check_eq "$(grep -c "cannot write events file '$T/full/ev.ndjson': No space left on device" "$T/err")" 1 \
		"the events file's failure said once"
	check_eq "$(grep -c "cannot write log file '$T/full/copy.log': No space left on device" "$T/err")" 1 \
		"the log file's failure said once"
	whole_json "$T/full/ev.ndjson"
	whole_log "$T/full/copy.log"

	# --json to a full file: the summary goes whole or not at all.
	rm -f "$T/full/"*
	head -c 1M /dev/zero >"$T/full/fill" 2>/dev/null
	timeout 60 "$FASTCP" --json src d2 >"$T/full/summary.json" 2>"$T/err"
	rc=$?
	check_eq "$rc" 1 "--json to a full filesystem: exit status"
	check_tree src d2
	check_grep "cannot write the --json summary to standard output: No space left on device" "$T/err"
	check_eq "$(stat -c %s "$T/full/summary.json")" 0 "a part of the --json summary was left"
else
	note "not root: no small filesystem to fill"
fi

# A FIFO whose reader quits after a few bytes.
mkfifo fifo
head -c 300 fifo >/dev/null &
run_fcp --events fifo src d3
check_rc 1 "--events to a FIFO whose reader quit"
check_tree src d3
check_eq "$(grep -c "cannot write events file 'fifo': Broken pipe" "$T/err")" 1 \
	"the FIFO's failure said once"
wait

head -c 100 fifo >/dev/null &
run_fcp --log fifo src d4
check_rc 1 "--log to a FIFO whose reader quit"
check_tree src d4
check_grep "cannot write log file 'fifo': Broken pipe" "$T/err"
wait

# -v and --json into a pipe whose reader quits at once.
python3 -c 'open("fifo", "rb").close()' &
timeout 60 "$FASTCP" -v src d5 >fifo 2>"$T/err"
check_eq "$?" 1 "-v into a closed pipe: exit status"
wait
check_tree src d5
check_eq "$(grep -c "cannot write -v lines to standard output: Broken pipe" "$T/err")" 1 \
	"-v's failure said once"

python3 -c 'open("fifo", "rb").close()' &
timeout 60 "$FASTCP" --json src d6 >fifo 2>"$T/err"
check_eq "$?" 1 "--json into a closed pipe: exit status"
wait
check_tree src d6
check_grep "cannot write the --json summary to standard output: Broken pipe" "$T/err"
echo "failed writes of the outputs said once, the copies whole"
