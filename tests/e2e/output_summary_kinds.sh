#!/bin/bash
# The summary's first line and its table agree: the table's first row,
# "entries", counts every item but directories (files, symlinks, hard
# links, special files: the first line's counts added up), not "files".
# --dedup=hardlink counts the links it makes as hard links, says each on
# -v and in --log ("link"), so the line no longer says "0 hard links"
# right after making two.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

# first N: the first line's count of the kind N (file, symlink, ...).
first() { sed -nE "s/^fastcp: copied (.*[ (])?([0-9]+) $1s?[,( ].*/\\2/p" "$T/err" | head -1; }
# cells ROW: the table row's cells, spaces squeezed.
cells() { grep -E "^fastcp: $1 " "$T/err" | tr -s ' ' | cut -d' ' -f3-; }

mkdir -p s/sub
echo one >s/a; echo two >s/sub/b; ln -s a s/l; mkfifo s/p
run_fcp -v -T s d
check_rc 0 "a copy of 2 files, a symlink, a FIFO"
check_eq "$(first file)" 2 "files on the first line"
check_eq "$(first symlink)" 1 "symlinks on the first line"
check_eq "$(first 'special file')" 1 "special files on the first line"
check_eq "$(cells entries)" "4 4 0 0 - 0" "the table's entries: files, symlink, FIFO"
check_eq "$(cells directories)" "2 2 0 - - 0" "the table's directories"
check_nogrep "^fastcp: files " "$T/err" "a row named files that counts more than files"

# --dedup=hardlink: three equal files, one copied and two linked to it.
mkdir dup
for n in x y z; do head -c 65536 /dev/zero | tr '\0' q >"dup/$n"; done
run_fcp -v --log "$T/log" --dedup=hardlink -T dup dd
check_rc 0 "--dedup=hardlink"
check_eq "$(stat -c %h dd/x)" 3 "links of the one inode"
check_eq "$(first file)" 1 "files copied"
check_eq "$(first 'hard link')" 2 "hard links made by --dedup"
check_grep "^fastcp: deduplicated 2 files as hard links" "$T/err"
check_eq "$(cells entries)" "3 3 0 0 - 0" "the table's entries: one copy, two links"
check_eq "$(grep -c "^'dup/[xyz]' -> 'dd/[xyz]'$" "$T/out")" 3 "-v lines of the three names"
check_eq "$(grep -c "^link	dup/[xyz]	" "$T/log")" 2 "--log lines of the two links"
for n in x y z; do cmp -s "dup/$n" "dd/$n" || fail "dd/$n differs from its source"; done
echo "summary: the table's rows count what the first line counts; --dedup's links counted"
