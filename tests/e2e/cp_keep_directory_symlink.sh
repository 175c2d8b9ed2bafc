#!/bin/bash
# cp's --keep-directory-symlink, and rsync's -K (--keep-dirlinks) as the
# same option (issue 35): where SOURCE has a directory and DEST, at that
# place, a symlink to a directory, the copy goes into the directory the
# symlink leads to; the symlink stays, untouched. Compared with GNU cp on
# the same layout: with --keep-directory-symlink where this cp has it,
# else (cp before it, 9.1 here) its meaning spelled by hand (the other
# entries copied into DEST, the directory's contents into the one the
# symlink leads to, which gets the directory's metadata too, as cp -a
# gives it). Without the option nothing changes: the item fails, as
# before, and nothing is written through the symlink. A dangling symlink
# and one to a file are not followed, with the option too. A symlinked
# root copy (-T SRC LINK, SRC DIR/ where DIR/SRC is one) and SRC/. DEST/
# work as cp's do; a dry run says what the run does; a second run with
# --sync changes nothing; hard links across the symlink stay links; -n
# merges into the directory, keeping its files.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd cp

t_mktree src/sub nodeep
mkdir src/other
printf 'top\n' >src/top
printf 'other\n' >src/other/o
printf 'linked across\n' >src/sub/hl
ln src/sub/hl src/hl_outside
touch -d "$T_TIME1" src/sub/hl src/other/o src/top src/other
touch -d "$T_TIME2" src/sub
touch -d "$T_TIME3" src

# DEST and the directory its symlink leads to, made alike under $1.
layout() {
	mkdir -p "$1/dest" "$1/far/sub"
	printf 'already there\n' >"$1/far/sub/keep"
	printf 'mine\n' >"$1/far/beside"
	ln -s ../far/sub "$1/dest/sub"
	touch -d "$T_TIME1" "$1/far/sub/keep" "$1/far/beside" "$1/far/sub" "$1/far" "$1/dest"
	touch -h -d "$T_TIME3" "$1/dest/sub"
}
layout A
layout G
layout N
beside=$(cat A/far/beside)
lstat_of() { stat -c '%i %y %U %N' "$1"; }
link_before=$(lstat_of A/dest/sub)

# GNU cp: the reference.
if cp --keep-directory-symlink --version >/dev/null 2>&1; then
	cp -a --keep-directory-symlink -T src G/dest || fail "GNU cp --keep-directory-symlink"
