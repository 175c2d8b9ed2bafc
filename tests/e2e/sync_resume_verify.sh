#!/bin/bash
# --sync --resume --verify (issue 33, item 14): a file taken up from a
# killed run's record is read back through the descriptor that finished
# it, so it must be open for reading too; it was opened write-only, every
# resumed file failed with "Bad file descriptor" and its durable part was
# thrown away (a new resumable file failed the same way). Here the killed run is stopped by SIGKILL as soon as its
# first record is on the file (--bwlimit keeps it from finishing first);
# the re-run writes only the rest, verifies every byte of the file, and
# the copy equals the source. Both places a resumable file has: beside
# its final name in a directory that exists, and under its final name in
# a killed run's hidden root copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd getfattr
setfattr -n user.fastcp.probe -v 1 "$T" 2>/dev/null || skip "no user xattrs here (the resume record)"

SIZE=$(((1 << 30) + 12345)) # --resume's threshold, and a short last chunk
mkdir -p "$T/src/sub"
head -c "$SIZE" /dev/urandom >"$T/src/big" || fail "cannot write the source"
echo small >"$T/src/sub/small"

record() { getfattr --only-values -n user.fastcp.resume "$1" 2>/dev/null; }
done_of() { record "$1" | sed -n 's/.* done=\([0-9]*\) .*/\1/p'; }

# kill_at_record GLOB ARGS...: run fastcp ARGS (at 200 MB/s) and SIGKILL
# it once the file GLOB names has a record; DONE: the bytes it names.
kill_at_record() {
	local glob=$1 pid f i
	shift
	"$FASTCP" --bwlimit 200M "$@" >/dev/null 2>"$T/err" &
	pid=$!
	for ((i = 0; i < 1200; i++)); do
		for f in $glob; do
			[ -n "$(record "$f")" ] && break 2
		done
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.025
	done
	kill -KILL "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	[ $? = 137 ] || fail "the first run ended before it was killed: $(cat "$T/err")"
	DONE=
	for f in $glob; do DONE=$(done_of "$f"); done
	[ -n "$DONE" ] && [ "$DONE" -gt 0 ] || fail "no record on $glob after the kill"
	note "killed with $DONE of $SIZE bytes recorded"
}

# resumed_verified: the re-run ($T/out, --json) wrote what was not done,
# and verified the whole file (the small one was copied before the kill).
resumed_verified() {
	local bytes vbytes vfiles
	bytes=$(grep -o '"bytes": *[0-9]*' "$T/out" | head -1 | grep -o '[0-9]*$')
	vbytes=$(grep -o '"verified_bytes": *[0-9]*' "$T/out" | grep -o '[0-9]*$')
	vfiles=$(grep -o '"verified_files": *[0-9]*' "$T/out" | grep -o '[0-9]*$')
	note "the re-run wrote $bytes bytes, verified $vbytes in $vfiles files"
	[ -n "$bytes" ] && [ "$bytes" -le $((SIZE - DONE)) ] ||
		fail "the re-run wrote ${bytes:-?} bytes, more than the $((SIZE - DONE)) not recorded"
	# The part a killed run copied is not counted as holes: the source
	# has none.
	check_grep '"bytes_holes": *0[,}]' "$T/out"
	check_eq "$vfiles" 1 "files verified"
	check_eq "$vbytes" "$SIZE" "bytes verified"
	check_nogrep "Bad file descriptor" "$T/err"
}

# 0. A whole copy with --resume --verify: the new resumable file, too, was
# opened write-only and failed its read-back.
mkdir "$T/d0"
run_fcp --json --resume --verify "$T/src/big" "$T/d0/"
check_rc 0
check cmp "$T/src/big" "$T/d0/big"
check_grep '"verified_bytes": *'"$SIZE" "$T/out"
rm -rf "$T/d0"

# 1. Into a directory that exists: ".fcp-resume-<hash>" beside the name.
mkdir "$T/d1"
kill_at_record "$T/d1/.fcp-resume-*" --resume --verify -T "$T/src" "$T/d1"
run_fcp --json --sync --resume --verify -T "$T/src" "$T/d1"
check_rc 0
resumed_verified
check_tree "$T/src" "$T/d1"
check_no_temp "$T/d1"
rm -rf "$T/d1"

# 2. A new root copy: the killed run's hidden directory, taken up again.
mkdir "$T/d2"
kill_at_record "$T/d2/.fcp-*/big" --resume --verify "$T/src" "$T/d2/copy"
check_absent "$T/d2/copy" "a killed copy appeared under its final name"
run_fcp --json --sync --resume --verify "$T/src" "$T/d2/copy"
check_rc 0
resumed_verified
check_tree "$T/src" "$T/d2/copy"
check_no_temp "$T/d2"
echo "resumed files verified whole, only their rest written again"
