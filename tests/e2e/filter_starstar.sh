#!/bin/bash
# rsync's "**" in --exclude rules, against a tree with x at several depths:
#   - "**/x" (and "**/x/", "**/b/x", "**/e/***") also match at the top of
#     the tree: rsync matches a pattern that begins with "**" against the
#     path with a '/' before it, so "**/" spans zero or more directories;
#   - "/**/x" (anchored) and "a/**/b" still need one directory or more;
#   - "x/***" is directory x and what is below it, not a file named x;
#   - where rsync is installed, each rule leaves out what rsync's does.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p s/x/y s/a/x s/a/b/x s/b s/a/b/c s/e/g s/a/e s/a/ab
touch s/x/y/f s/a/x/f s/a/b/x/f s/b/x s/a/b/c/x s/top s/xa s/e/g/f s/a/e/f s/a/b/f s/a/ab/b

list() { (cd "$1" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' '); }
# excluded RULE WANT: the entries of s that --exclude RULE leaves out.
excluded() {
	rm -rf d
	run_fcp --exclude "$1" -T s d
	check_rc 0 "--exclude '$1'"
	check_eq "$(comm -23 <(list s | tr ' ' '\n') <(list d | tr ' ' '\n') | tr '\n' ' ')" "$2" \
		"--exclude '$1' left out"
}
excluded '**/x' "a/b/c/x a/b/x a/b/x/f a/x a/x/f b/x x x/y x/y/f "
excluded '**/x/' "a/b/x a/b/x/f a/x a/x/f x x/y x/y/f "
excluded '**/b/x' "a/b/x a/b/x/f b/x "
excluded '**/e/***' "a/e a/e/f e e/g e/g/f "
excluded '/**/x' "a/b/c/x a/b/x a/b/x/f a/x a/x/f b/x "
excluded 'a/**/b' "a/ab/b "
excluded 'x/***' "a/b/x a/b/x/f a/x a/x/f x x/y x/y/f "

if command -v rsync >/dev/null; then
	for rule in '**/x' '**/x/' '**/b/x' '**/e/***' '***/x' '/**/x' 'a/**/b' 'a/**/x' \
		    '**/a/**' '**/b/**/x' 'x/***' '**/?' '**/[ex]/' '**x' 'x/**'; do
		rm -rf d r
		rsync -a --exclude "$rule" s/ r/ || fail "rsync --exclude '$rule'"
		run_fcp --exclude "$rule" -T s d
		check_rc 0 "--exclude '$rule'"
		check_eq "$(list d)" "$(list r)" "--exclude '$rule' against rsync's"
	done
else
	note "rsync not installed: not compared with it"
fi
echo "'**/' spans zero or more directories, as in rsync"
