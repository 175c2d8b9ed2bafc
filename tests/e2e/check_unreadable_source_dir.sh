#!/bin/bash
# A source directory whose entries cannot be listed (EIO from readdir):
# --check must not call what DEST holds in its copy "extra in DEST" (it
# may be the source's too, only unread); it says the read error and that
# those names were not checked, and fails. --mirror deletes nothing there.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
cd "$T" || fail "cd $T"

mkdir -p src/t/bad src/t/ok dst
echo 1 >src/t/bad/f
echo 2 >src/t/ok/g
run_fcp src/t dst
check_rc 0 "the first copy"
echo extra >dst/t/bad/zz
echo extra >dst/t/ok/zz
touch -r src/t/bad dst/t/bad
faultfs_mount src fsrc --match=bad --readdir-eio

for j in "" "-j 1"; do
	# shellcheck disable=SC2086
	run_fcp --check $j fsrc/t dst
	check_rc 1 "--check with a source directory it cannot read ($j)"
	check_grep "cannot read directory 'fsrc/t/bad'.*Input/output error" "$T/err"
	check_nogrep "extra in DEST: 'dst/t/bad/" "$T/out" \
		"--check called a name under an unread source directory an extra ($j)"
	check_grep "not checked: what 'dst/t/bad' holds.*its source directory could not be read" "$T/err" \
		"--check did not say what it could not check ($j)"
	# What it could check it still says.
	check_grep "^extra in DEST: 'dst/t/ok/zz'" "$T/out"
done

run_fcp --mirror fsrc/t dst
check_rc 1 "--mirror with a source directory it cannot read"
check cmp dst/t/bad/f src/t/bad/f
check cmp dst/t/bad/zz <(echo extra)
check_absent dst/t/ok/zz "--mirror did not delete an extra of a directory it read"
echo "PASS"
