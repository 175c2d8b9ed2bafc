#!/bin/bash
# --move: within one filesystem a rename (the directory keeps its inode);
# across filesystems (ext4 or whatever holds $T, to tmpfs) a copy, then
# the source removed; bad input refused; and a bounded SIGKILL loop in
# which every file always exists in the source or the destination (or
# both, equal), never lost, and the same command again finishes the move.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd cmp
t_mount_fs tmpfs 200m "$T/mnt"
ROUNDS=${KILL_ROUNDS:-20}

# The reference tree: small files, a few of several MiB, a symlink, an
# empty directory, odd modes.
R=$T/ref
for d in $(seq 1 6); do
	mkdir -p "$R/d$d/sub" "$R/d$d/empty"
	for i in $(seq 1 40); do head -c $(((i * 997 + d * 131) % 20000)) /dev/urandom >"$R/d$d/f$i"; done
	for i in $(seq 1 6); do head -c $((i * 40000)) /dev/urandom >"$R/d$d/sub/g$i"; done
	ln -s f1 "$R/d$d/link"
	chmod 750 "$R/d$d/sub"
done
for i in 1 2 3; do head -c $((i * 4 << 20)) /dev/urandom >"$R/m$i"; done
fresh() { rm -rf "$1" && cp -a "$R" "$1"; }

# Within one filesystem: a rename, O(1), the same inode.
mkdir "$T/mnt/one"
fresh "$T/mnt/src"
ino=$(stat -c %i "$T/mnt/src")
run_fcp --move "$T/mnt/src" "$T/mnt/one"
check_rc 0
check_absent "$T/mnt/src"
check_eq "$(stat -c %i "$T/mnt/one/src")" "$ino" "the moved directory's inode"
check_tree "$R" "$T/mnt/one/src"

# A file onto a file replaces it, as mv does.
echo new >"$T/mnt/a" && echo old >"$T/mnt/b"
run_fcp --move "$T/mnt/a" "$T/mnt/b"
check_rc 0
check_absent "$T/mnt/a"
check_eq "$(cat "$T/mnt/b")" new "the file moved over another"

# Across filesystems: copy, then the source removed.
mkdir "$T/mnt/two"
fresh "$T/src"
run_fcp --move "$T/src" "$T/mnt/two"
check_rc 0
check_absent "$T/src" "the source of a finished move"
check_tree "$R" "$T/mnt/two/src"
check_no_temp "$T/mnt/two"

# The copy's data and the directory holding its name are synced before
# the source goes (strace: the order of the calls).
if command -v strace >/dev/null; then
	mkdir "$T/one" && echo data >"$T/one/f"
	strace -f -o "$T/trace" -e trace=openat,fsync,unlinkat "$FASTCP" --move "$T/one/f" "$T/mnt/two/" ||
		fail "fastcp under strace"
	awk -v dst="$T/mnt/two" '
		/openat\(AT_FDCWD, / && index($0, "\"" dst) { split($0, a, "= "); dirfd = a[2] + 0 }
		/openat\([0-9]+, "f", O_RDONLY/ { split($0, a, "= "); filefd = a[2] + 0 }
		/fsync\(/ { sub(/.*fsync\(/, ""); synced[$0 + 0] = 1 }
		/unlinkat\([0-9]+, "f", 0\)/ { ok = synced[dirfd] && synced[filefd]; done = 1; exit }
		END { exit !(done && ok && dirfd && filefd) }' "$T/trace" ||
		{ grep -e fsync -e unlinkat -e '"f"' "$T/trace"; fail "the source went before its copy was synced"; }
	check_absent "$T/one/f"
	check_eq "$(cat "$T/mnt/two/f")" data "the moved file"
else
	note "no strace: the order of fsync and unlink is not checked"
fi

# A dry run and bad input: nothing moves.
fresh "$T/src"
run_fcp --move --dry-run "$T/src" "$T/mnt/three"
check_rc 0
check_grep "three/d2/f1'" "$T/out"
run_fcp --move "$T/src" "$T/src/d1"
check_rc 1
check_grep "into itself" "$T/err"
run_fcp --move -T "$T/src" "$T/src"
check_rc 1
check_grep "same file" "$T/err"
check_absent "$T/mnt/three"
check_tree "$R" "$T/src"

# A source whose copy fails stays, and is named (once: one failed item);
# the rest moves.
mkdir -p "$T/mnt/four/src/d1/f2"
echo mine >"$T/mnt/four/src/d1/f2/x"
run_fcp --move "$T/src" "$T/mnt/four"
check_rc 1
check_grep "cannot overwrite directory with '$T/src/d1/f2'" "$T/err"
check_nogrep "not removing" "$T/err"
check_grep "^fastcp: 1 item failed$" "$T/err"
cmp -s "$R/d1/f2" "$T/src/d1/f2" || fail "the source of a failed copy was altered"
check_eq "$(cat "$T/mnt/four/src/d1/f2/x")" mine "the directory in the way"
check_absent "$T/src/d1/f1"
check_absent "$T/src/d2"
check_eq "$(cd "$T/src" && find . | sort | tr '\n' ' ')" ". ./d1 ./d1/f2 " "what stays of the source"

# check_nothing_lost SRC DST: every file of the reference is in SRC or
# DST (under its final name), and each one that is there is whole.
check_nothing_lost() {
	local f rel n=0 both=0
	while IFS= read -r -d '' f; do
		rel=${f#"$R"/}
		[ -e "$1/$rel" ] || [ -e "$2/$rel" ] || fail "round $r: $rel is lost"
		if [ -e "$1/$rel" ]; then cmp -s "$f" "$1/$rel" || fail "round $r: source $rel altered"; fi
		if [ -e "$2/$rel" ]; then
			cmp -s "$f" "$2/$rel" || fail "round $r: $rel under its final name differs"
			[ -e "$1/$rel" ] && both=$((both + 1))
		fi
		n=$((n + 1))
	done < <(find "$R" -type f -print0)
	note "round $r: $n files, none lost ($both in both places)"
}

fresh "$T/src"
rm -rf "$T/mnt/five" && mkdir "$T/mnt/five"
run_fcp --move "$T/src" "$T/mnt/five"
check_rc 0
# The killed moves read at 32 MiB/s: 1 s at least for these 31 MB.
RATE=32
span=$(kill_span "$R" $RATE)
note "the kills come within $span ms of the start"
killed=0
for ((r = 1; r <= ROUNDS; r++)); do
	fresh "$T/src"
	rm -rf "$T/mnt/five" && mkdir "$T/mnt/five"
	ms=$((RANDOM % span))
	kill_fcp_after "$ms" --bwlimit ${RATE}M --move "$T/src" "$T/mnt/five"
	note "round $r: killed after $ms ms (exit $rc)"
	check_nothing_lost "$T/src" "$T/mnt/five/src"
	# A move that finished has no source to run again on (as mv).
	if [ -e "$T/src" ]; then
		run_fcp --move "$T/src" "$T/mnt/five"
		check_rc 0 "round $r: the move run again"
	fi
	check_absent "$T/src" "round $r: the source after the move was run again"
	# Directory times: the killed run's removals moved the source's.
	check_tree "$R" "$T/mnt/five/src" --no-times
	check_no_temp "$T/mnt/five"
done
[ "$killed" -ge $((ROUNDS / 4)) ] || fail "only $killed of $ROUNDS moves were killed before they finished"
echo "moves within and across filesystems; $ROUNDS kills ($killed mid-move), nothing lost"
