#!/bin/bash
# --dedup=off|reflink|hardlink: files of identical content in the copied
# set are written once. On loopback XFS (reflink=1) with the `dupes`
# workload (scaled down) plus a few constructed cases: the space the copy
# takes is close to the unique bytes and well below a plain copy's; the
# copy equals the source (reflink: content and metadata; hardlink: content,
# the linked names share the first copy's metadata); files that differ in
# one byte at the same size are not merged; source hard links stay; empty
# files are left alone; a re-run with --sync changes nothing; --dry-run
# says "clone"/"link"; a destination that cannot clone (tmpfs) gets plain
# copies and one note; --verify reads the clones back; an unknown word is
# bad usage (exit 2).
# A hash collision is faked by a test hook (FCP_TEST_DEDUP_COLLIDE: every
# file of one size has the same hash): the byte comparison keeps files
# apart; tests/unit/dedup.c proves that comparison on its own.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_root "loopback filesystems need root"
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH (run make all)"

run_fcp --dedup=foo src dst
check_rc 2 "--dedup=foo"
check_grep "invalid --dedup value 'foo'" "$T/err" "the bad word is not named"

# The source lives off the XFS filesystems: nothing is shared with it.
S="$T/src"
"$FASTCP_BENCH" gen dupes "$S" --scale 0.1 --seed 7 >/dev/null || fail "gen dupes"
mkdir "$S/x" "$S/y" "$S/h" "$S/e"
head -c 300000 /dev/urandom >"$S/x/orig"
cp "$S/x/orig" "$S/y/copy1"
touch -d @1234567890.5 "$S/y/copy1" # other metadata than orig
chmod 600 "$S/y/copy1"
head -c 200000 /dev/urandom >"$S/x/d1"
cp "$S/x/d1" "$S/y/d2"
printf 'Z' | dd of="$S/y/d2" bs=1 seek=199999 conv=notrunc status=none
cmp -s "$S/x/d1" "$S/y/d2" && fail "d1 and d2 should differ"
cp "$S/x/orig" "$S/h/h1" # hard-linked in the source, and a duplicate too
ln "$S/h/h1" "$S/h/h2"
: >"$S/e/empty1"
: >"$S/e/empty2"

# The unique bytes: one of each content.
unique=$(find "$S" -type f -size +0 -printf '%i %s %p\n' | sort -u -k1,1 |
	while read -r _ sz p; do echo "$(md5sum <"$p" | cut -c1-32) $sz"; done |
	sort -u -k1,1 | awk '{s += $2} END {print s}')
total=$(find "$S" -type f -printf '%i %s\n' | sort -u -k1,1 | awk '{s += $2} END {print s}')
note "source: $total bytes in files, $unique unique"

used() { sync; df -B1 --output=used "$1" | tail -1; }

t_mount_fs xfs 300M "$T/plain"
t_mount_fs xfs 300M "$T/dd"
b0=$(used "$T/plain")
run_fcp "$S" "$T/plain/c"
check_rc 0 "plain copy"
plain=$(( $(used "$T/plain") - b0 ))

b0=$(used "$T/dd")
run_fcp -v --dedup=reflink "$S" "$T/dd/c"
check_rc 0 "--dedup=reflink"
ddused=$(( $(used "$T/dd") - b0 ))
note "plain copy took $plain bytes, --dedup=reflink $ddused"
check_tree "$S" "$T/dd/c"
check_no_temp "$T/dd/c"
# Close to the unique bytes (inodes, directories and the log's share on
# top), and well below the plain copy.
[ "$ddused" -le $(( unique + unique / 10 + 2 * 1024 * 1024 )) ] ||
	fail "--dedup=reflink used $ddused bytes for $unique unique bytes"
[ "$ddused" -le $(( plain * 85 / 100 )) ] ||
	fail "--dedup=reflink used $ddused bytes, a plain copy $plain"
"$TREECMP" --shared "$T/dd/c/y/copy1" || fail "the duplicate y/copy1 was not cloned"
"$TREECMP" --shared "$T/dd/c/x/orig" || fail "x/orig shares no extent with its duplicate"
! "$TREECMP" --shared "$T/dd/c/y/d2" || fail "d2 (one byte differs) was merged"
! "$TREECMP" --shared "$T/dd/c/x/d1" || fail "d1 (one byte differs) was merged"
check_eq "$(stat -c %i "$T/dd/c/h/h1")" "$(stat -c %i "$T/dd/c/h/h2")" "source hard links"
check_eq "$(stat -c %h "$T/dd/c/y/copy1")" 1 "a reflinked duplicate is its own inode"
check_grep "deduplicated [0-9]+ files? .*saved" "$T/err" "no dedup line in the summary"
n=$(sed -nE 's/.*deduplicated ([0-9]+) file.*/\1/p' "$T/err")
[ "${n:-0}" -ge 90 ] || fail "only ${n:-0} files deduplicated (the workload has ~100)"
check_eq "$(stat -c %s "$S/x/orig")" 300000

# With --verify: the clones are read back too, and said to be clones.
run_fcp -v --verify --dedup=reflink "$S" "$T/dd/v"
check_rc 0 "--verify --dedup=reflink"
check_tree "$S" "$T/dd/v"
check_grep "files? cloned, verified by re-reading shared extents" "$T/err"
"$TREECMP" --shared "$T/dd/v/y/copy1" || fail "--verify: the duplicate y/copy1 was not cloned"
rm -rf "$T/dd/v"

# A re-run with --sync: nothing copied, nothing changed.
run_fcp -v -T --sync --dedup=reflink "$S" "$T/dd/c"
check_rc 0 "--sync re-run"
check_grep "copied 0 files" "$T/err" "the --sync re-run copied files"
check_grep " 0 with metadata updated" "$T/err" "the --sync re-run updated metadata"
check_tree "$S" "$T/dd/c"

