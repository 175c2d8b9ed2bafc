#!/bin/bash
# The pre-scan's totals (the status line, the "totals" event of --events)
# count what the copy copies, also with filters: --exclude (a file, a
# directory never entered), --max-size, --gitignore, --exclude-caches and
# -x (a mount point copied empty) leave the same entries out of the totals
# as out of the copy. A slow second operand (faultfs delays its lookups,
# opens and reads) keeps the copy going until the totals are told.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd python3

mkdir -p s/d s/build/sub s/cache s/mnt slowsrc dst
printf 'k\n' >s/keep
printf 'k2\n' >s/d/keep2
printf 'o\n' >s/d/x.o                      # --exclude '*.o'
for i in 1 2 3 4 5; do printf 'b\n' >"s/build/sub/b$i"; done  # --exclude build/
head -c 200K /dev/urandom >s/big            # --max-size 100K
printf 'ign*\n' >s/.gitignore
printf 'i\n' >s/ignored1                    # --gitignore
printf 'i\n' >s/d/ignored2
printf 'Signature: 8a477f597d28d172789f06886806bc55\n' >s/cache/CACHEDIR.TAG
printf 'c\n' >s/cache/c                     # --exclude-caches
ln -s keep s/link
t_mount_fs tmpfs 4m "$T/s/mnt"              # -x: copied empty
mkdir -p s/mnt/inner
printf 'g\n' >s/mnt/inner/g
printf 'slow\n' >slowsrc/slowfile
faultfs_mount slowsrc slow --match='slow*' --delay-ms=400

run_fcp --events "$T/ev" --exclude '*.o' --exclude build/ --max-size 100K --gitignore \
	--exclude-caches -x s slow/slowfile dst
check_rc 0 "filtered copy"
check_file dst/s/keep
[ -e dst/s/d/x.o ] && fail "an excluded file was copied"
[ -e dst/s/mnt/inner ] && fail "-x copied what is mounted"
find dst -mindepth 1 -type d | wc -l >"$T/dirs"
find dst -mindepth 1 ! -type d | wc -l >"$T/nondirs"
find dst -type f -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }' >"$T/bytes"
python3 - "$T/ev" "$(cat "$T/dirs")" "$(cat "$T/nondirs")" "$(cat "$T/bytes")" <<'PY' ||
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], 'rb')]
dirs, nondirs, nbytes = map(int, sys.argv[2:5])
tot = [e for e in ev if e['event'] == 'totals']
assert len(tot) == 1, "no totals event (the copy ended before the pre-scan was told?)"
t = tot[0]
done = [e for e in ev if e['event'] == 'done']
print("totals", t['files'], t['bytes'], t['directories'], "copied", nondirs, nbytes, dirs)
assert t['files'] == nondirs == len([e for e in done if e['kind'] != 'directory']), \
    ("files total", t['files'], "copied", nondirs)
assert t['directories'] == dirs, ("directories total", t['directories'], "copied", dirs)
assert t['bytes'] == nbytes, ("bytes total", t['bytes'], "copied", nbytes)
s = ev[-1]['summary']
# x.o, build (a directory once), big, ignored1, ignored2, cache
assert s['excluded'] == 6, ("excluded", s['excluded'])
PY
	fail "the totals do not match what was copied"
echo "totals with filters and -x equal what was copied"
