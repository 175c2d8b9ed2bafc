#!/bin/bash
# A dry run lists exactly what the run does, deletions included, and -v,
# --itemize-changes and the summary say the same (man fastcp, --dry-run):
# over trees where --delete makes room for a type change, where -m prunes
# new and old directories, where two SOURCEs merge, where -n, -u and
# --ignore-existing keep a file, where a directory is there without
# --sync, and where only metadata changes. Each case is checked against
# what find and getfattr see change (tests/lib/dryrun.sh).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
. "$TESTLIB/dryrun.sh" || exit 1
t_init
need_fastcp
need_cmd getfattr

# 1. A type change under --mirror -m: a file where DEST has a directory
# with content, a directory where it has a file and where it has a symlink.
types() {
	mkdir -p src/old src/keep src/df src/dl dst/x/sub dst/old
	echo src >src/x; echo k >src/keep/k; echo f >src/df/f; echo l >src/dl/l
	echo d >dst/x/data; echo p >dst/x/sub/p2; echo e >dst/old/user.txt
	echo was a file >dst/df; ln -s elsewhere dst/dl
}
dry_equals_real types types dst --mirror -m -T src dst
dry_equals_real types_delete types dst --delete -a -T src dst
dry_equals_real types_sync types dst --sync --delete -a -T src dst

# 2. -m: a directory that would hold only excluded files, and an empty
# one, are neither made nor listed; under --delete the ones DEST had go,
# listed as deletions.
pruned_new() {
	mkdir -p src/keep src/sub src/empty
	echo 1 >src/keep/a.txt; echo 2 >src/sub/b.log
	mkdir dst
}
dry_equals_real pruned_new pruned_new dst -m -a --exclude '*.log' -T src dst
pruned_old() {
	pruned_new
	mkdir -p dst/sub dst/empty dst/keep dst/sub/deeper
	echo x >dst/sub/old
	echo kept >dst/sub/deeper/c.log # excluded: it stays, and its directories
}
dry_equals_real pruned_old pruned_old dst -m --delete -a --exclude '*.log' -T src dst
dry_equals_real pruned_all pruned_old dst -m --delete -a --delete-excluded --exclude '*.log' -T src dst

# 3. A symlink replaced under --mirror -m, alone in its directory, and a
# directory replaced by a symlink.
links() {
	mkdir -p src/d dst/d src/e dst/e/l
	ln -s new-target src/d/l; ln -s old-target dst/d/l
	ln -s t src/e/l; echo x >dst/e/l/f
}
dry_equals_real links links dst --mirror -m -T src dst

# 4. Two SOURCEs of one name: their copy's extras are listed once.
merged() {
	mkdir -p a/x b/x dst/x/gone
	echo 1 >a/x/f1; echo 2 >b/x/f2; echo 3 >dst/x/extra; echo 4 >dst/x/gone/g
	# One time for both (a coarse clock may give them one or not): the
	# second round finds x's metadata set, in the run and the dry run.
	touch -d '2020-01-01' a/x b/x
}
dry_equals_real merged merged dst --mirror a/x b/x dst

# 5. A differing file kept by -n, -u, --ignore-existing: "keep" in the
# dry run and at -vv, never "unchanged" (VOCABULARY).
kept() {
	mkdir src dst
	echo new data >src/a; echo old >dst/a
	touch -d '2020-01-01' src/a
}
for opt in -n -u --ignore-existing; do
	dry_equals_real "kept$opt" kept dst "$opt" -a -T src dst
	[ -z "${DR_ONLY:-}" ] || [ "$DR_ONLY" = "kept$opt" ] || continue
	cd "$T/kept$opt.v" && rm -rf src dst && kept
	run_fcp --dry-run -vv "$opt" -a -T src dst
	check_grep "^keep 'dst/a'$" "$T/out"
	run_fcp -vv "$opt" -a -T src dst
	check_grep "^keep 'dst/a'$" "$T/out"
	check_nogrep "unchanged 'dst/a'" "$T/out"
	check_eq "$(cat dst/a)" old "$opt kept the file"
	cd "$T"
done

