#!/bin/bash
# Two SOURCEs of one name into one DEST (s1/photos s2/photos d/), where a
# killed copy of s1/photos left its hidden copy and s2/photos has taken
# the name since: the same-named command copies s1/photos into the photos
# that is there, and then removes that hidden copy, which holds nothing of
# the source the name lacks. Exit 0 leaves no .fcp-* in DEST, and DEST
# holds both sources' files. The first copy is held where it verifies a
# file of its hidden copy (faultfs under DEST) and killed there: no sleep.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p s1/photos/2023 s2/photos/2024 dback
for i in $(seq 1 30); do head -c $((i * 1499)) /dev/urandom >"s1/photos/2023/a$i.jpg"; done
head -c 5000 /dev/urandom >s1/photos/2023/hold.jpg
for i in $(seq 1 5); do head -c $((i * 777)) /dev/urandom >"s2/photos/2024/b$i.jpg"; done
echo s1 >s1/photos/notes.txt
s1sum=$(t_sums s1/photos) s2sum=$(t_sums s2/photos)
touch hold
faultfs_mount dback d --match=hold.jpg --block-at=0 --hold="$T/hold"

"$FASTCP" --verify s1/photos d/ >out 2>err &
pid=$!
faultfs_held "read of /\.fcp-[0-9a-f-]+/photos/2023/hold.jpg|read of /\.fcp-[0-9a-f-]+/2023/hold.jpg"
kill -KILL "$pid"
rm hold
{ wait "$pid"; } 2>/dev/null
check_eq "$?" 137 "fastcp killed in its verify"
stale=$(ls -a d | grep '^\.fcp-')
[ -n "$stale" ] || fail "the killed copy left no hidden copy: the test no longer reaches its state"
getfattr --absolute-names -n user.fastcp.root "d/$stale" >/dev/null 2>&1 ||
	skip "DEST keeps no user xattrs here: the hidden copy is not marked"

run_fcp --sync s2/photos d/
check_rc 0
check_dir d/photos
check_dir "d/$stale" "the hidden copy of another source kept"

run_fcp --sync s1/photos s2/photos d/
check_rc 0
check_no_temp d
check_grep "removed '.*$stale', the unfinished copy of 's1/photos'" "$T/err"
# Both sources, merged: s1's files and s2's, every byte.
check_eq "$(cd d/photos && sha256sum notes.txt 2023/* | sort -k2)" \
	"$(cd s1/photos && sha256sum notes.txt 2023/* | sort -k2)" "s1's files in d/photos"
check_eq "$(cd d/photos && sha256sum 2024/* | sort -k2)" \
	"$(cd s2/photos && sha256sum 2024/* | sort -k2)" "s2's files in d/photos"
check_eq "$(t_sums s1/photos)" "$s1sum" "source 1 unchanged"
check_eq "$(t_sums s2/photos)" "$s2sum" "source 2 unchanged"

# Again: nothing left to do, nothing removed.
run_fcp --sync s1/photos s2/photos d/
check_rc 0
check_nogrep removed "$T/err"
echo PASS
