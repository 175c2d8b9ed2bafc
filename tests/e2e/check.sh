#!/bin/bash
# --check, issue 19: a copy equal to its source checks clean (exit 0, no
# output) and nothing is written, not even an access time; then each kind
# of difference gives its one line (check.h, man page) and exit 1: content
# of the same size and mtime, size, type, symlink target, device number,
# hard-link structure, mode, owner, mtime, xattrs, a missing file, a
# missing directory (once), extras (a directory once). Several SOURCEs go
# into DEST as the copy places them; bad usage is exit 2; an unreadable
# file is an error with its path, exit 1.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
# Times in its lines are local (ISO 8601): UTC, so that they can be written here.
export TZ=UTC
# flip FILE OFFSET: one byte changed for sure (random data may hold an X).
flip() {
	local b
	b=$(dd if="$1" bs=1 skip="$2" count=1 status=none)
	[ "$b" = X ] && b=Y || b=X
	printf '%s' "$b" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
need_fastcp
need_treecmp
need_root "the sample tree has devices and owners"
need_cmd setfattr strace
need_built HAVE_XXHASH "built without libxxhash: --check needs it"

t_mktree src nodeep
run_fcp -T src dst
check_rc 0 "copy"
check_tree src dst

# Old access times everywhere: under relatime a read would move them.
# The snapshots stat a list made before (a find would read directories).
find src dst -print0 | sort -z >names
find src dst ! -type l -exec touch -a -d @1000000000 {} +
# A symlink's atime is left out: readlink(2) moves it, and has no
# O_NOATIME (documented).
snap() {
	local n
	while IFS= read -r -d '' n; do
		[ -L "$n" ] && stat -c '%n %Z.%z %i' "$n" || stat -c '%n %X.%x %Z.%z %i' "$n"
	done <names 2>/dev/null
}
snap >before
FCP_WRAP="strace -f -qq -o $T/trace -e trace=openat,write,pwrite64,renameat,renameat2,linkat,unlinkat,mkdirat,mknodat,symlinkat,fchmod,fchmodat,fchown,fchownat,utimensat,fsetxattr,setxattr,lsetxattr,fremovexattr,lremovexattr" \
	run_fcp --check -T src dst
check_rc 0 "check of an equal copy"
check_eq "$(cat "$T/out")" "" "an equal copy has no difference lines"
check_nogrep "O_WRONLY|O_RDWR|O_CREAT|O_TMPFILE|rename|linkat\(|unlinkat|mkdirat|mknodat|symlinkat|chmod|chown|utimensat|setxattr|removexattr" "$T/trace"
# Small files are opened and read through io_uring (check_uring.c), which
# strace does not show: the snapshots below (ctime and atime of every name,
# DEST's included) are what prove that nothing was written.
# No atime left behind: the sources were read with O_NOATIME (the reads
# themselves are proven by "content differs" below).
snap >after
diff before after >/dev/null || { diff before after | head; fail "--check changed an access time, ctime or inode"; }

# Several SOURCEs into DEST, as the copy places them.
mkdir multi
run_fcp src/files src/hard multi
check_rc 0 "copy of two operands"
run_fcp --check src/files src/hard multi
check_rc 0 "check of two operands"

# One change of each kind; every line says SOURCE's side first.
flip dst/files/medium 3
touch -m -r src/files/medium dst/files/medium        # same size, same mtime
printf 'more\n' >>dst/files/small && touch -m -r src/files/small dst/files/small
rm dst/special/fifo && printf 'f\n' >dst/special/fifo && touch -m -r src/special/fifo dst/special/fifo
rm dst/symlinks/dangling && ln -s elsewhere dst/symlinks/dangling
touch -h -m -r src/symlinks/dangling dst/symlinks/dangling
rm dst/special/char && mknod dst/special/char c 1 5 && touch -m -r src/special/char dst/special/char
cp -p dst/hard/b/pair dst/hard/b/pair.new && mv dst/hard/b/pair.new dst/hard/b/pair
chmod 0640 dst/modes/private
chown 65534:65534 dst/files/script
touch -m -d @1500000000.25 dst/files/empty
setfattr -n user.added -v 1 dst/xattr/file
rm dst/files/page_plus_one
rm -r dst/modes/sticky
printf 'extra\n' >dst/files/extra_file
mkdir -p dst/extra_dir/inner && printf 'x\n' >dst/extra_dir/inner/f
snap >before
run_fcp --check -T src dst
check_rc 1 "check of a changed copy"
size_small=$(stat -c %s src/files/small)
expect=(
	"content differs: 'dst/files/medium'"
	"size $size_small != $((size_small + 5)): 'dst/files/small'"
	"type fifo != file: 'dst/special/fifo'"
	"symlink target differs: 'dst/symlinks/dangling'"
	"device 1:3 != 1:5: 'dst/special/char'"
	"hard links differ: 'dst/hard/"
	"mode 0600 != 0640: 'dst/modes/private'"
	"owner 0:0 != 65534:65534: 'dst/files/script'"
	"mtime [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}\+0000 != 2017-07-14T02:40:00\.250000000\+0000: 'dst/files/empty'"
	"xattrs differ: 'dst/xattr/file'"
	"missing in DEST: 'dst/files/page_plus_one'"
	"missing in DEST: 'dst/modes/sticky'"
	"extra in DEST: 'dst/files/extra_file'"
	"extra in DEST: 'dst/extra_dir'"
)
for e in "${expect[@]}"; do
	grep -Eq "^$e" "$T/out" || fail "no line: $e"
done
# A missing or extra directory is one line, not one per entry in it.
check_nogrep "extra_dir/|modes/sticky/" "$T/out"
# The hard-link pair: the broken name (either side may be met first).
check_grep "^hard links differ: 'dst/hard/(a|b)/pair'$" "$T/out"
# Directories whose content changed have a new mtime: named as such. No
# other line: the rest is equal.
lines=$(grep -Ecv "^mtime [0-9T:.+-]* != [0-9T:.+-]*: 'dst(/files|/special|/symlinks|/hard/b|/modes|)'$" "$T/out")
check_eq "$lines" "${#expect[@]}" "difference lines besides the directories' mtimes"
snap >after
diff before after >/dev/null || { diff before after | head; fail "a check changed the copy"; }

# A difference in the source's side is seen the same way.
printf 'changed\n' >src/files/script.new && mv src/files/script.new src/files/script
run_fcp --check -T src/files/script dst/files/script
check_rc 1 "file against file"
check_grep "^size 8 != " "$T/out"

# Bad usage: exit 2, nothing said on stdout.
run_fcp --check -T src/files/small dst/files
check_rc 2 "a file against a directory"
check_grep "cannot check non-directory 'src/files/small' against directory 'dst/files'" "$T/err"
run_fcp --check -T src dst/files/small
check_rc 2 "a directory against a file"
for opt in --delete --mirror --move --dry-run; do
	run_fcp --check "$opt" src dst
	check_rc 2 "--check $opt"
done
run_fcp --check dst
check_rc 2 "one operand without --manifest"

# The differences as events too, one each, beside the lines; --dry-run's
# lines as plan events.
rm -rf ev ev/dst && mkdir -p ev/src ev/dst
echo a >ev/src/same; echo a >ev/dst/same; echo b >ev/src/f; echo c >ev/dst/f; echo g >ev/src/g
touch -r ev/src/same ev/dst/same
touch -r ev/src/f ev/dst/f # content alone differs (two echos may fall in two clock ticks)
touch -r ev/src ev/dst # and so may the folders' last changes
run_fcp --check --events "$T/events" -T ev/src ev/dst
check_rc 1 "check with differences, events"
check_grep "^{\"event\":\"difference\",.*\"what\":\"content differs\",\"path\":\"ev/dst/f\"}" "$T/events"
check_grep "^{\"event\":\"difference\",.*\"what\":\"missing in DEST\",\"path\":\"ev/dst/g\"}" "$T/events"
check_eq "$(grep -c '"event":"difference"' "$T/events")" "$(wc -l <"$T/out")" "one event per line printed"
run_fcp --dry-run --events "$T/events" -T ev/src ev/new
check_rc 0 "dry run, events"
check_grep "^{\"event\":\"plan\",.*\"action\":\"copy\",\"path\":\"ev/new/g\"}" "$T/events"
check_eq "$(grep -c '"event":"plan"' "$T/events")" "$(grep -vc '^fastcp: dry run' "$T/out")" \
	"one plan event per line printed"
check_eq "$(tail -n 1 "$T/out")" "fastcp: dry run, nothing changed: would copy 4 entries (3 files, 1 directory; 6 B), update 0 (0 B), update metadata of 0, delete 0" \
	"the closing line of a dry run"
check_absent ev/new
# --json: stdout is the JSON object alone; the lines go to stderr.
run_fcp --check --json -T ev/src ev/dst
check_rc 1 "check with differences, --json"
check_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["differences"])' "$T/out")" 2 \
	"--check --json: stdout is one JSON object"
# A check is no dry run to its reader, though it runs as one inside.
check_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["check"], d["dry_run"])' "$T/out")" \
	"True False" "--check --json: check, not a dry run"
check_grep "^content differs: 'ev/dst/f'" "$T/err"
run_fcp --dry-run -v --json -T ev/src ev/new
check_rc 0 "dry run, --json"
check_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["check"], d["dry_run"])' "$T/out")" \
	"False True" "--dry-run --json: a dry run"
check_grep "^copy 'ev/new/g'" "$T/err"
check_absent ev/new

# An unreadable source file: an error with its path, exit 1.
rm -rf dst
run_fcp -T src dst
check_rc 0 "copy again"
mkdir back mnt
cp -a src/files back/
faultfs_mount back mnt --match=medium --eio-at=0
run_fcp --check -T mnt/files dst/files
check_rc 1 "check with an unreadable file"
check_grep "^fastcp: cannot read 'mnt/files/medium'" "$T/err"
check_nogrep "medium" "$T/out"
echo "PASS"
