#!/bin/bash
# A --move killed after its copy got its name, while the source was being
# removed (here: SIGKILL at the 20th unlinkat, injected by strace, so the
# point is the same every run), is finished by the same command: the rest
# goes into DEST itself, not into DEST/SOURCE (cp's placement once DEST
# exists), and the tree ends whole in one place. The copy carries a marker
# with its source's identity until the source is gone; another source
# moved to that DEST afterwards is placed as cp places it. Every source
# byte is checked to survive in the source or in DEST. Other kill points:
# the 1st, 7th and 45th unlinkat, and during the copy (--bwlimit, once
# the large file has begun in the hidden copy).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd strace
need_cmd getfattr
t_mount_fs tmpfs 100m "$T/mnt"

mkdir -p ref/d1/sub ref/d2
for i in $(seq 1 40); do head -c $((i * 311)) /dev/urandom >"ref/d1/f$i"; done
for i in $(seq 1 10); do head -c $((i * 5000)) /dev/urandom >"ref/d1/sub/g$i"; done
for i in $(seq 1 10); do head -c $((i * 777)) /dev/urandom >"ref/d2/h$i"; done
cp -a ref src

# Every file of ref is in src or in DEST/REL, whole; none anywhere else.
check_nothing_lost() {
	local f rel
	while IFS= read -r -d '' f; do
		rel=${f#ref/}
		[ -e "src/$rel" ] || [ -e "$1/$rel" ] || fail "$rel is lost"
		[ ! -e "src/$rel" ] || cmp -s "$f" "src/$rel" || fail "source $rel altered"
		[ ! -e "$1/$rel" ] || cmp -s "$f" "$1/$rel" || fail "$1/$rel differs"
	done < <(find ref -type f -print0)
}

strace -f -qq -o trace -e trace=unlinkat -e inject=unlinkat:signal=KILL:when=20 \
	"$FASTCP" --move src "$T/mnt/dest" 2>err1
grep -q 'killed by SIGKILL' trace || fail "the move was not killed at its 20th unlinkat"
check_dir "$T/mnt/dest" "the copy did not get its name before the kill"
check_dir src "the kill came after the whole source was gone"
check_nothing_lost "$T/mnt/dest"
marked=$(getfattr -n user.fastcp.move "$T/mnt/dest" 2>/dev/null | grep -c fastcp)

run_fcp --move src "$T/mnt/dest"
check_rc 0 "the same command again"
check_absent "$T/mnt/dest/src" "the rest of the move put into DEST/SOURCE"
check_absent src "the source after the move was finished"
check_eq "$marked" 1 "a move marker on the copy while its source was not all removed"
check_tree ref "$T/mnt/dest" --no-times
check_nothing_lost "$T/mnt/dest"
check_no_temp "$T/mnt"
getfattr -n user.fastcp.move "$T/mnt/dest" >/dev/null 2>&1 &&
	fail "the move marker stays on a finished move"

# Other points of the removal, and a kill during the copy (the copy is
# still hidden then: the same command takes it up).
for n in 1 7 45; do
	rm -rf src "$T/mnt/dest" && cp -a ref src
	strace -f -qq -o trace -e trace=unlinkat -e inject=unlinkat:signal=KILL:when=$n \
		"$FASTCP" --move src "$T/mnt/dest" 2>/dev/null
	grep -q 'killed by SIGKILL' trace || fail "the move was not killed at unlinkat $n"
	check_nothing_lost "$T/mnt/dest"
	run_fcp --move src "$T/mnt/dest"
	check_rc 0 "the same command after a kill at unlinkat $n"
	check_absent "$T/mnt/dest/src" "the rest put into DEST/SOURCE (kill at unlinkat $n)"
	check_absent src
	check_tree ref "$T/mnt/dest" --no-times
done
rm -rf src "$T/mnt/dest" && cp -a ref src
head -c 2000000 /dev/urandom >src/zbig && cp src/zbig ref/zbig
"$FASTCP" --bwlimit 256K --move src "$T/mnt/dest" 2>/dev/null &
pid=$!
for ((i = 0; i < 400; i++)); do
	h=$(find "$T/mnt" -maxdepth 1 -name '.fcp-*' -type d -print -quit)
	[ -n "$h" ] && [ -s "$h/zbig" ] && break
	sleep 0.025
done
[ "$i" -lt 400 ] || fail "the move's copy never began its large file"
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
check_absent "$T/mnt/dest" "a killed move's unfinished copy under its name"
check_nothing_lost "$T/mnt/dest"
run_fcp --move src "$T/mnt/dest"
check_rc 0 "the same command after a kill during the copy"
check_absent src
check_tree ref "$T/mnt/dest" --no-times
check_eq "$(find "$T/mnt" -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies"

# Another source moved to an existing DEST goes into it, as cp places it.
mkdir other && echo o >other/o
run_fcp --move other "$T/mnt/dest"
check_rc 0
check_eq "$(cat "$T/mnt/dest/other/o")" o "another source, into DEST/SOURCE"
echo "a killed move is finished by the same command, in one place"