# 6. A directory DEST had, without --sync: given its metadata, not made.
there() {
	mkdir -p src/sub dst/sub
	echo 1 >src/sub/f
	chmod 700 src/sub
}
dry_equals_real there there dst -a -T src dst

# 7. Metadata alone: --size-only beside another mtime, an xattr alone.
meta() {
	mkdir src
	echo aaa >src/a; echo bbb >src/b
	"$FASTCP" -a -T src dst >/dev/null 2>&1 || fail "the first copy"
	touch -d '2021-01-01' src/a
	setfattr -n user.k -v v src/b || skip "no user xattrs here"
}
dry_equals_real meta meta dst --sync --size-only -a -T src dst
for f in a b; do
	[ -z "${DR_ONLY:-}" ] || [ "$DR_ONLY" = meta ] || break
	check_grep "^update metadata 'dst/$f'$" "$T/meta.dry"
done

# 8. All of it at once: nested directories -m prunes, some DEST had, a
# hard link, a symlink, a FIFO, excluded files, under --mirror and not.
mixed() {
	mkdir -p src/a/b/c src/e1/e2 src/l src/f src/h1 src/h2 src/x dst/a/b/c/old dst/e1 dst/z/y
	echo 1 >src/h1/f; ln src/h1/f src/h2/g; ln -s nowhere src/l/s; mkfifo src/f/p
	echo 2 >src/x/only.log; echo 3 >dst/z/y/q; echo 4 >dst/a/b/c/old/o.log; echo 5 >dst/e1/k
}
dry_equals_real mixed mixed dst --mirror -m -H --exclude '*.log' -T src dst
dry_equals_real mixed_delete mixed dst --delete -a -m -T src dst
dry_equals_real mixed_new mixed dst -a -m -T src dst
dry_equals_real mixed_sync mixed dst --sync -a -m --exclude '*.log' -T src dst

# 9. -m --mirror with filters: a directory DEST had that holds only an
# excluded file stays with it, in the run and so in the dry run (no
# delete line, no deletion counted).
filtered() {
	mkdir -p src/x dst/x
	echo t >src/x/t.txt; echo "dest-only data" >dst/x/t.txt
}
dry_equals_real filtered filtered dst -m --mirror --include '*/' --include '*.c' --exclude '*' -T src dst
# The same where the file is left out by its size.
sized() {
	mkdir -p src/x dst/x
	head -c 5000 /dev/zero >src/x/big; echo "dest-only data" >dst/x/big
}
dry_equals_real sized sized dst -m --delete --max-size 100 -T src dst
if [ -z "${DR_ONLY:-}" ] || [ "$DR_ONLY" = filtered ]; then
	check_nogrep "^delete " "$T/filtered.dry"
	check_eq "$(cat "$T/filtered.v/dst/x/t.txt")" "dest-only data" "the excluded file"
fi

# 10. Another type in the way without --delete (a file where the source
# has a directory, a directory where it has a file): the run fails both
# items and exits 1; the dry run says the same failures and exits 1,
# listing neither as an update nor what is inside as a copy.
in_way() {
	mkdir -p src/dd dst/ff
	echo n >src/dd/n; echo f >src/ff
	echo x >dst/dd; echo y >dst/ff/y
}
for opt in "" --sync -u -n; do
	name=in_way${opt:-_plain}
	dry_equals_real "$name" in_way dst $opt -T src dst
	[ -z "${DR_ONLY:-}" ] || [ "$DR_ONLY" = "$name" ] || continue
	check_eq "$(cat "$T/$name.i/dst/dd")" x "$name: the file in the way"
	check_eq "$(cat "$T/$name.i/dst/ff/y")" y "$name: the directory in the way"
	check_nogrep "'dst/dd/n'" "$T/$name.dry"
	check_grep "^fastcp: 2 items failed$" "$T/$name.dry_err"
done

