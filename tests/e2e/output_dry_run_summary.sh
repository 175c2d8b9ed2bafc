#!/bin/bash
# A dry run's summary is its "would" line: on a terminal (util-linux
# script), with -v too, no "copied 0 files (0 B)..." lines of the copy it
# did not make come before it; --stats asks for them. The would-line
# counts entries of every kind, and says so by kind, so that 17 is not
# read as 17 files.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd script
cd "$T" || fail "cd $T"

mkdir -p s/sub1 s/sub2
for i in 1 2 3; do echo "$i" >"s/sub1/f$i"; done
echo four >s/sub2/f4
ln -s sub1/f1 s/link
snap() { find s d -printf '%p %s %T@\n' 2>/dev/null | sort; }
snap >before
n=$(find s | wc -l) nf=$(find s -type f | wc -l) nd=$(find s -type d | wc -l)
nl=$(find s -type l | wc -l) bytes=$(cat s/sub*/f* | wc -c)
[ $((nf + nd + nl)) = "$n" ] || fail "the tree holds another kind"
want="would copy $n entries \\($nf files, $nd directories, $nl symlink; $bytes B\\), update 0 \\(0 B\\)"

for opts in "" "-v"; do
	script -qfc "'$FASTCP' --dry-run $opts s d" "$T/tty" >/dev/null </dev/null
	tr -d '\r' <"$T/tty" >"$T/lines"
	check_nogrep "^fastcp: copied 0 files" "$T/lines"
	check_nogrep "I/O operations|CPU [0-9]+%|^fastcp: data:" "$T/lines"
	check_grep "^fastcp: dry run, nothing changed: $want" "$T/lines"
	check_absent d "the dry run made DEST"
done
script -qfc "'$FASTCP' --dry-run --stats s d" "$T/tty" >/dev/null </dev/null
tr -d '\r' <"$T/tty" >"$T/lines"
check_grep "^fastcp: copied 0 files" "$T/lines" "--stats: the summary asked for"
check_grep "^fastcp: dry run, nothing changed: $want" "$T/lines"
snap >after
diff before after || fail "the dry run changed something"
echo "dry run: the would-line alone, its counts by kind"
