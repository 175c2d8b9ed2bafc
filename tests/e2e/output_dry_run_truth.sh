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
