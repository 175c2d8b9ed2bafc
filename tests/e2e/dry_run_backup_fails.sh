#!/bin/bash
# -b: where the run cannot make a backup, its dry run said "update" (or
# "backup" under --mirror) and exited 0, while the run failed the item
# ("cannot back up ...", exit 1). The dry run now meets the same failure:
#   - a directory at the backup name (NAME~) of a file to replace;
#   - the same for an extra that --mirror -b renames instead of deleting;
#   - a name of 255 bytes, whose backup name is too long.
# Each: the dry run exits 1 with the run's line and changes nothing.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

long=$(printf 'a%.0s' $(seq 255))
case_() { # NAME SETUP ARGS...
	local name=$1 setup=$2
	shift 2
	rm -rf src dst
	mkdir -p src dst
	eval "$setup"
	snap_before=$(find dst -printf '%p %y %s\n' | sort)
	run_fcp --dry-run "$@" -T src dst
	check_rc 1 "$name: the dry run"
	check_grep "cannot back up 'dst/" "$T/err" "$name: the dry run's failure"
	check_eq "$(find dst -printf '%p %y %s\n' | sort)" "$snap_before" "$name: the dry run changed DEST"
	dry_err=$(grep "cannot back up" "$T/err")
	run_fcp "$@" -T src dst
	check_rc 1 "$name: the run"
	check_eq "$(grep "cannot back up" "$T/err")" "$dry_err" "$name: the run's line and the dry run's"
}
case_ "a directory at NAME~" 'echo new >src/f; echo old >dst/f; mkdir dst/f~' -b
case_ "--mirror -b, a directory at an extra's NAME~" 'echo x >dst/h; mkdir dst/h~' --mirror -b
case_ "a name of 255 bytes" 'echo new >"src/$long"; echo old >"dst/$long"' -b
echo PASS
