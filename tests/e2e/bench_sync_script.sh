#!/bin/bash
# scripts/bench-sync.sh, its plumbing at a tiny scale (1,000 files), with
# rsync standing in for fastcp --sync and --mirror: the three tables are
# made, their destinations are prepared as the issue's workloads say (an
# up-to-date copy; one file changed; 10% extra files for the mirror), and
# a stand-in that does not do the work is FAILED where it must be: a
# quick check by size alone misses the changed file, a sync without
# --delete leaves the extra files. No timing is asserted.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
need_root "the script makes loop filesystems and drops the page cache"
need_cmd mkfs.xfs rsync rclone python3
script=$top_/scripts/bench-sync.sh
[ -x "$FASTCP_BENCH" ] && [ -x "$FASTCP" ] || fail "build/fastcp or build/fastcp-bench missing (run make all)"

# the source filesystem is registered for cleanup in case the script dies
t_mounts_+=("$T/b/src")
run() {
	SCALES=0.02 ROUNDS=1 BENCH_SYNC_DIR=$T/b SRC_FS_SIZE=512M sh "$script" "$T/r" >out 2>&1
}
FASTCP_SYNC_CMD='rsync -a --size-only {src}/ {dst}/' FASTCP_MIRROR_CMD='rsync -a {src}/ {dst}/' run
rc=$?
cat out
check_eq "$rc" 1 "exit status with a FAILED stand-in"
mountpoint -q "$T/b/src" && fail "the source filesystem is still mounted"
r=$T/r
for t in unchanged changed mirror; do
	check_file "$r/sync-$t-s0.02.md"
	check_file "$r/sync-$t-s0.02.json"
	check_grep '^\| 2 \| `rsync -a (--delete )?\{src\}/ \{dst\}/` \| 1/1 \| [0-9.]+ ' "$r/sync-$t-s0.02.md" \
		"rsync in the $t table"
	check_grep '^\| 3 \| `rclone (copy|sync) --links \{src\} \{dst\}` \| 1/1 \| [0-9.]+ ' "$r/sync-$t-s0.02.md" \
		"rclone in the $t table"
	check_grep 'page cache dropped before each run \(cold\).*a fresh xfs loopback filesystem' \
		"$r/sync-$t-s0.02.md" "the $t table is not cold on a fresh xfs"
done
# the unchanged tree: a quick check by size is enough, nothing to do
check_grep '^\| 1 \| `rsync -a --size-only \{src\}/ \{dst\}/` \| 1/1 \| [0-9.]+ ' "$r/sync-unchanged-s0.02.md"
check_grep "prepared by \`cp -a \{src\}/. \{dst\}\`;" "$r/sync-unchanged-s0.02.md"
check_grep '^\| 4 \| `find \{src\} .* & find \{dst\} .*; wait` \| 1/1 \| [0-9.]+ ' "$r/sync-unchanged-s0.02.md" "the floor's row"
# one changed file (same size): missed by the size-only stand-in
check_grep '^\| 1 \| .* \| 0/1 \| FAILED' "$r/sync-changed-s0.02.md" "the changed file was not checked"
check_grep "FAILED: command 1, round 1: wrong copy: 'g000/d00000/f0000000.dat': content differs" \
	"$r/sync-changed-s0.02.md"
# the mirror: 1,000 files in the prepared copy, 900 in the source
check_grep 'small-s0.02-minus10`: 900 files' "$r/sync-mirror-s0.02.md" "the mirror's source"
check_grep '^\| 1 \| `rsync -a \{src\}/ \{dst\}/` \| 0/1 \| FAILED' "$r/sync-mirror-s0.02.md" \
	"a sync without --delete passed the mirror table"
check_grep "wrong copy: .*extra entry 'f0000009.dat' in the copy" "$r/sync-mirror-s0.02.md"
python3 - "$r" <<'PY' || fail "the JSON of the tables is wrong"
import json, sys
r = sys.argv[1]
for t, n in (("unchanged", 1000), ("changed", 1000), ("mirror", 900)):
    d = json.load(open(f"{r}/sync-{t}-s0.02.json"))
    assert d["cache"] == "cold" and d["fresh_fs"] == "xfs" and d["warmup_runs"] == 1, d
    assert d["source"]["files"] == n, (t, d["source"])
    assert d["prepare"].startswith("cp -a ") and d["prepare"].endswith("/. {dst}"), d["prepare"]
    assert (d["mutate"] is not None) == (t == "changed"), d["mutate"]
    assert len(d["commands"]) == (4 if t == "unchanged" else 3), d["commands"]
PY

# the right stand-ins pass every table
FASTCP_SYNC_CMD='rsync -a {src}/ {dst}/' FASTCP_MIRROR_CMD='rsync -a --delete {src}/ {dst}/' run ||
	{ cat out "$T"/r/*.md; fail "the tables with rsync standing in for fastcp"; }
for t in unchanged changed mirror; do
	check_nogrep 'FAILED' "$r/sync-$t-s0.02.md" "the $t table"
done

# without a stand-in, a fastcp that has no --sync is refused
if ! "$FASTCP" --help 2>&1 | grep -q -- --sync; then
	run
	check_eq "$?" 2 "a fastcp without --sync"
	check_grep 'this fastcp has no --sync; set FASTCP_SYNC_CMD' out
fi
echo "bench-sync.sh: ok"
