#!/bin/bash
# --dry-run, issue 18: one line per entry saying what would be copied,
# updated (data, or metadata only), deleted or left unchanged, and nothing
# changed at all: the destination is bit-for-bit and inode-for-inode the
# same afterwards, times included (ctime unchanged: not even a metadata
# write), with --sync, --checksum and --mirror too; a new root copy is not
# even begun. -n is not --dry-run (it stays cp's --no-clobber).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "the sample tree has devices and owners"
need_cmd md5sum getfattr

t_mktree src nodeep
run_fcp -T src dst
check_rc 0 "first copy"
printf 'more\n' >>src/files/small
chmod 0640 src/files/script
mkdir -p src/newdir/sub && printf 'n\n' >src/newdir/sub/f
rm src/symlinks/dangling && ln -s elsewhere src/symlinks/dangling
printf 'x\n' >dst/extra
mkdir -p dst/extradir/inner && printf 'y\n' >dst/extradir/inner/z
ln -s /etc dst/files/etc_link   # an extra symlink to a directory outside

# Reading a directory or file moves an atime older than its mtime once
# (relatime): read everything first so only fastcp could move one.
state() {
	(cd dst && find . -printf '%i %y %m %u %g %s %T@ %A@ %C@ %p\n' | sort -k10)
	(cd dst && find . -type f -exec md5sum {} + | sort -k2)
	(cd dst && getfattr -R -P -d -m - . 2>/dev/null)
}
state >/dev/null; state >/dev/null
state >before
t=0
for opts in "--dry-run" "--dry-run --sync -vv" "--dry-run --mirror" "--dry-run -c --mirror --max-delete 2"; do
	t=$((t + 1))
	# shellcheck disable=SC2086
	run_fcp $opts -T src dst
	cp "$T/out" "out.$t"
	state >after
	diff before after >/dev/null || { diff before after | head; fail "$opts changed the destination"; }
	check_no_temp dst
done
check_rc 1 "--max-delete 2 in a dry run: over the limit"

# What the plain dry run says (everything would be copied again).
check_grep "^update 'dst/files/many_1'$" out.1
check_grep "^mkdir 'dst/newdir'$" out.1
check_nogrep "^delete " out.1
# --sync -vv: one line per entry, each with its verb, what is left as it
# is too.
check_grep "^update 'dst/files/small'$" out.2
check_grep "^update metadata 'dst/files/script'$" out.2
check_grep "^unchanged 'dst/files/many_1'$" out.2
check_grep "^mkdir 'dst/newdir'$" out.2
check_grep "^copy 'dst/newdir/sub/f'$" out.2
check_grep "^update 'dst/symlinks/dangling'$" out.2
check_eq "$(grep -c . out.2)" "$(($(find src -mindepth 1 -printf x | wc -c) + 2))" \
	"one line per entry (and the root, and the closing line)"
check_grep "^fastcp: dry run, nothing changed: would copy [0-9]+ entr(y|ies) \(.*\), update [0-9]+ \(.*\), update metadata of [0-9]+, delete 0$" out.2
# --mirror: the extras too, a directory's content before it.
check_grep "^delete 'dst/extra'$" out.3
check_grep "^delete 'dst/extradir/inner/z'$" out.3
check_grep "^delete 'dst/extradir'$" out.3
check_grep "^delete 'dst/files/etc_link'$" out.3
check_nogrep "^delete 'dst/files/etc_link/" out.3
check_eq "$(grep -c '^delete ' out.4)" 2 "--max-delete 2: lines in a dry run"

# A new root copy: nothing is made, not even under a temporary name.
mkdir parent
run_fcp --dry-run src parent
check_rc 0 "dry run of a new copy"
check_grep "^mkdir 'parent/src'$" "$T/out"
check_grep "^copy 'parent/src/files/small'$" "$T/out"
check_eq "$(ls -A parent)" "" "a dry run made something in parent"

# -n is --no-clobber's letter in cp: never a dry run.
run_fcp -n src parent
[ "$RC" != 0 ] || [ -e parent/src ] || fail "-n was taken for --dry-run"
echo "dry run: told, nothing changed"
