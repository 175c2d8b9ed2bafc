#!/bin/bash
# A dry run opens each source file it would copy, as the run does, on
# every path (man fastcp, --dry-run: failures that can be told without
# writing): an unreadable file among several, which the batch path settles
# without opening, fails the item, holds its directory's deletions and
# exits 1 in the dry run as in the run, under --mirror, --sync --delete,
# -c --mirror and --sync.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
# Mode 000 keeps root out of nothing: run as nobody where we are root.
if [ "$(id -u)" = 0 ]; then
	need_cmd setpriv
	FCP_WRAP="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chown 65534:65534 "$T"
fi
as() { ${FCP_WRAP:-} "$@"; }

n=0
for opts in "--mirror" "--sync --delete" "-c --mirror" "--sync"; do
	n=$((n + 1))
	as mkdir "w$n" "w$n/s" "w$n/d" || fail "mkdir w$n"
	cd "w$n" || fail "cd w$n"
	as sh -c 'echo x >s/f && chmod 000 s/f && echo y >s/g && echo z >s/h && echo extra >d/e' ||
		fail "setup"
	# shellcheck disable=SC2086
	run_fcp --dry-run $opts -T s d
	check_rc 1 "$opts: the dry run of an unreadable file"
	check_grep "^fastcp: cannot open 's/f': Permission denied\$" "$T/err"
	check_nogrep "^copy 'd/f'\$" "$T/out"
	check_nogrep "^delete 'd/e'\$" "$T/out"
	grep "^fastcp: .*'" "$T/err" | sort >"$T/dry.$n"
	check_file d/e "the dry run changed DEST"
	# shellcheck disable=SC2086
	run_fcp $opts -T s d
	check_rc 1 "$opts: the run"
	grep "^fastcp: .*'" "$T/err" | sort >"$T/real.$n"
	diff "$T/real.$n" "$T/dry.$n" || fail "$opts: the dry run's messages (>) are not the run's (<)"
	check_file d/e "$opts: the run deleted d/e"
	cd "$T" || fail "cd $T"
done
echo PASS
