#!/bin/bash
# A source that disappears during the copy: half of a big tree is deleted
# while fastcp (one thread) walks it. Whatever the timing, fastcp must end
# (no hang, no crash), exit 0 or 1, name each vanished item in a one-line
# error, leave no temporary file, and every file it did copy must be whole.
# The copy is slowed to a known rate, so that the deletion comes while it
# runs, whatever the machine's speed; one that was not reached fails.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

for d in $(seq -w 0 39); do
	mkdir -p "src/d$d"
	for i in $(seq 1 100); do printf 'dir %s file %d\n' "$d" "$i" >"src/d$d/f$i"; done
done

# At 2000 I/O operations a second (--iolimit: one per file at least, six
# through io_uring's batches) the copy of the 4000 files lasts 2 s at least
# on any machine (12 s as they are copied now): it cannot be over before the
# deletion, which takes a few milliseconds, reaches it.
timeout -k 5 60 "$FASTCP" --threads 1 --iolimit 2000 src dst >"$T/out" 2>"$T/err" &
pid=$!
# The copy has begun once its directory exists (under a .fcp-* name
# until it is finished).
for _ in $(seq 1 500); do
	[ -d dst ] || [ -n "$(find . -maxdepth 1 -name '.fcp-*' -print -quit)" ] && break
	sleep 0.01
done
for d in $(seq -w 20 39); do rm -rf "src/d$d"; done
wait $pid
RC=$?
echo "fastcp exit $RC"
head -20 "$T/err"

[ "$RC" = 0 ] || [ "$RC" = 1 ] || fail "fastcp exit $RC with a vanishing source"
# A copy with failed items gets its name without them, and says so.
if [ "$RC" = 1 ]; then
	check_dir dst "a root copy with failed items"
	check_eq "$(find . -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies"
	check_grep "the copy of 'src' has its name 'dst' without the [0-9]+ items? that failed" "$T/err"
fi
check_no_temp dst
# Every copied file is whole (builtins only: thousands of files).
while IFS= read -r -d '' f; do
	name=${f#dst/d}
	line=
	IFS= read -r line <"$f"
	[ "$line" = "dir ${name%%/*} file ${name#*/f}" ] || fail "copied file $f is not whole: '$line'"
done < <(find dst -type f -print0)
# What was never deleted is all there.
for d in $(seq -w 0 19); do
	[ "$(find "dst/d$d" -type f | wc -l)" = 100 ] || fail "dst/d$d incomplete"
done
# Errors and notes are one line each, name a path, and say what happened.
if grep -qv '^fastcp: ' "$T/err"; then
	fail "stderr has lines that are not 'fastcp: ...' messages"
fi
copied=$(find dst -type f | wc -l)
[ "$RC" = 1 ] || [ "$copied" -lt 4000 ] ||
	fail "all 4000 files copied, exit 0: the deletion did not reach the copy"
if [ "$RC" = 1 ]; then
	check_grep "No such file or directory" "$T/err"
fi
echo "vanishing source handled ($copied files copied, exit $RC)"
