#!/bin/bash
# --move -L / -H across filesystems: a followed symlink's copy is what it
# points to, so the link itself stays in the source, and the message says
# that (it said "its copy differs (it failed, or the source changed)").
# The copy keeps the move's mark (user.fastcp.move) while the link stays:
# the same command again goes on into that copy, says that no metadata was
# updated (it said "1 with metadata updated" and removed the mark), and a
# third run still goes into it, not into DEST/SOURCE.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd cmp getfattr
t_mount_fs ext4 64m "$T/ext"

R=$T/ref
mkdir -p "$R/sub"
head -c 7000 /dev/urandom >"$R/t"
head -c 3000 /dev/urandom >"$R/u"

# -L inside a tree: card/l -> t.
mkdir -p "$T/s/card/sub"
cp "$R/t" "$T/s/card/t" && cp "$R/u" "$T/s/card/sub/u" && ln -s t "$T/s/card/l"
run_fcp --move -L "$T/s/card" "$T/ext/photos"
check_rc 1 "--move -L with a symlink in the tree"
check_grep "not removing '$T/s/card/l': a symlink followed [(]-L[)]: what it points to was copied, not the link, so the link stays" "$T/err"
check_nogrep "its copy differs" "$T/err"
check_link "$T/s/card/l" "the followed symlink stays"
check_eq "$(readlink "$T/s/card/l")" t "the link kept as it was"
cmp -s "$R/t" "$T/ext/photos/l" || fail "photos/l is not what the link pointed to"
cmp -s "$R/t" "$T/ext/photos/t" || fail "photos/t"
cmp -s "$R/u" "$T/ext/photos/sub/u" || fail "photos/sub/u"
check_absent "$T/s/card/t" "moved: t"
check_absent "$T/s/card/sub" "moved: sub"

# -H: a symlink SOURCE to a directory, moved three times into DEST, which
# the first run makes.
mkdir -p "$T/h/d"
cp "$R/t" "$T/h/d/t" && ln -s d "$T/h/top"
for run in 1 2 3; do
	run_fcp -v --move -H "$T/h/top" "$T/ext/hp"
	check_rc 1 "--move -H of a symlink SOURCE, run $run"
	check_grep "not removing '$T/h/top': a symlink on the command line followed [(]-H[)]: what it points to was copied, not the link, so the link stays" "$T/err"
	check_nogrep "its copy differs" "$T/err"
	getfattr -n user.fastcp.move "$T/ext/hp" >/dev/null 2>&1 ||
		fail "run $run: the copy lost the move's mark while its source stays"
	[ $run = 1 ] || check_grep "2 unchanged, 0 with metadata updated" "$T/err"
done
check_link "$T/h/top" "the followed symlink SOURCE stays"
cmp -s "$R/t" "$T/h/d/t" || fail "the directory it points to is left as it was"
cmp -s "$R/t" "$T/ext/hp/t" || fail "hp/t"
check_absent "$T/ext/hp/top" "a re-run went into DEST/SOURCE"
check_eq "$(find "$T/ext/hp" | wc -l)" 2 "the copy holds t only"
echo "--move -L / -H: a followed symlink stays, said truly; the copy keeps its mark"