# 11. Two SOURCEs of one name, a file f in one and a directory f in the
# other, where DEST has f (a file, then a directory): the one whose type
# differs from what is there when its round comes fails, and nothing of
# it is listed.
merged_types() {
	mkdir -p a/x b/x/f dst/x
	echo 1 >a/x/f; echo in >b/x/f/inner
	if [ "$1" = dir ]; then mkdir dst/x/f; echo o >dst/x/f/o; else echo old >dst/x/f; touch -d '2019-01-01' dst/x/f; fi
	# (One time for both: the second round finds x's metadata set.)
	touch -d '2020-01-01' a/x b/x
}
merged_file() { merged_types file; }
merged_dir() { merged_types dir; }
dry_equals_real merged_file merged_file dst --mirror -a a/x b/x dst
dry_equals_real merged_dir merged_dir dst --mirror -a a/x b/x dst
if [ -z "${DR_ONLY:-}" ] || [ "$DR_ONLY" = merged_file ]; then
	check_eq "$(grep -c "^update 'dst/x/f'$" "$T/merged_file.dry")" 1 "merged_file: updates of dst/x/f"
	check_nogrep "inner" "$T/merged_file.dry"
fi

# 12. --move -u keeping a newer file: its source stays, said (exit 1) by
# the dry run as by the run.
move_kept() {
	mkdir src dst
	echo new >src/a; echo newer >dst/a; touch -d '2020-01-01' src/a
	echo b >src/b
}
if [ -z "${DR_ONLY:-}" ] || [ "$DR_ONLY" = move_kept ]; then
	mkdir "$T/move_kept" && cd "$T/move_kept" || fail "cannot make $T/move_kept"
	move_kept
	run_fcp --dry-run --move -u -T src dst
	check_rc 1 "move_kept: the dry run"
	check_grep "^fastcp: not removing 'src/a': what is at its destination is not its copy" "$T/err"
	check_grep "^copy 'dst/b'$" "$T/out"
	check_eq "$(cat src/a src/b dst/a)" "$(printf 'new\nb\nnewer')" "move_kept: the dry run changed nothing"
	run_fcp --move -u -T src dst
	check_rc 1 "move_kept: the run"
	check_grep "^fastcp: not removing 'src/a': what is at its destination is not its copy" "$T/err"
	check_eq "$(cat src/a dst/a dst/b)" "$(printf 'new\nnewer\nb')" "move_kept: the run"
	cd "$T" || fail "cd $T"
fi

# 13. --move where another type is in the way (without --delete, and
# kept by --ignore-existing): the items fail and their sources stay; the
# dry run says the same messages and exits 1. Each failed item is named
# once, by its failure, and counted once (not again as a source left).
move_in_way() {
	mkdir -p src/a dst/b
	echo A >src/a/x; echo srcb >src/b; echo new >src/new
	echo FILE >dst/a; echo KEEP >dst/b/y
}
for opts in "--move" "--move --ignore-existing --delete"; do
	name="move_in_way ${opts}"
	[ -z "${DR_ONLY:-}" ] || [ "$DR_ONLY" = "$name" ] || continue
	rm -rf "$T/mw" && mkdir "$T/mw" && cd "$T/mw" || fail "cannot make $T/mw"
	move_in_way
	find src dst -printf '%p %y %s\n' | sort >"$T/mw.before"
	# shellcheck disable=SC2086
	run_fcp --dry-run $opts -T src dst
	drc=$RC
	cp "$T/err" "$T/mw.dry_err"
	dr_failures_ "$T/err" >"$T/mw.dry_fails"
	find src dst -printf '%p %y %s\n' | sort | diff "$T/mw.before" - ||
		fail "$name: the dry run changed something"
	# shellcheck disable=SC2086
	run_fcp $opts -T src dst
	check_rc 1 "$name: the run"
	check_eq "$drc" 1 "$name: the dry run's exit status"
	dr_failures_ "$T/err" | diff - "$T/mw.dry_fails" ||
		fail "$name: the dry run's messages (>) are not the run's (<)"
	check_grep "'dst/a'" "$T/err"
	check_grep "'(src|dst)/b'" "$T/err"
	check_nogrep "not removing" "$T/err"
	check_grep "^fastcp: 2 items failed$" "$T/err"
	check_grep "^fastcp: 2 items failed$" "$T/mw.dry_err"
	check_eq "$(cat src/a/x src/b dst/a dst/b/y)" "$(printf 'A\nsrcb\nFILE\nKEEP')" "$name: the sources and what was in the way"
	cd "$T" || fail "cd $T"
done
