#!/bin/bash
# What the documents tell an rsync user, checked against fastcp itself:
# the trailing slash (cp's rule: "fastcp -a s/ d/" with d there makes d/s;
# rsync's "s/ d" is fastcp's -T), the rows of the equivalent-options table
# that once misled (-t and -T against rsync's DEST/, rsync's -P, --partial),
# --gitignore leaving .git/ out, and the JSON keys updated (metadata only),
# replaced (data copied again, counted in files) and unchanged (directories
# included).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd man python3
cd "$T" || fail "cd $T"

# The table as a reader sees it.
MANWIDTH=120 man -l "$top_/man/fastcp.1" 2>/dev/null | sed -n '/Equivalent options/,/^VOCABULARY/p' >table
check_nogrep "\(DEST/?\)" table "the table names rsync's trailing slash on DEST"
check_grep "^ +-T +[=] +SRC/ DEST " table
check_grep "^ +-t DIR +[=] +SRC DIR " table
check_grep "^ +-P +[=] +-l \(not -P\)" table
check_grep "rsync's own -P \(--partial --progress\) +is +not" <(tr -s ' \n' ' ' <table)
check_grep "^ +--resume .*--partial \(refused\)" table
check_grep "trailing slash: .fastcp -a s/ d/. with .d. there makes .d/s." \
	<(tr -s ' \n' ' ' <"$top_/docs/cp-rsync.md")

# The trailing slash, as said.
mkdir -p s/x d
echo 1 >s/x/f
run_fcp -a s/ d/
check_rc 0 "fastcp -a s/ d/"
check_file d/s/x/f "cp's rule: d/s"
check_absent d/x
mkdir d2
run_fcp -T s/ d2
check_file d2/x/f "-T: the contents, as rsync -a s/ d2"

# --gitignore leaves .git/ out, as the documents say.
mkdir -p g/.git/objects
echo ref >g/.git/HEAD
echo '*.o' >g/.gitignore
echo src >g/a.c
: >g/a.o
run_fcp --gitignore -T g gd
check_rc 0 "--gitignore"
check_absent gd/.git ".git/ copied"
check_file gd/a.c
check_absent gd/a.o
check_grep '\.git/. itself is left out' "$top_/README.md"
check_grep '\.git/. itself is left out' <(tr -s ' \n' ' ' <"$top_/docs/filters.md")

# The JSON keys, as defined.
MANWIDTH=200 man -l "$top_/man/fastcp.1" 2>/dev/null | tr -s ' \n' ' ' >man.txt
check_grep "updated \(items whose data was the same, given only their metadata" man.txt
check_grep "replaced \(of files and the like, those whose data was copied again" man.txt
check_grep "unchanged \(items found up to date and not touched, directories included" man.txt
mkdir -p j/sub
echo a >j/a; echo b >j/b; echo c >j/sub/c
run_fcp -T j jd
echo aa >j/a
chmod 600 j/b
run_fcp --sync --json -T j jd
check_rc 0 "--sync --json"
python3 - "$T/out" <<'PY' || fail "the JSON keys do not mean what the man page says"
import json, sys
d = json.load(open(sys.argv[1]))
# a: data copied again (replaced, in files); b: its mode only (updated);
# sub/c, j and sub: unchanged, the two directories among them.
got = (d['files'], d['replaced'], d['updated'], d['unchanged'], d['unchanged_directories'])
assert got == (1, 1, 1, 3, 2), got
PY
echo "the documents' rsync claims hold"
