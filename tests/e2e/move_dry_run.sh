#!/bin/bash
# --move with --dry-run and with filters (issue 35). A dry run lists what
# would be moved and changes nothing, on either side (no rename, no copy,
# no removal: the source's inodes and ctimes are the same after). A
# filtered move moves only what the filters choose: what they leave out
# (by rule, by size, by time) stays in the source with its bytes, and so
# do the directories holding it; every source byte is somewhere after.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mk() {
	rm -rf "$1"
	mkdir -p "$1/a/b" "$1/c" "$1/only-logs"
	echo one >"$1/a/x.txt"
	echo two >"$1/a/b/y.log"
	echo three >"$1/c/z.txt"
	echo four >"$1/only-logs/w.log"
	echo five >"$1/top.txt"
	ln -s a/x.txt "$1/link"
	head -c 100000 /dev/urandom >"$1/c/big.txt"
	touch -d '2020-01-01' "$1/c/z.txt"
}
# state DIR: each entry with its inode, type, size, mode, mtime and ctime.
state() { (cd "$1" && find . -printf '%p %i %y %s %m %T@ %C@\n' | LC_ALL=C sort); }
# sums DIR...: the content of every regular file below the DIRs.
sums() { find "$@" -type f -exec md5sum {} + | awk '{print $1}' | LC_ALL=C sort; }

# A dry run of a move that would be a rename (one filesystem, DEST absent).
mk src
state src >before
run_fcp --move --dry-run -v src dst
check_rc 0 "--move --dry-run"
check_absent dst "a dry run made DEST"
state src >after
diff before after || fail "a dry run of --move changed the source"
for p in a/x.txt a/b/y.log c/z.txt only-logs/w.log top.txt link c/big.txt; do
	check_grep "'dst/$p'" "$T/out" "the dry run does not name $p"
done

# Into an existing DEST with a file in the way: still nothing changes.
mkdir -p d2/src/a
echo other >d2/src/a/x.txt
state d2 >dbefore
run_fcp --move --dry-run src d2
check_rc 0
state d2 >dafter
diff dbefore dafter || fail "a dry run of --move changed DEST"
state src >after
diff before after || fail "a dry run of --move changed the source"

# The closing line says how many entries would leave the source: the 7
# that are not directories.
check_grep "would take 7 entries out of SOURCE" "$T/out" "the dry run does not say what leaves the source"

# Everything already in place: no copy, but the run would still take the
# source away, and the dry run lists each entry ("unchanged") and says so.
mk src
run_fcp -T src inplace
check_rc 0
run_fcp --move --dry-run -T src inplace
check_rc 0
for p in a/x.txt a/b/y.log c/z.txt top.txt link; do
	check_grep "^unchanged 'inplace/$p'" "$T/out" "a dry run of a move does not list $p, in place, that would leave the source"
done
check_grep "would copy 0 entries.*would take 7 entries out of SOURCE" "$T/out" \
	"a dry run of a move of what is in place does not say the source would go"
run_fcp --move --dry-run --json -T src inplace
check_grep '"would_move": *7' "$T/out" "--json has no would_move"
# Filters: what they leave out stays, and is not counted.
run_fcp --move --dry-run --exclude '*.log' -T src inplace
check_grep "would take 5 entries out of SOURCE" "$T/out"
run_fcp --move -T src inplace
check_rc 0
check_absent src "the move of what was in place left the source"
# A copy's dry run says nothing of the kind.
mk src
run_fcp --dry-run src plain
check_nogrep "out of SOURCE" "$T/out"

# A filtered move (DEST absent: DEST becomes the copy): *.log left out by a
# rule.
want=$(sums src)
run_fcp --move --exclude '*.log' src m1
check_rc 0 "--move --exclude"
check_nogrep "not removing" "$T/err" "an excluded entry reported as kept"
for p in a/x.txt c/z.txt top.txt link c/big.txt; do
	check_absent "src/$p" "moved $p still in the source"
done
check_eq "$(cat m1/a/x.txt)" one
check_eq "$(cat src/a/b/y.log)" two "an excluded file"
check_eq "$(cat src/only-logs/w.log)" four "an excluded file"
check_absent m1/a/b/y.log "an excluded file copied"
check_dir src/a/b "a directory holding an excluded file removed"
check_dir src/only-logs "a directory holding an excluded file removed"
check_absent src/c "an emptied directory of the source stays"
check_eq "$(sums src m1)" "$want" "source bytes lost or changed by a filtered move"

# By time: only what is newer than 2021 moves; the old file stays.
mk src
want=$(sums src)
run_fcp --move --newer-than 2021-01-01 src m2
check_rc 0 "--move --newer-than"
check_nogrep "not removing" "$T/err"
check_eq "$(cat src/c/z.txt)" three "a file older than --newer-than moved"
check_absent m2/c/z.txt
check_absent src/c/big.txt
check_eq "$(sums src m2)" "$want" "source bytes lost by a move filtered by time"

# A filtered move of a directory onto the same filesystem is no rename:
# the excluded entries' inodes stay in the source.
mk src
ino=$(stat -c %i src/a/b/y.log)
run_fcp --move --exclude 'y.log' src m3
check_rc 0
check_eq "$(stat -c %i src/a/b/y.log)" "$ino" "the excluded file left the source"
check_absent m3/a/b/y.log
check_file m3/only-logs/w.log
check_absent src/only-logs
# --move -n over a symlink source: kept by -n over a file or a symlink of
# another target, the run keeps the source and exits 1 ('what is at its
# destination differs (kept there by -n, ...'); over the same symlink, the
# source goes (exit 0). The dry run said 'keep' and exit 0 for all three:
# it now says what the run does.
for kind in file link samelink; do
	rm -rf ks kd
	mkdir -p ks kd/ks
	ln -s a ks/x
	case $kind in
	file) echo data >kd/ks/x ;;
	link) ln -s b kd/ks/x ;;
	samelink) ln -s a kd/ks/x ;;
	esac
	want=1; [ $kind = samelink ] && want=0
	run_fcp --move -n --dry-run ks kd/
	check_rc $want "--move -n --dry-run, a symlink source over a $kind"
	dry=$(grep -c "not removing 'ks/x'" "$T/err")
	run_fcp --move -n ks kd/
	check_rc $want "--move -n, a symlink source over a $kind"
	check_eq "$(grep -c "not removing 'ks/x'" "$T/err")" "$dry" "$kind: the kept source said by both"
	# The reason names -n, not a failed copy or a changed source.
	[ $kind = samelink ] || check_grep "not removing 'ks/x': what is at its destination differs [(]kept there by -n" \
		"$T/err" "$kind: the reason the symlink source stays"
done
# On one filesystem a --move renames the tree whole and reads no file: one
# its user cannot read moves too (exit 0). Its dry run opened each file
# and failed that one (exit 1): it now opens none where the run renames.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	rm -rf np
	mkdir -p np/us/sub np/ud
	echo secret >np/us/sub/f
	chmod 000 np/us/sub/f
	chown -R nobody np
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	as_nobody "$FASTCP" --move --dry-run -T np/us np/ud/us >"$T/out" 2>"$T/err"
	check_rc 0 "the dry run of a rename with a file its user cannot read"
	check_nogrep "cannot open" "$T/err" "the dry run opened a file the rename does not read"
	as_nobody "$FASTCP" --move -T np/us np/ud/us >"$T/out" 2>"$T/err"
	check_rc 0 "the rename with a file its user cannot read"
	check_absent np/us "the source after the rename"
fi
echo "move dry-run and filters ok"
