#!/bin/bash
# --gitignore (issue 20): .gitignore files at every level, with git's own
# rules (negation, anchoring, directory-only patterns, '**', escapes, a
# deeper file overriding a higher one, nothing re-included inside an
# ignored directory, .git itself left out). The files copied must be
# exactly what `git ls-files --others --cached --exclude-standard` lists.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd git

mkdir -p repo && cd repo || exit 1
git init -q . || skip "git init failed"
mk() { for f in "$@"; do mkdir -p "$(dirname "$f")" && printf '%s\n' "$f" >"$f"; done; }
printf '%s\n' '*.log' '!important.log' '/build/' 'node_modules/' 'docs/**/*.pdf' 'tmp*' \
	'!tmpkeep' '\#lit' 'trail\ ' 'ignoreddir/' '!ignoreddir/keep' 'a/**/z' '# a comment' \
	'spaced   ' '**/gen/out' >.gitignore
mk a.log important.log main.c build/out.o src/build/keep.c node_modules/x.js \
	src/node_modules/y.js docs/a/b/c.pdf docs/top.pdf docs/readme tmp1 tmpkeep '#lit' \
	'trail ' trail ignoreddir/keep ignoreddir/other a/z a/b/c/z a/b/zz spaced \
	x/y/gen/out gen/out gen/other '# a comment'
printf '%s\n' '*.gen' '!keep.gen' '/local' 'sub/' >src/.gitignore
mk src/a.gen src/keep.gen src/local src/x/local src/sub/f src/x/sub/f src/deeper/d.log \
	src/deeper/e.txt
printf '%s\n' '!*.log' >src/deeper/.gitignore
mkdir -p logs && printf '%s\n' '*' '!.gitignore' >logs/.gitignore
mk logs/today.log logs/sub/old
printf '%s\n' '!x' >ignoreddir/.gitignore
mk ignoreddir/x
mkdir -p odd/.gitignore && mk odd/.gitignore/f odd/a.log   # an ignore "file" that is a directory
mkdir -p linked && ln -s ../src/.gitignore linked/.gitignore  # not followed, as git
mk linked/a.gen linked/b.log
ln -s main.c link.c
ln -s a.log link.log
printf '%s\n' 'info-excluded' '!not-excluded.log' >.git/info/exclude
mk info-excluded sub/info-excluded not-excluded.log
git add main.c src/keep.gen || fail "git add"
git ls-files -z --others --cached --exclude-standard | tr '\0' '\n' | LC_ALL=C sort >"$T/want"
cd "$T" || exit 1

run_fcp -v --gitignore -T repo copy
check_rc 0 "--gitignore"
(cd copy && find . \( -type f -o -type l \) -print | sed 's|^\./||' | LC_ALL=C sort) >"$T/got"
note "git lists: $(tr "\n" " " <"$T/want")"
diff -u "$T/want" "$T/got" || fail "the copy differs from git ls-files (- git, + copy)"
check_absent copy/.git ".git copied"
check_grep "^fastcp: [0-9]+ excluded" "$T/err"
# Plain copy: everything (the test would pass vacuously otherwise).
run_fcp -T repo plain
check_file "plain/ignoreddir/x"
exit 0
