#!/bin/bash
# fastcp-bench compare --prepare/--mutate: the prepare runs before every
# timed run and outside its timing, the mutation comes after it and is seen
# by the timed command, a failing setup command is FAILED, and a repeat copy
# that leaves the destination different from the source (a changed file
# not copied again, extra files not deleted) is still caught as a wrong
# copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH (run make all)"
need_cmd rsync python3
B=$FASTCP_BENCH

check "$B" gen small src --scale 0.002 >/dev/null
mkdir log

# 1. Each run: the prepare (1 s asleep, then an up-to-date copy and a
# marker with a fresh number) runs first; the mutation removes the marker
# and leaves a note that it ran after the prepare. The timed command fails
# unless the copy, the note and no marker are there, and logs the setup it
# saw: the prepare ran once before each timed run, never during one.
prep="sleep 1; cp -a {src}/. {dst} && date +%s%N >{dst}/.marker && echo prep >>$T/log/seq"
mut="test -f {dst}/.marker && rm {dst}/.marker && echo mutate >>$T/log/seq && touch {dst}/.mutated"
cmd="test -f {dst}/.mutated && test ! -e {dst}/.marker && rm {dst}/.mutated && echo run >>$T/log/seq && rsync -a {src}/ {dst}/"
"$B" compare --rounds 3 --warmup 1 --warm --json p.json --prepare "$prep" --mutate "$mut" src -- \
	"$cmd" >report 2>progress
rc=$?
cat report progress
check_eq "$rc" 0 "compare with --prepare and --mutate"
check_eq "$(tr '\n' ' ' <log/seq)" "$(for i in 1 2 3 4; do printf 'prep mutate run '; done)" \
	"order of prepare, mutate and the run (warm-up + 3 rounds)"
check_grep '^\| 1 \| .* \| 3/3 \|' report "the runs were not all ok"
check_grep "^Before each run, untimed and before the cache step: the destination is prepared by \`sleep 1;" report
check_grep '^round 3 .* ok .*untimed setup 1\.[0-9]+ s' progress
python3 - p.json "$prep" "$mut" <<'PY' || fail "the prepare's second was timed, or the JSON is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["prepare"] == sys.argv[2] and d["mutate"] == sys.argv[3], d
runs = d["commands"][0]["runs"]
assert len(runs) == 3 and all(r["ok"] for r in runs), runs
# each setup slept 1 s; the timed part (an rsync of 100 unchanged files)
# is far below that unless the setup was inside the timing
assert all(r["setup_s"] >= 1.0 for r in runs), runs
assert all(r["wall_s"] < 0.9 for r in runs), runs
PY

# 2. The verification still judges the result of a repeat copy: a changed
# destination file that the command does not copy again, extra files it
# does not delete, are wrong copies; rsync -a and rsync -a --delete fix
# them. A failing prepare or mutate is FAILED with its message, untimed.
f=$(cd src && find . -type f -size +1 | sort | head -n 1)
f=${f#./}
change="printf x | dd of={dst}/$f bs=1 count=1 conv=notrunc 2>/dev/null; touch -d @1 {dst}/$f"
"$B" compare --rounds 1 --warm --prepare 'cp -a {src}/. {dst}' --mutate "$change" src -- \
	'true {src} {dst}' 'rsync -a {src}/ {dst}/' 'rsync -a --size-only {src}/ {dst}/' >report 2>progress
check_eq "$?" 1 "exit status with a changed file left unchanged"
cat report
check_grep '^\| 1 \| `true \{src\} \{dst\}` \| 0/1 \| FAILED' report "a changed file left alone was not FAILED"
check_grep "FAILED: command 1, round 1: wrong copy: '$f': content differs" report
check_grep '^\| 2 \| `rsync -a \{src\}/ \{dst\}/` \| 1/1 \| [0-9.]+ ' report "rsync -a after one change"
check_grep '^\| 3 \| .* \| 0/1 \| FAILED' report "a quick check that misses the change was not FAILED"

extra="mkdir {dst}/gone && touch {dst}/gone/a {dst}/extra"
"$B" compare --rounds 1 --warm --prepare 'cp -a {src}/. {dst}' --mutate "$extra" src -- \
	'rsync -a {src}/ {dst}/' 'rsync -a --delete {src}/ {dst}/' >report 2>progress
check_eq "$?" 1 "exit status with extra files left behind"
check_grep "FAILED: command 1, round 1: wrong copy: '.': extra entry '(extra|gone)' in the copy" report
check_grep '^\| 2 \| `rsync -a --delete \{src\}/ \{dst\}/` \| 1/1 \| [0-9.]+ ' report "rsync --delete"

"$B" compare --rounds 1 --warm --prepare 'echo no room >&2; exit 3' src -- \
	'echo ran >>'"$T"'/log/bad; cp -a {src} {dst}' >report 2>progress
check_eq "$?" 1 "exit status with a failing prepare"
check_grep "FAILED: command 1, round 1: the --prepare command failed \(exit status 3\): no room" report
"$B" compare --rounds 1 --warm --mutate 'false' src -- \
	'echo ran >>'"$T"'/log/bad; cp -a {src} {dst}' >report 2>progress
check_eq "$?" 1 "exit status with a failing mutate"
check_grep "FAILED: command 1, round 1: the --mutate command failed \(exit status 1\): no message" report
check_absent log/bad "the timed command ran after a failed setup"

# 3. On a fresh filesystem, cold: the prepared copy is on that filesystem
# (the mutation sees it there) and the cache step comes after the setup.
if [ "$(id -u)" = 0 ] && command -v mkfs.xfs >/dev/null; then
	"$B" compare --rounds 1 --cold --fresh-fs xfs --prepare 'cp -a {src}/. {dst}' \
		--mutate 'test "$(stat -f -c %T {dst})" = xfs && echo {dst} >'"$T"'/log/fs' src -- \
		'rsync -a {src}/ {dst}/' >report 2>progress || { cat report progress; fail "--fresh-fs with --prepare"; }
	grep -q '/mnt/dst$' log/fs || fail "the prepare did not run on the fresh filesystem: $(cat log/fs)"
	check_nogrep WARNING report
else
	note "not root or no mkfs.xfs: --fresh-fs with --prepare not checked"
fi
check_eq "$(ls -d fastcp-bench.* 2>/dev/null | wc -l)" 0 "work directory left behind"
echo "prepare: ok"
