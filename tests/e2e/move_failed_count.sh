#!/bin/bash
# --move across filesystems: an item whose copy fails is one failed item,
# said once with its path. It was counted twice ("2 items failed" for one
# unreadable file): once by the copy, once more by the removal of the
# sources, which found its copy missing ("not removing ...: its copy is
# missing"). The summary, --stats and --json must all give the number of
# items that failed; the exit status stays 1, the failed sources stay,
# the others move.
#   - As an unprivileged user: a file and a directory of mode 000 (the
#     entry path: "cannot open", "cannot open directory").
#   - Through faultfs, a read error (--eio-at=0) in a small file (the
#     io_uring batch where built, and --no-io-uring) and in a large one
#     (70 MiB: copied in chunks).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "the unreadable source is made by running as another user"
need_cmd setpriv python3
t_mount_fs tmpfs 256m "$T/dst"

# check_count N WHAT: the run's summary, --stats and --json each say N
# failed items, and --json's errors list has N entries.
check_count() {
	local n=$1 what=$2 items=items
	[ "$n" = 1 ] && items=item
	check_rc 1 "$what"
	check_grep "^fastcp: $n $items failed$" "$T/err" "$what: the summary"
	check_nogrep "not removing" "$T/err" "$what: a failed item named twice"
}
check_stats() {
	check_grep "skipped, $1 failed$" "$T/err" "$2: --stats"
}
check_json() {
	python3 - "$T/out" "$1" "$2" <<'PY' || fail "$2: --json's failed or errors"
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
n = int(sys.argv[2])
assert d["failed"] == n and len(d["errors"]) == n, (d["failed"], d["errors"])
PY
}

# As nobody: a file and a directory it cannot read.
setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null ||
	skip "cannot run as nobody here"
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$FASTCP" "$@" >"$T/out" 2>"$T/err"
	ran_ $? fastcp "$*"
}
mk_src() { # DIR
	mkdir -p "$1/src/sub" "$1/src/locked"
	echo one >"$1/src/a"
	echo two >"$1/src/sub/b"
	echo secret >"$1/src/sub/bad"
	echo inside >"$1/src/locked/c"
	chmod 000 "$1/src/sub/bad" "$1/src/locked"
}
n=0
for opt in "" --stats --json; do
	n=$((n + 1))
	W=$T/w$n
	mkdir -p "$W" && mk_src "$W"
	chown -R 65534:65534 "$W" "$T/dst"
	chmod 755 "$T"
	# shellcheck disable=SC2086
	as_nobody --move $opt "$W/src" "$T/dst/n$n"
	check_count 2 "unreadable file and directory${opt:+ ($opt)}"
	check_grep "cannot open '$W/src/sub/bad'" "$T/err"
	check_grep "cannot open directory '$W/src/locked'" "$T/err"
	case $opt in
	--stats) check_stats 2 "unreadable file and directory" ;;
	--json) check_json 2 "unreadable file and directory" ;;
	esac
	check_file "$W/src/sub/bad" "the unreadable source stays"
	check_dir "$W/src/locked" "the unreadable directory stays"
	chmod 755 "$W/src/locked"
	check_file "$W/src/locked/c" "what is in the unreadable directory stays"
	check_absent "$W/src/a" "a copied source goes"
	check_absent "$W/src/sub/b" "a copied source goes"
	check_eq "$(cat "$T/dst/n$n/sub/b")" two "the copy"
	check_absent "$T/dst/n$n/sub/bad"
done

# Through faultfs: a read error, as root.
if [ ! -c /dev/fuse ] || [ ! -x "$TOOLS/faultfs" ]; then
	skip "no faultfs here (/dev/fuse, libfuse3-dev)"
fi
B=$T/b
k=0
# (--reflink=never -j 2: a FUSE source's small files take the io_uring
# batch, copy_read_errors.sh.)
for opt in "--reflink=never -j 2" --no-io-uring "--stats --reflink=never -j 2" --json; do
	for size in 3000 $((70 << 20)); do
		k=$((k + 1))
		mkdir -p "$B/s$k/src/sub"
		echo one >"$B/s$k/src/a"
		echo two >"$B/s$k/src/sub/b"
		head -c "$size" /dev/zero >"$B/s$k/src/sub/bad"
		faultfs_mount "$B/s$k" "$T/m$k" --match='bad' --eio-at=0
		what="read error in a file of $size bytes${opt:+ ($opt)}"
		# shellcheck disable=SC2086
		FCP_TIMEOUT=300 run_fcp --move $opt "$T/m$k/src" "$T/dst/f$k"
		check_count 1 "$what"
		check_grep "'$T/m$k/src/sub/bad'" "$T/err"
		case $opt in
		--stats*) check_stats 1 "$what" ;;
		--json) check_json 1 "$what" ;;
		esac
		check_file "$B/s$k/src/sub/bad" "$what: the source stays"
		check_absent "$B/s$k/src/sub/b" "$what: a copied source goes"
		check_absent "$T/dst/f$k/sub/bad"
		rm -rf "$T/dst/f$k"
	done
done
echo "a failed item of --move: counted once, named once; summary, --stats, --json agree"
