#!/bin/bash
# A SOURCE inside the copy that the same command makes: "fastcp -T top/sub
# top" where top/sub holds a directory named sub (an unpacked archive's
# foo/foo). The copy of top/sub/sub is made over top/sub itself: --mirror
# deleted top/sub's files as extras of the copy before they were read, a
# plain copy overwrote them with the nested files' content (exit 0), the
# dry run listed them as deleted. Now the command is refused before
# anything is made (exit 2), whatever the spelling (a symlink, a bind
# mount), and so is a SOURCE inside another SOURCE's copy; every byte of the
# tree stays. A directory onto itself stays "the same file" (exit 1); a
# --check only reads and is done.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

N=200
# mk nested: top/sub/s1..sN and top/sub/sub/; "nested" gives top/sub/sub
# files of the same names, which a plain copy wrote over top/sub's.
mk() {
	rm -rf top lnk bind
	mkdir -p top/sub/sub top/keep
	for i in $(seq 1 $N); do echo "original $i" >"top/sub/s$i"; done
	echo inner >top/sub/sub/inner
	echo keep >top/keep/k
	if [ "$1" = nested ]; then
		for i in $(seq 1 $N); do echo "nested $i" >"top/sub/sub/s$i"; done
	fi
	ln -s top lnk
	t_sums top >"$T/before"
	find top | sort >"$T/before.names"
}
# refused WHAT: the tree as it was, byte for byte and name for name, the
# refusal named, exit 2.
refused() {
	t_sums top >"$T/after"
	cmp -s "$T/before" "$T/after" || { diff "$T/before" "$T/after" | head; fail "$1: source bytes changed"; }
	find top | sort >"$T/after.names"
	cmp -s "$T/before.names" "$T/after.names" || { diff "$T/before.names" "$T/after.names" | head; fail "$1: names changed"; }
	check_nogrep "^(delete|copy|mkdir) " "$T/out" "$1: a refused dry run lists actions"
	check_grep "cannot (copy|move) '.*': (the source is inside its own copy|it is inside '.*', the copy of '.*'), whose files would replace or delete it before they are read" "$T/err" "$1: refusal not said"
	check_rc 2 "$1: exit status"
}

mk plain
run_fcp --mirror --dry-run -T top/sub top
refused "--mirror --dry-run"
check_nogrep "delete 'top/sub/s" "$T/all"
check_grep "cannot copy 'top/sub' to 'top': the source is inside its own copy" "$T/err"

mk plain
run_fcp --mirror -T top/sub top
refused "--mirror"

mk nested
run_fcp -T top/sub top
refused "plain copy"

mk nested
run_fcp --move -T top/sub top
refused "--move"
check_grep "cannot move 'top/sub' to 'top'" "$T/err"

mk plain
run_fcp --delete -T top/sub/ top/
refused "--delete, trailing slashes"

# Spelled through a symlink, "." and "..", a bind mount: told by inode.
mk nested
run_fcp -T lnk/sub top
refused "symlink in the SOURCE's path"
mk nested
(cd top/sub && timeout 60 "$FASTCP" --mirror -T . .. >"$T/out" 2>"$T/err"); ran_ $? fastcp "-T . .."
refused "'.' into '..'"
if [ "$(id -u)" = 0 ]; then
	mk nested
	mkdir bind
	t_bind "$T/top" "$T/bind"
	run_fcp --mirror -T bind/sub top
	refused "bind mount in the SOURCE's path"
	umount "$T/bind"
fi

# Several SOURCEs: one inside another's copy (DEST/x holds the SOURCE).
mk nested
mkdir -p other/sub && echo other >other/sub/o
run_fcp --mirror other/sub top/sub/sub top/
refused "inside another SOURCE's copy"
check_grep "cannot copy 'top/sub/sub': it is inside 'top/sub', the copy of 'other/sub'" "$T/err"
rm -rf other

# fastcp-mpi: rank 0 decides, every rank ends with exit 2.
if command -v mpirun >/dev/null 2>&1 && [ -x "$FASTCP_MPI" ]; then
	need_mpi
	mk plain
	run_mpi 2 --mirror -T top/sub top
	refused "fastcp-mpi --mirror"
else
	note "fastcp-mpi not run: mpirun or fastcp-mpi missing"
fi

# As before: a directory onto itself is the same file (exit 1), and a
# --check, which only reads, runs.
mk nested
run_fcp -T top/sub top/sub
check_rc 1
check_grep "are the same file" "$T/err"
run_fcp --mirror top/sub top/
check_rc 1
check_grep "are the same file" "$T/err"
run_fcp --check -T top/sub top
check_rc 1 "--check finds the trees differ"
check_nogrep "inside its own copy" "$T/err"
t_sums top >"$T/after"
cmp -s "$T/before" "$T/after" || fail "--check changed the tree"

# Not inside: a sibling into its parent's other child goes on.
mk plain
run_fcp -T top/sub top/keep/sub
check_rc 0
check_tree top/sub top/keep/sub
echo PASS
