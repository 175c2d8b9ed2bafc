#!/bin/bash
# A bounded SIGKILL loop: 20 copies of a tree of small, medium and large
# files (one large enough to be cut into chunks), each killed with SIGKILL
# at a random moment within about the time a whole copy takes, slowed to a
# known rate (at least a quarter of them must be killed before they finish). After every round,
# every file under its final name in the destination has exactly the
# source's content: nothing partial is ever under a final name. Even rounds
# copy to a new name (the hidden root copy, files made under their final
# names inside it); odd rounds copy with -T into the same existing tree
# again and again (files written unnamed or under temporary names and
# renamed over the old ones). Temporary leftovers (.fcp-*) are allowed here;
# their content is not looked at.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd cmp
# Room for the worst case: each kill may leave the large file's named
# temporary (66 MiB) in the existing copy, where a run without --sync only
# names it; 600m ran out on a loaded machine after 20 such kills.
t_mount_fs tmpfs 2g "$T/dst"
ROUNDS=${KILL_ROUNDS:-20}

# About 80 MB: 400 small files in 8 directories, 6 medium, one large
# (above the 64 MiB where chunks begin).
S=$T/src
for d in $(seq 1 8); do
	mkdir -p "$S/d$d/sub"
	for i in $(seq 1 40); do head -c $(((i * 997 + d * 131) % 30000)) /dev/urandom >"$S/d$d/f$i"; done
	for i in $(seq 1 10); do head -c $((i * 70000)) /dev/urandom >"$S/d$d/sub/g$i"; done
done
for i in $(seq 1 6); do head -c $((i * 400000)) /dev/urandom >"$S/m$i"; done
head -c $((66 << 20)) /dev/urandom >"$S/large"

# check_final DIR: every regular file under a final name (no .fcp-* in
# its path) is identical to the source's.
check_final() {
	local dir=$1 f rel n=0
	while IFS= read -r -d '' f; do
		rel=${f#"$dir"/}
		[ -f "$S/$rel" ] || fail "round $r: $rel is not in the source"
		cmp -s "$S/$rel" "$f" || fail "round $r: $rel under its final name differs from the source"
		n=$((n + 1))
	done < <(find "$dir" -name '.fcp*' -prune -o -type f -print0)
	note "round $r: $n files under final names, all intact"
}

# One whole copy first: it must be right.
run_fcp "$S" "$T/dst/whole"
check_rc 0
check_tree "$S" "$T/dst/whole"
rm -rf "$T/dst/whole"
# The killed copies read at 64 MiB/s: 1.2 s at least for these 80 MB.
RATE=64
span=$(kill_span "$S" $RATE)
note "the kills come within $span ms of the start"
killed=0

mkdir -p "$T/dst/tree"
for ((r = 1; r <= ROUNDS; r++)); do
	ms=$((RANDOM % span))
	if ((r % 2 == 0)); then
		rm -rf "$T/dst/new"
		mkdir "$T/dst/new"
		kill_fcp_after "$ms" --bwlimit ${RATE}M "$S" "$T/dst/new/copy"
	else
		kill_fcp_after "$ms" --bwlimit ${RATE}M -T "$S" "$T/dst/tree"
	fi
	note "round $r: killed after $ms ms (exit $rc)"
	if ((r % 2 == 0)); then
		# Only the root copy's own name is final there; what is in its
		# hidden directory is not yet. Under its final name, it is whole.
		if [ -e "$T/dst/new/copy" ]; then
			check_final "$T/dst/new/copy"
			check_tree "$S" "$T/dst/new/copy"
		fi
	else
		check_final "$T/dst/tree"
	fi
done

# A loop whose kills all came too late tested nothing.
[ "$killed" -ge $((ROUNDS / 4)) ] || fail "only $killed of $ROUNDS copies were killed before they finished"

# The tree copied into again and again ends right when a copy finishes.
run_fcp -T "$S" "$T/dst/tree"
check_rc 0
check_final "$T/dst/tree"
for f in $(cd "$S" && find . -type f); do
	[ -f "$T/dst/tree/$f" ] || fail "$f missing after a finished copy"
done
echo "$ROUNDS SIGKILLs ($killed mid-copy): no file under a final name with wrong content"