# --dry-run says which copies would be clones.
run_fcp --dry-run --dedup=reflink "$S" "$T/dd/dry"
check_rc 0 "--dry-run"
check_grep "^clone '$T/dd/dry/(y/copy1|x/orig)'" "$T/out" "--dry-run does not say clone"
check_nogrep "^clone '$T/dd/dry/(y/d2|x/d1|e/empty.)'" "$T/out"
check_absent "$T/dd/dry"

# hardlink: duplicates are names of the first copy's inode.
run_fcp -v --dedup=hardlink "$S" "$T/dd/l"
check_rc 0 "--dedup=hardlink"
check_tree "$S" "$T/dd/l" --content-only
check_no_temp "$T/dd/l"
check_eq "$(stat -c %i "$T/dd/l/x/orig")" "$(stat -c %i "$T/dd/l/y/copy1")" "hardlink: orig and copy1"
check_eq "$(stat -c %i "$T/dd/l/x/orig")" "$(stat -c %i "$T/dd/l/h/h1")" "hardlink: orig and h1"
check_eq "$(stat -c %i "$T/dd/l/h/h1")" "$(stat -c %i "$T/dd/l/h/h2")" "hardlink: h1 and h2"
[ "$(stat -c %i "$T/dd/l/x/d1")" != "$(stat -c %i "$T/dd/l/y/d2")" ] || fail "d1 and d2 linked"
[ "$(stat -c %i "$T/dd/l/e/empty1")" != "$(stat -c %i "$T/dd/l/e/empty2")" ] ||
	fail "empty files linked"
check_grep "deduplicated [0-9]+ files? as hard links" "$T/err" "hardlink: no summary line"
check_grep "metadata" "$T/err" "hardlink: the metadata exception is not said"
# The names have the metadata of the first copy, which may be any of them
# (the documented exception): mode and mtime of one of their sources.
m=$(stat -c '%a %y' "$T/dd/l/x/orig")
ok=
for f in x/orig y/copy1 h/h1; do
	[ "$(stat -c '%a %y' "$S/$f")" = "$m" ] && ok=$f
done
[ -n "$ok" ] || fail "hardlink: the shared inode ($m) has the metadata of none of its sources"
ino=$(stat -c %i "$T/dd/l/y/copy1")
run_fcp -v -T --sync --dedup=hardlink "$S" "$T/dd/l"
check_rc 0 "--sync re-run, hardlink"
check_grep "copied 0 files" "$T/err" "the hardlink --sync re-run copied files"
check_grep " 0 with metadata updated" "$T/err" "the hardlink --sync re-run updated metadata"
check_eq "$(stat -c %i "$T/dd/l/y/copy1")" "$ino" "the re-run replaced copy1"
# The shared inode has the metadata (and mtime) of one of its sources: a
# chmod of that source reaches it, and the next re-run is quiet again.
first=
for f in x/orig y/copy1 h/h1; do
	[ "$(stat -c %y "$S/$f")" = "$(stat -c %y "$T/dd/l/$f")" ] && first=$f
done
[ -n "$first" ] || fail "no source has the mtime of the shared inode"
chmod 640 "$S/$first"
run_fcp -v -T --sync --dedup=hardlink "$S" "$T/dd/l"
check_rc 0
check_eq "$(stat -c %a "$T/dd/l/$first")" 640 "the chmod of $first did not reach its copy"
run_fcp -v -T --sync --dedup=hardlink "$S" "$T/dd/l"
check_grep " 0 with metadata updated" "$T/err" "the metadata goes back and forth"
run_fcp --dry-run --dedup=hardlink "$S" "$T/dd/dryl"
check_grep "^link '$T/dd/dryl/(y/copy1|x/orig)'" "$T/out" "--dry-run does not say link"

# Every file of one size made to collide in the hash (a test hook): only
# the byte comparison keeps d1 and d2 apart, and the copy stays exact.
FCP_TEST_DEDUP_COLLIDE=1 run_fcp --dedup=reflink "$S" "$T/dd/k"
check_rc 0 "--dedup=reflink with colliding hashes"
check_tree "$S" "$T/dd/k"
! "$TREECMP" --shared "$T/dd/k/y/d2" || fail "colliding hashes: d2 was merged with d1"
! "$TREECMP" --shared "$T/dd/k/x/d1" || fail "colliding hashes: d1 was merged with d2"
"$TREECMP" --shared "$T/dd/k/y/copy1" || fail "colliding hashes: copy1 was not cloned"
FCP_TEST_DEDUP_COLLIDE=1 run_fcp --dedup=hardlink "$S" "$T/dd/kl"
check_rc 0 "--dedup=hardlink with colliding hashes"
check_tree "$S" "$T/dd/kl" --content-only
[ "$(stat -c %i "$T/dd/kl/x/d1")" != "$(stat -c %i "$T/dd/kl/y/d2")" ] ||
	fail "colliding hashes: d1 and d2 linked"

# A destination that cannot clone: plain copies, one note.
t_mount_fs tmpfs 64M "$T/tmpfs"
run_fcp --dedup=reflink "$S" "$T/tmpfs/c"
check_rc 0 "--dedup=reflink on tmpfs"
check_tree "$S" "$T/tmpfs/c"
check_eq "$(grep -c "cannot clone" "$T/err")" 1 "notes of the fallback"
check_grep "cannot clone; .*\(--dedup=hardlink writes each content once there" "$T/err" \
	"the note names the way that works there"

# The source was not changed.
check_eq "$(stat -c %h "$S/x/orig")" 1 "source orig"
check_eq "$(stat -c %h "$S/h/h1")" 2 "source h1"
exit 0
