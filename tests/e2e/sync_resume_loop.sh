#!/bin/bash
# Resume after a crash: 20 rounds, each a copy into a directory killed with
# SIGKILL at a random moment, then (odd rounds) a --sync run killed again,
# then a --sync run to the end. After it the copy equals the source and
# no .fcp-* name is left in it or beside it: the killed runs' hidden root
# copy was adopted (a --dry-run before changes nothing). A file of the
# temporary shape beside the copy is named, never removed for its name
# (it may be the user's), and a symlink of that shape planted there by
# another user is neither followed nor removed.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
t_mount_fs tmpfs 400m "$T/dst"
setfattr -n user.fastcp.probe -v 1 "$T/dst" 2>/dev/null ||
	skip "tmpfs here takes no user xattrs (the hidden copy's marker)"
ROUNDS=${KILL_ROUNDS:-20}

# About 120 MB: 400 small files in 8 directories, a few of several MiB.
S=$T/src
for d in $(seq 1 8); do
	mkdir -p "$S/d$d/sub"
	for i in $(seq 1 40); do head -c $(((i * 997 + d * 131) % 20000)) /dev/urandom >"$S/d$d/f$i"; done
	for i in $(seq 1 10); do head -c $((i * 30000)) /dev/urandom >"$S/d$d/sub/g$i"; done
	ln -s "f1" "$S/d$d/link"
done
for i in 1 2 3 4; do head -c $((i * 4 << 20)) /dev/urandom >"$S/m$i"; done
# One file above the 64 MiB where chunks begin: its chunks are written by
# several workers, and the last one out sets its mtime.
head -c $((66 << 20)) /dev/urandom >"$S/large"
# Planted beside the copy: a symlink of the temporary shape to a directory
# marked as the hidden copy of this very name. Taking it up would write
# through it.
mkdir "$T/victim" && echo keep >"$T/victim/x"
setfattr -n user.fastcp.root -v src "$T/victim"

run_fcp "$S" "$T/dst/whole"
check_rc 0
rm -rf "$T/dst/whole"
# The killed runs read at 100 MiB/s: 1.2 s at least for these 123 MB.
RATE=100
span=$(kill_span "$S" $RATE)
note "the kills come within $span ms of the start"

killed=0
for ((r = 1; r <= ROUNDS; r++)); do
	rm -rf "$T/dst/new"
	mkdir "$T/dst/new"
	ln -s "$T/victim" "$T/dst/new/.fcp-0123456789abcdef-0-1"
	chown -h nobody "$T/dst/new/.fcp-0123456789abcdef-0-1" # someone else's
	# As a killed copy of a single file into it would leave.
	echo partial >"$T/dst/new/.fcp-00000000000000aa-0-0"
	kill_fcp_after $((RANDOM % span)) --bwlimit ${RATE}M "$S" "$T/dst/new"
	((r % 2)) && kill_fcp_after $((RANDOM % span)) --bwlimit ${RATE}M --sync "$S" "$T/dst/new"
	# A dry run names what it finds and changes nothing, leftovers too.
	before=$(cd "$T/dst/new" && find . -printf '%p %i %s %T@\n' | sort)
	run_fcp --sync --dry-run "$S" "$T/dst/new"
	check_eq "$(cd "$T/dst/new" && find . -printf '%p %i %s %T@\n' | sort)" "$before" \
		"round $r: the destination after --sync --dry-run"
	run_fcp --sync "$S" "$T/dst/new"
	check_rc 0 "round $r: fastcp --sync exit status"
	check_tree "$S" "$T/dst/new/src"
	check_no_temp "$T/dst/new/src"
	left=$(cd "$T/dst/new" && ls -A | grep -v -x -e src -e .fcp-0123456789abcdef-0-1 \
		-e .fcp-00000000000000aa-0-0)
	[ -z "$left" ] || fail "round $r: left beside the copy: $left"
	check_link "$T/dst/new/.fcp-0123456789abcdef-0-1" "round $r: the planted symlink went"
	check_eq "$(cat "$T/dst/new/.fcp-00000000000000aa-0-0")" partial \
		"round $r: a file beside the copy, removed for its name"
	check_grep "'$T/dst/new/\.fcp-00000000000000aa-0-0' has the name of a temporary file" "$T/err"
	check_file "$T/victim/x" "round $r: the planted symlink was followed"
	check_eq "$(ls -A "$T/victim")" x "round $r: written through the planted symlink"
	note "round $r: whole after resume"
done
[ "$killed" -ge $((ROUNDS / 4)) ] || fail "only $killed runs were killed before they finished"
echo "$ROUNDS rounds ($killed kills): every --sync resume finished the copy, nothing left"
