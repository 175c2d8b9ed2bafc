#!/bin/bash
# A manifest that cannot be made for want of space is refused (exit 2,
# nothing copied) with the cause said: "No space left on device", never
# SQLite's "cannot rollback - no transaction is active" from the ROLLBACK
# after a transaction SQLite had ended itself. The refused run changes
# nothing: the empty file it made is removed and its directory keeps its
# times. A manifest that exists already is refused the same way when the
# disk has filled up, its records kept.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd sqlite3
need_built HAVE_SQLITE3 "built without SQLite"
cd "$T" || fail "cd $T"

mkdir -p src back/photos back2/photos
echo photo >src/a.jpg
touch -d @1600000000.123456789 back/photos
faultfs_mount back full --enospc-after=0
# The existing manifest is made through the mount it is used through
# later (it records that DEST), with the fault off until "armed" exists.
faultfs_mount back2 full2 --enospc-after=0 --armed="$T/armed"
run_fcp --sync --manifest full2/photos/m.db -T src full2/photos
check_rc 0 "a sync with a manifest, space to spare"
rm back2/photos/a.jpg
touch "$T/armed"

run_fcp --sync --manifest full/photos/m.db -T src full/photos
check_rc 2 "a new manifest on a full disk"
check_grep "^fastcp: cannot use manifest 'full/photos/m.db': No space left on device; not used, nothing done$" "$T/err"
check_nogrep "no transaction" "$T/err"
check_eq "$(ls -A back/photos)" "" "nothing left in DEST"
check_eq "$(stat -c %Y back/photos)" 1600000000 "DEST's mtime as it was"
check_eq "$(stat -c %y back/photos | sed 's/.*\.\([0-9]*\) .*/\1/')" 123456789 "DEST's mtime, nanoseconds"

run_fcp --sync --manifest full2/photos/m.db -T src full2/photos
check_rc 2 "an existing manifest on a full disk"
check_grep "^fastcp: cannot use manifest 'full2/photos/m.db': No space left on device; not used, nothing done$" "$T/err"
check_nogrep "no transaction" "$T/err"
check_absent back2/photos/a.jpg "nothing copied"
check_file back2/photos/m.db "the existing manifest kept"
check_eq "$(sqlite3 back2/photos/m.db "select count(*) from files where side = 0")" 1 \
	"the existing manifest's record kept"
echo "PASS"
