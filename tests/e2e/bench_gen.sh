#!/bin/bash
# fastcp-bench gen: deterministic trees, the promised shape of every kind,
# and clear errors for bad input.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
[ -x "$FASTCP_BENCH" ] || fail "fastcp-bench missing: $FASTCP_BENCH (run make all)"
B=$FASTCP_BENCH

# digest of a tree: names, types, sizes, contents and link targets
digest() {
	(cd "$1" && find . -printf '%p %y %s %l\n' | sort && \
	 find . -type f -print0 | sort -z | xargs -0 -r md5sum) | md5sum
}

check "$B" gen small s1 --scale 0.004 --seed 5
check "$B" gen small s2 --scale 0.004 --seed 5
check "$B" gen small s3 --scale 0.004 --seed 6
check_eq "$(digest s1)" "$(digest s2)" "same seed gave different trees"
[ "$(digest s1)" != "$(digest s3)" ] || fail "different seeds gave the same tree"
check_eq "$(find s1 -type f | wc -l)" 200 "small: file count at scale 0.004"
# no two files equal in a kind without duplicates
check_eq "$(find s1 -type f -exec md5sum {} + | awk '{print $1}' | sort | uniq -d | wc -l)" 0 \
	"small: duplicate contents"
# incompressible: gzip cannot shrink the content
orig=$(cat $(find s1 -type f | sort) | wc -c)
packed=$(cat $(find s1 -type f | sort) | gzip -1 | wc -c)
[ "$packed" -ge $((orig * 99 / 100)) ] || fail "content compresses: $orig -> $packed"

check "$B" gen folders f --scale 0.01
check_eq "$(find f -mindepth 1 -maxdepth 1 -type d | wc -l)" 2 "folders: directories"
check_eq "$(find f -type f -size 512000c | wc -l)" 60 "folders: 30 x 500 KiB per folder"

check "$B" gen large l --scale 0.001
check_eq "$(find l -type f | wc -l)" 4 "large: four files"
check_eq "$(find l -type f -printf '%s\n' | sort -u)" 536871 "large: size scaled"

check "$B" gen mixed m --scale 0.004
check_dir m/small; check_dir m/large
sb=$(find m/small -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
lb=$(find m/large -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
[ "$lb" -gt $((sb * 4)) ] || fail "mixed: large files should hold most bytes ($sb / $lb)"

check "$B" gen dupes d --scale 0.02
n=$(find d -type f | wc -l)
dup=$(find d -type f -exec md5sum {} + | awk '{print $1}' | sort | uniq -c | awk '$1 > 1 {s += $1 - 1} END {print s + 0}')
[ "$dup" -ge $((n / 4)) ] || fail "dupes: only $dup of $n files are copies"

check "$B" gen million mi --scale 0.001
check_eq "$(find mi -type f | wc -l)" 1000 "million: file count"
check_eq "$(find mi -type f -size +100c | wc -l)" 0 "million: files over 100 bytes"

check "$B" gen links k --seed 3
for l in file_rel_in file_abs_in dir_rel_in dir_abs_in file_rel_out file_abs_out \
	 dir_rel_out dir_abs_out dangling_rel dangling_abs loop_a loop_b self_loop; do
	check_link "k/links/$l"
done
[ -f k/links/file_rel_in ] && [ -f k/links/file_abs_out ] || fail "links: file targets"
[ -d k/links/dir_rel_in ] && [ -d k/links/dir_abs_out ] || fail "links: dir targets"
[ ! -e k/links/dangling_rel ] || fail "links: dangling link resolves"
case $(readlink k/links/file_abs_in) in /*) ;; *) fail "links: absolute link is relative" ;; esac
case $(readlink -f k/links/file_rel_out) in "$T/k.outside/"*) ;; *) fail "links: outside target" ;; esac
check_eq "$(stat -c %h k/hard/a/original)" 3 "links: hard link count"
check_eq "$(stat -c %i k/hard/a/original)" "$(stat -c %i k/hard/b/second_name)" "links: hard link across dirs"
for s in leading_hole trailing_hole both_ends all_hole; do
	[ $(( $(stat -c %b k/sparse/$s) * 512 )) -lt "$(stat -c %s k/sparse/$s)" ] || fail "links: $s not sparse"
done
[ -p k/special/fifo ] || fail "links: no fifo"
if command -v getfattr >/dev/null; then
	getfattr -d k/xattr/with_xattrs 2>/dev/null | grep -q 'user.fastcp.bench="deterministic"' ||
		fail "links: xattr missing"
fi
# the links tree is deterministic at the same path
d1=$(digest k); rm -rf k k.outside
check "$B" gen links k --seed 3
check_eq "$(digest k)" "$d1" "links: not deterministic"

# bad input: clear message, non-zero exit, nothing created
"$B" gen nosuchkind x >out 2>&1; rc=$?
check_eq "$rc" 2 "unknown kind exit status"; check_grep "unknown kind 'nosuchkind'" out
check_absent x
"$B" gen small >out 2>&1; check_eq "$?" 2 "missing DIR exit status"
"$B" gen small s1 --scale 0.001 >out 2>&1; check_eq "$?" 1 "non-empty DIR exit status"
check_grep "not empty" out
"$B" gen small z --scale -1 >out 2>&1; check_eq "$?" 2 "bad scale exit status"
"$B" gen small no/such/parent >out 2>&1; [ $? -ne 0 ] || fail "missing parent accepted"
check_grep "cannot create directory 'no/such/parent'" out
"$B" gen small j --scale 0.001 --json j.json >/dev/null || fail "gen --json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["files"] == 50' j.json ||
	fail "gen --json does not parse or is wrong"
echo "gen: ok"
