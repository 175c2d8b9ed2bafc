#!/bin/bash
# A taken-up copy ends as a new copy by this command would: what the
# filters leave out now (--exclude, --max-size, --older-than) is removed
# from the killed run's hidden copy before it gets its name, said on
# standard error; the file that run cut short never gets its final name.
# Not below a mount point (the delete machinery's rule): what is mounted
# in the hidden copy stays, and so does the copy's hidden name. The kill
# comes at a known point: the large file, read at --bwlimit, has some of
# its data in the hidden copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

mkdir -p s/sub s/skip
head -c 6000000 /dev/urandom >s/big
for i in 1 2 3; do echo "small $i" >"s/sub/f$i"; done
echo "left out" >s/skip/x
touch -d '2001-02-03 04:05:06' s/sub/* s/skip/x # old; big is new
before=$(t_sums s)

# kill_mid: run `fastcp --bwlimit 1M s dst/` and SIGKILL it once its
# hidden copy holds half a megabyte of big; the copy is then cut short
# (6 MB at 1 MiB/s), which is checked, not assumed.
kill_mid() {
	local pid h i size
	rm -rf dst && mkdir dst
	"$FASTCP" -j 2 --bwlimit 1M s dst/ 2>/dev/null &
	pid=$!
	for ((i = 0; i < 2400; i++)); do
		h=$(find dst -maxdepth 1 -name '.fcp-*' -type d -print -quit)
		size=0
		[ -n "$h" ] && [ -f "$h/big" ] && size=$(stat -c %s "$h/big")
		[ "$size" -ge 500000 ] && [ -f "$h/skip/x" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.025
	done
	kill -KILL "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	[ -n "$h" ] && [ -f "$h/big" ] || fail "the copy never began its large file"
	cmp -s s/big "$h/big" && fail "the kill came after the large file was whole"
	hidden=$h
}

# Each filter leaves out big (and --exclude skip/ a directory): the copy
# gets its name without them, exit 0, and the rest is whole.
for opt in '--exclude big --exclude skip/' '--max-size 1M' '--older-than 1d' \
	'--sync --exclude big' '--exclude big --delete-excluded' '--exclude big -n'; do
	kill_mid
	# shellcheck disable=SC2086 # options are words
	run_fcp $opt s dst/
	check_rc 0 "$opt"
	check_absent "$hidden" "the hidden copy after the run with $opt"
	check_absent dst/s/big "the file cut short, left out by $opt, under its final name"
	check_grep "removed '[^']*/big', left by an interrupted run, left out by the filters now" \
		"$T/err"
	check_no_temp dst
	case $opt in
	*skip/*)
		check_absent dst/s/skip "a directory left out by $opt"
		check_grep "removed '[^']*/skip', left by an interrupted run" "$T/err"
		;;
	*) check cmp s/skip/x dst/s/skip/x ;;
	esac
	for i in 1 2 3; do check cmp "s/sub/f$i" "dst/s/sub/f$i"; done
	# The finished copy is what the same filters make of the source.
	mkdir -p fresh && rm -rf fresh/*
	# shellcheck disable=SC2086
	check "$FASTCP" $opt s fresh/ 2>/dev/null
	check_tree fresh/s dst/s
	rm -rf fresh
	# Without the filter, the same command copies big whole.
	run_fcp --sync s dst/
	check_rc 0
	check cmp s/big dst/s/big
	check_eq "$(t_sums dst/s)" "$before" "every file whole after a --sync without filters"
done

# A mount in the hidden copy, below a directory the filters leave out:
# never deleted nor entered; the copy keeps its hidden name (exit 1).
if [ "$(id -u)" = 0 ]; then
	kill_mid
	mkdir -p mnt "$hidden/skip/m" && echo "not ours" >mnt/keep
	t_bind mnt "$hidden/skip/m"
	run_fcp --exclude skip/ s dst/
	# A copy renamed with the mount in it took the mount along.
	if mountpoint -q dst/s/skip/m; then
		umount dst/s/skip/m && t_mounts_=()
		fail "a copy with a mount in it got its name"
	fi
	check_rc 1 "a mount point in what the filters leave out"
	check_grep "mount point" "$T/err"
	check cmp mnt/keep "$hidden/skip/m/keep"
	check_eq "$(cat mnt/keep)" "not ours" "the mounted file"
	check_absent dst/s "a copy with a mount in it named"
	umount "$hidden/skip/m" && t_mounts_=()
	run_fcp --exclude skip/ s dst/
	check_rc 0 "the same command once the mount is gone"
	check_absent dst/s/skip
	check cmp s/big dst/s/big
	check_no_temp dst
else
	note "not root: the mount point case is not run"
fi
check_eq "$(t_sums s)" "$before" "source unchanged"
echo PASS
