#!/bin/bash
# --in-place onto a DEST file that is the source file's own inode (a
# snapshot made by "fastcp -l" or "cp -al"), after the source grew in
# place (so the DEST name shows the new bytes too): the rewrite would
# empty the very inode it reads. Nothing is written through that name, in
# a tree or for a file operand, whatever else is asked; as without
# --in-place: --sync (-c) finds the tree's file up to date (its content is
# the source's), a copy that does not compare fails the item "are the same
# file", as cp does. That message names the file the copy would replace,
# as cp's does ("'s/f' and 'd/f'"), also where DEST is given as the
# directory to copy into: it named the directory ("'s/f' and 'd/'").
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

# snap HOW: s (f, 300 KB, and g) and its snapshot d (hard links), then s/f
# grown in place; $T/sum: the sums of s/f and s/g after that.
snap() {
	rm -rf "$T/s" "$T/d"
	mkdir "$T/s"
	head -c 300000 /dev/urandom >"$T/s/f"
	echo small >"$T/s/g"
	case $1 in
	fastcp) run_fcp -l -T "$T/s" "$T/d"; check_rc 0 "fastcp -l" ;;
	cp) cp -al "$T/s" "$T/d" || fail "cp -al" ;;
	esac
	check_eq "$(stat -c %i "$T/d/f")" "$(stat -c %i "$T/s/f")" "$1: the snapshot's f is s/f"
	head -c 1000 /dev/urandom >>"$T/s/f"
	echo more >>"$T/s/g"
	(cd "$T/s" && sha256sum f g) >"$T/sum"
}
# whole WHAT: s keeps every byte, and d/f is still its inode.
whole() {
	(cd "$T/s" && sha256sum -c --quiet "$T/sum") || fail "$1: source bytes lost"
	check_eq "$(stat -c %s "$T/s/f")" 301000 "$1: size of s/f"
	check_eq "$(stat -c %i "$T/d/f")" "$(stat -c %i "$T/s/f")" "$1: d/f written through or replaced"
}

cd "$T" || fail cd
for how in fastcp cp; do
	# A tree: up to date where the run compares, the same file where not.
	for opts in "--sync --in-place" "-a --sync --in-place" "-c --in-place" \
		    "--sync --in-place --no-preserve=links" "-u --in-place"; do
		snap $how
		run_fcp $opts -T s d
		check_rc 0 "$how, $opts"
		whole "$how, $opts"
	done
	for opts in "--in-place" "-a --in-place" "--in-place --no-preserve=links" \
		    "--in-place --no-io-uring"; do
		snap $how
		run_fcp $opts -T s d
		check_rc 1 "$how, $opts"
		check_grep "^fastcp: 's/f' and 'd/f' are the same file$" "$T/err"
		check_grep "^fastcp: 's/g' and 'd/g' are the same file$" "$T/err"
		whole "$how, $opts"
	done
	# A file operand: the same file, as cp says, named as cp names it.
	for dst in d/f d d/ "-t d"; do
		for opts in "--in-place" "--sync --in-place"; do
			snap $how
			# shellcheck disable=SC2086
			run_fcp $opts s/f $dst
			check_rc 1 "$how, $opts s/f $dst"
			check_grep "^fastcp: 's/f' and 'd/f' are the same file$" "$T/err"
			whole "$how, $opts s/f $dst"
		done
	done
done
# Where cp is GNU cp, it names it so too.
snap cp
if cp --version 2>/dev/null | grep -q GNU; then
	cp s/f d/ 2>"$T/cp.err"
	check_grep "'s/f' and 'd/f' are the same file" "$T/cp.err"
fi
echo PASS
