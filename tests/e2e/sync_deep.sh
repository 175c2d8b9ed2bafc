#!/bin/bash
# --mirror and --dry-run on a tree deeper than the descriptor limit lets
# stay open (directories give their descriptors back and are re-opened,
# dirfds.c): the re-run copies the one change and deletes the one extra at
# the bottom; a dry run of a new copy (whose directories have no copy to
# re-open) lists every entry; a dry run over the copy changes nothing; an
# extra tree deeper than the limit is deleted whole.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd prlimit

levels=400
mkdir src
(
	cd src || exit 1
	for i in $(seq 1 $levels); do
		printf '%d\n' "$i" >f
		mkdir d && cd d || exit 1
	done
	printf 'bottom\n' >bottom
) || fail "building the deep tree"
lim="prlimit --nofile=64:256 --"
FCP_WRAP=$lim run_fcp -T src dst
check_rc 0 "first copy"
bottom=$(printf 'd/%.0s' $(seq 1 $levels))
printf 'changed\n' >"src/${bottom}bottom"
printf 'extra\n' >"dst/${bottom}extra"
(cd dst && find . -printf '%i %m %s %T@ %C@ %p\n' | sort) >before

FCP_WRAP=$lim run_fcp --dry-run --mirror -T src dst
check_rc 0 "dry run over the copy"
check_nogrep "open files|reopen|replaced" "$T/err"
check_eq "$(grep -c '^delete ' "$T/out")" 1 "deletions said"
check_eq "$(grep -c "^update '" "$T/out")" 1 "updates said"
(cd dst && find . -printf '%i %m %s %T@ %C@ %p\n' | sort) >after
diff -q before after >/dev/null || fail "the dry run changed the copy"

FCP_WRAP=$lim run_fcp --dry-run src new
check_rc 0 "dry run of a new copy"
check_nogrep "open files|reopen|replaced" "$T/err"
check_eq "$(grep -cE '^(copy|mkdir) ' "$T/out")" $((2 * levels + 2)) "entries of a new copy said"
check_absent new

FCP_WRAP=$lim run_fcp -v --mirror -T src dst
check_rc 0 "--mirror"
check_nogrep "open files|reopen|replaced" "$T/err"
check_grep "^fastcp: copied 1 file " "$T/err"
check_grep ", 1 deleted$" "$T/err"
check_tree src dst
# An extra tree deeper than the limit goes whole (the deletion does not
# keep a descriptor per level).
(cd dst && mkdir x && cd x && for i in $(seq 1 300); do mkdir d && printf 'x\n' >f && cd d || exit 1; done) ||
	fail "building the deep extra tree"
FCP_WRAP=$lim run_fcp -v --delete -T src dst
check_rc 0 "--delete of a 300-level extra tree"
check_nogrep "open files" "$T/err"
check_grep ", 601 deleted$" "$T/err"
check_absent dst/x
check_tree src dst
echo "$levels levels: mirror and dry run under a 256 descriptor limit"
