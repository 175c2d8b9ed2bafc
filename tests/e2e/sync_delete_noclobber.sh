#!/bin/bash
# -n is cp's no-clobber, where an rsync user means a dry run: with
# --delete or --mirror it deleted for real. The combination is bad usage,
# exit 2, pointing to --dry-run, and DEST is left byte for byte as it
# was; --dry-run itself still only says what would be deleted.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

mkdir -p "$T/src/d" "$T/ref/d"
echo "source" >"$T/src/d/a"
echo "older copy" >"$T/ref/d/a"
echo "only in DEST" >"$T/ref/d/extra"
echo "only in DEST too" >"$T/ref/gone"
for opts in "-n --delete" "--no-clobber --delete" "-n --mirror" "--mirror -n" \
	"--update=none --delete" "-n --delete-excluded" "-n --delete --max-delete=0"; do
	rm -rf "$T/dst" && cp -a "$T/ref" "$T/dst"
	# shellcheck disable=SC2086
	run_fcp -T $opts "$T/src" "$T/dst"
	check_rc 2 "fastcp $opts"
	check_grep "^fastcp: -n .*cannot be combined with --delete or --mirror: use --dry-run" "$T/err"
	check_tree "$T/ref" "$T/dst"
done

# What it pointed to: --dry-run says what would go, and removes nothing.
rm -rf "$T/dst" && cp -a "$T/ref" "$T/dst"
run_fcp -T --dry-run --mirror "$T/src" "$T/dst"
check_rc 0 "--dry-run --mirror"
check_grep "delete '$T/dst/d/extra'" "$T/out"
check_tree "$T/ref" "$T/dst"
echo "-n with --delete or --mirror: refused, DEST unchanged"
