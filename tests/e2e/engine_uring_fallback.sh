#!/bin/bash
# Where io_uring cannot be used, the synchronous path takes over by itself:
# with io_uring disabled by the kernel setting (io_uring_disabled=2), the
# copy must be exact and the summary must say it ran synchronously; with
# it enabled, the same tree goes through io_uring and gives the same copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_root "io_uring_disabled can only be changed by root"
knob=/proc/sys/kernel/io_uring_disabled
[ -w "$knob" ] || skip "this kernel has no $knob"
old=$(cat "$knob")
trap 'rc=$?; echo "$old" > "$knob"; (exit $rc); t_cleanup_' EXIT

mkdir -p s/a s/b
for i in $(seq 1 200); do head -c $((i * 37)) /dev/urandom > "s/a/f$i"; done
for i in $(seq 1 50); do echo "$i" > "s/b/g$i"; done

echo 2 > "$knob"
"$FASTCP" --version --verbose | grep -q "small files: synchronous" ||
	fail "--version --verbose does not say io_uring is unusable"
run_fcp -v -j 4 s d1
echo "$old" > "$knob"
check_rc 0 "fastcp with io_uring disabled"
check_grep "(4 threads, sync)" "$T/err"
check_tree s d1

run_fcp -v -j 4 s d2
check_rc 0 "fastcp with io_uring enabled"
if "$FASTCP" --version --verbose | grep -q "small files: io_uring"; then
	check_grep "(4 threads, io_uring)" "$T/err"
fi
check_tree s d2
check_tree d1 d2
echo "both paths exact and identical"