else
	note "cp $(cp --version | sed -n '1s/.* //p') has no --keep-directory-symlink: its meaning by hand"
	for e in src/*; do
		[ "$e" = src/sub ] || cp -a "$e" G/dest/ || fail "GNU cp -a $e"
	done
	cp -a src/sub/. G/far/sub/ || fail "GNU cp -a src/sub/. G/far/sub/"
	# cp -a links the two names again within one run.
	rm G/dest/hl_outside && ln G/far/sub/hl G/dest/hl_outside
	chmod --reference=src G/dest && touch -d "$T_TIME3" G/dest
fi

# Before: refused (exit 2); now followed.
run_fcp --keep-directory-symlink -T src A/dest
check_rc 0 "--keep-directory-symlink"
check_link A/dest/sub "the symlink in DEST"
check_eq "$(lstat_of A/dest/sub)" "$link_before" "the symlink itself (inode, mtime, owner, target)"
check_eq "$(cat A/far/sub/keep)" "already there" "a file of the directory it leads to"
check_eq "$(cat A/far/beside)" "$beside" "a file beside it"
check_tree G/dest A/dest
check_tree G/far A/far
check_eq "$(stat -c %i A/far/sub/hl)" "$(stat -c %i A/dest/hl_outside)" \
	"a hard link across the symlink: one inode"
check_no_temp A

# Again, with --sync: all of it up to date, nothing written.
touch -h -d "$T_TIME1" A/far/sub/keep
ctime=$(stat -c %z A/far/sub/files/small)
run_fcp -K --sync -v -T src A/dest
check_rc 0 "-K --sync again"
check_eq "$(cat "$T/out")" "" "what a second run did (-v)"
check_eq "$(stat -c %z A/far/sub/files/small)" "$ctime" "a file touched by the second run"
check_tree G/far A/far

# rsync's spellings, -K and --keep-dirlinks: the same copy.
for k in -K --keep-dirlinks; do
	layout "R$k"
	run_fcp "$k" -T src "R$k/dest"
	check_rc 0 "$k"
	check_tree G/far "R$k/far"
	check_tree G/dest "R$k/dest"
done

# -n: the symlink to a directory counts as the directory (merged into,
# not "a non-directory in the way"), and a file there is kept.
layout Q
mkdir Q/far/sub/files
printf 'not replaced\n' >Q/far/sub/files/small
run_fcp -K -n -T src Q/dest
check_rc 0 "-K -n"
check_eq "$(cat Q/far/sub/files/small)" "not replaced" "a file -n keeps, through the symlink"
check_eq "$(t_sums Q/far/sub | grep -c .)" "$(t_sums src/sub | grep -c . | awk '{print $1 + 1}')" \
	"files through the symlink under -n (the source's and keep)"

# Without the option: as before, the item fails, nothing is followed.
sums=$(t_sums N)
run_fcp -T src N/dest
check_rc 1 "without -K"
check_grep "cannot replace non-directory 'N/dest/sub'" "$T/err"
check_link N/dest/sub
check_eq "$(t_sums N/far)" "$(cd N && t_sums far)" "N/far"
check_eq "$(cd N && find far -newer dest/sub | wc -l)" 0 "N/far changed without -K"
check_eq "$(t_sums N | grep -v '/dest/' | sort)" "$(echo "$sums" | grep -v '/dest/' | sort)" \
	"outside DEST without -K"

# A dangling symlink, one to a file: not followed, with -K too, and the
# same words as without.
for how in dangling file; do
	mkdir -p "D$how/dest"
	printf 'a file\n' >"D$how/file"
	if [ $how = dangling ]; then ln -s ../nowhere "D$how/dest/sub"; else ln -s ../file "D$how/dest/sub"; fi
	run_fcp -T src "D$how/dest"
	check_rc 1 "$how symlink, without -K"
	grep -v "^fastcp: [0-9]" "$T/err" | sed "s/D$how/D/" >"$T/without"
	run_fcp -K -T src "D$how/dest"
	check_rc 1 "$how symlink, -K"
	grep -v "^fastcp: [0-9]" "$T/err" | sed "s/D$how/D/" >"$T/with"
	check_eq "$(cat "$T/with")" "$(cat "$T/without")" "-K's words for a $how symlink"
	check_grep "cannot replace non-directory 'D$how/dest/sub'" "$T/err"
	check_eq "$(cat "D$how/file")" "a file" "the file a symlink leads to"
	check_absent "D$how/nowhere"
done

# A dry run says the run's lines (DEST's own metadata aside: new there).
layout Y
sums=$(t_sums Y)
run_fcp -K --dry-run -T src Y/dest
check_rc 0 "-K --dry-run"
check_eq "$(t_sums Y)" "$sums" "a dry run changed something"
check_grep "^copy 'Y/dest/sub/files/small'" "$T/out"
check_grep "^copy 'Y/dest/hl_outside'|^link 'Y/dest/hl_outside'" "$T/out"
grep -c "^copy\|^link\|^mkdir" "$T/out" >"$T/dry.n"
layout Z
run_fcp -K --sync -v -T src Z/dest
check_rc 0 "-K --sync -v (the run the dry run is of)"
check_eq "$(grep -c "^'src" "$T/out")" "$(cat "$T/dry.n")" "lines of the dry run and of the run"
check_tree G/far Z/far

# The root copy's own name a symlink: -T SRC LINK, and SRC DIR/ where
# DIR/SRC is one; SRC/. DEST/ with DEST/sub one, cp's way of merging.
mkdir -p top/el top/in
ln -s el top/link
run_fcp -K -T src top/link
check_rc 0 "-K -T src link"
check_link top/link
check_tree src top/el --no-links
mkdir top/el2
ln -s ../el2 top/in/src
run_fcp -K src top/in/
check_rc 0 "-K src dir/ (dir/src a symlink)"
check_link top/in/src
check_tree src top/el2 --no-links
check_absent top/in/.fcp-*
layout M
run_fcp -K src/. M/dest/
check_rc 0 "-K src/. dest/"
check_tree G/far M/far
run_fcp -T src top/link
check_rc 1 "-T src link without -K"
check_grep "cannot replace non-directory 'top/link'" "$T/err"
echo "keep-directory-symlink ok"
