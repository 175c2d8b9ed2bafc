#!/bin/bash
# Every run finds and reports what killed runs left: unfinished root copies
# (.fcp-* directories beside the destination name) and temporary files
# (.fcp-* inside destination directories that existed). It names each one
# (the first few, then a count), removes none of them, and they do not
# change the exit status; only the same source's copy takes up its own
# hidden copy and finishes it. A copy running at the same time into the same
# directory is not taken for a leftover (it holds a lock on its directory),
# and names of another shape are not .fcp- temporaries.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH"

check "$FASTCP_BENCH" gen small k --scale 0.2 --seed 5 >/dev/null
head -c 200M /dev/zero >k/huge

# Killed (SIGKILL) in the middle of a new root copy: another source's run
# names the hidden copy it finds; the same command finishes it.
# At 20 MiB/s (--bwlimit) the copy lasts 10 s at least on any machine; it
# is killed once its hidden directory holds 50 files, a moment the test
# sees, not one it guesses.
mkdir dst
"$FASTCP" -j 2 --bwlimit 20M k dst/kd &
pid=$!
for ((i = 0; i < 3000; i++)); do
	left=$(find dst -maxdepth 1 -name '.fcp-*' -print -quit)
	[ -n "$left" ] && [ "$(find "$left" -type f | head -50 | wc -l)" -ge 50 ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.02
done
[ -n "$left" ] && [ "$(find "$left" -type f | head -50 | wc -l)" -ge 50 ] ||
	{ kill -KILL "$pid"; fail "the copy did not get under way (50 files in its hidden directory)"; }
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
check_eq "$?" 137 "exit status of the killed copy"
left=$(find dst -mindepth 1 -maxdepth 1 -name '.fcp-*')
[ -d "$left" ] || fail "no hidden copy after the kill: $left"
# A run of another source into the same directory sees it: reported with
# its source, never removed.
mkdir k2 && echo x >k2/x
run_fcp k2 dst/other
check_rc 0
check_grep "^fastcp: '$T/$left' is an unfinished copy of '$T/k' left by an interrupted run" \
	"$T/err"
check_dir "$left" "the leftover was removed"
# The same command takes it up and finishes it: no second copy.
run_fcp -j 2 k dst/kd
check_rc 0 "a re-run after a killed copy"
check_nogrep "unfinished copy" "$T/err" "the killed run's copy named, not taken up"
check_tree k dst/kd
check_absent "$left" "the killed run's copy was not the one finished"

# Temporary files in directories of an existing tree (any fastcp's shape,
# older pid-based ones too), and a name that only starts like one.
rm -rf k/huge
mkdir e
check "$FASTCP" -T k e
sub=$(cd e && find . -mindepth 1 -maxdepth 1 -type d | head -1)
sub=${sub#./}
echo partial >"e/$sub/.fcp-4d2-0-7"
echo partial >"e/.fcp-0123456789abcdef-3-1f"
echo mine >"e/.fcp-notes"
run_fcp -T k e
check_rc 0 "a copy into a tree with leftovers"
check_grep "^fastcp: 'e/$sub/\.fcp-4d2-0-7' has the name of a temporary file of an interrupted run, but fastcp cannot tell that it made it there" "$T/err"
check_grep "^fastcp: 'e/\.fcp-0123456789abcdef-3-1f' has the name of a temporary file" "$T/err"
check_nogrep "fcp-notes" "$T/err" "a name of another shape taken for a leftover"
check_file "e/$sub/.fcp-4d2-0-7" "a leftover was removed"
check_file "e/.fcp-0123456789abcdef-3-1f" "a leftover was removed"

# Many: the first ten named, the rest counted.
for i in $(seq 1 25); do echo p >"e/.fcp-1-0-$i"; done
run_fcp -T k e
check_rc 0
check_eq "$(grep -c "has the name of a temporary file" "$T/err")" 10 "leftovers named one by one"
check_grep "^fastcp: 27 leftovers of interrupted runs found \(the first 10 named above\), none removed" \
	"$T/err"
rm -f e/.fcp-* "e/$sub"/.fcp-*

# A copy running now is no leftover: its hidden directory is locked. The
# copy (3 s at least at 100 MiB/s) is stopped (SIGSTOP) once its file is
# in its hidden directory, and goes on (SIGCONT) after the other run: that
# run sees it running whatever the machine's speed.
mkdir slow && head -c 300M /dev/zero >slow/huge
"$FASTCP" -j 1 --bwlimit 100M slow dst/slow 2>slow_err &
pid=$!
for ((i = 0; i < 3000; i++)); do
	left=$(find dst -maxdepth 1 -name '.fcp-*' -print -quit)
	[ -n "$left" ] && [ -e "$left/huge" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.02
done
kill -STOP "$pid"
[ -n "$left" ] && [ -e "$left/huge" ] || { kill -KILL "$pid"; fail "the slow copy did not get under way"; }
run_fcp k2 dst/third
kill -CONT "$pid"
wait "$pid" || fail "the slow copy failed: $(cat slow_err)"
check_tree slow dst/slow
check_rc 0
check_nogrep "unfinished copy" "$T/err" "a running copy reported as a leftover"
echo "leftovers of interrupted runs are named, and kept"
