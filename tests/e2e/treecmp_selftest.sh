#!/bin/bash
# treecmp checks the copies of every other test, so it is tested first on its
# own: identical trees (made with cp -a / rsync -aHAXS) compare equal, and
# each kind of difference it promises to find is found, one at a time, with
# the path of the changed entry in its report.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_treecmp
need_cmd setfattr setfacl rsync

t_mktree "$T/src" nodeep
cp -a "$T/src" "$T/ref" || fail "cp -a of the sample tree failed"
check_tree "$T/src" "$T/ref"
rsync -aHAXS "$T/src/" "$T/ref_rsync/" || fail "rsync failed"
check_tree "$T/src" "$T/ref_rsync"
# cp -a read the source, which moved its atimes: set them back on both
# sides, then compare atimes twice: treecmp must not move them either.
find "$T/src" "$T/ref" -exec touch -h -a -d "$T_ATIME" {} +
check_tree "$T/src" "$T/ref" --atime
check_tree "$T/src" "$T/ref" --atime
touch -h -a -d @1 "$T/ref/files/small"
check_not "$TREECMP" --atime "$T/src" "$T/ref" >/dev/null
touch -h -a -d "$T_ATIME" "$T/ref/files/small"

# mutate NAME EXPECTED-REGEX SHELL-CODE [treecmp options]: run SHELL-CODE in
# a fresh copy $M of the tree; treecmp must then exit 1 and report a line
# matching EXPECTED-REGEX.
n=0
mutate() {
	local name=$1 want=$2 code=$3 rc
	shift 3
	n=$((n + 1))
	M="$T/m$n"
	cp -a "$T/src" "$M" || fail "cp -a for $name"
	(cd "$M" && eval "$code") || fail "mutation '$name' could not be applied"
	"$TREECMP" "$@" "$T/src" "$M" >"$T/mut.out" 2>&1
	rc=$?
	sed "s/^/  $name| /" "$T/mut.out"
	[ $rc = 1 ] || fail "$name: treecmp exit $rc, want 1"
	check_grep "$want" "$T/mut.out" "$name: no report matching /$want/"
	rm -rf "$M"
}
# Replace the byte at offset $2 of file $1 by the next byte value: always a
# change, whatever the (random) byte was.
flip() {
	dd if="$1" bs=1 skip="$2" count=1 status=none | tr '\000-\377' '\001-\377\000' |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
export -f flip

mutate "changed byte" '^files/medium: content differs at byte 5000$' \
	'flip files/medium 5000; touch -r ../src/files/medium files/medium'
mutate "same byte count, changed last byte" '^files/big: content differs at byte 1572864$' \
	'flip files/big 1572864; touch -r ../src/files/big files/big'
mutate "size" '^files/small: size ' 'echo more >>files/small; touch -r ../src/files/small files/small'
mutate "mode" '^files/small: mode 0644 != 0640$' 'chmod 0640 files/small'
mutate "setuid dropped" '^modes/setuid: mode 4755 != 0755$' 'chmod u-s modes/setuid'
mutate "sticky dropped" '^modes/sticky: mode 1777 != 0777$' 'chmod -t modes/sticky'
mutate "owner" '^special/owned: owner 65534:65534 != 0:0$' 'chown -h 0:0 special/owned'
mutate "mtime nanoseconds" '^files/small: mtime [0-9]+\.[0-9]{9} != ' \
	'touch -d "@$(stat -c %Y files/small).000000001" files/small'
mutate "dir mtime" '^names: mtime ' 'touch -d @5 names'
mutate "symlink mtime" '^symlinks/relative: mtime ' 'touch -h -d @5 symlinks/relative'
mutate "root mtime" '^\.: mtime ' 'touch -d @5 .'
mutate "xattr value" '^xattr/file: xattr user.plain value differs' 'setfattr -n user.plain -v hellO xattr/file'
mutate "xattr missing" '^xattr/file: xattr user.binary missing in DST' 'setfattr -x user.binary xattr/file'
mutate "xattr extra" '^files/small: xattr user.new only in DST' 'setfattr -n user.new -v 1 files/small'
mutate "acl" '^xattr/file: xattr system.posix_acl_access value differs' \
	'setfacl -m u:65534:r xattr/file'
mutate "default acl" '^xattr/acl_dir: xattr system.posix_acl_default ' 'setfacl -k xattr/acl_dir'
mutate "symlink target" "^symlinks/relative: symlink target '../files/small' != '../files/big'" \
	'rm symlinks/relative; ln -s ../files/big symlinks/relative
	 touch -h -r ../src/symlinks/relative symlinks/relative; touch -r ../src/symlinks symlinks'
mutate "broken hard link" "hard link to '.*' in SRC is not a hard link in DST" \
	'cp -p hard/b/pair hard/b/pair.tmp && mv hard/b/pair.tmp hard/b/pair && touch -r ../src/hard/b hard/b' 
mutate "extra hard link" "extra hard link to 'files/many_1' in DST" \
	'rm files/many_2 && ln files/many_1 files/many_2 && touch -r ../src/files files'
mutate "filled hole" '^sparse/middle: DST allocates [0-9]+ bytes, more than .*holes filled' \
	'cp --sparse=never sparse/middle x && cat x >sparse/middle && rm x
	 touch -r ../src/sparse/middle sparse/middle; touch -r ../src/sparse sparse'
mutate "filled all-hole file" '^sparse/all_hole: DST allocates' \
	'cp --sparse=never sparse/all_hole x && cat x >sparse/all_hole && rm x'
mutate "missing file" '^files/empty: only in SRC$' 'rm files/empty'
mutate "extra file" '^files/\.fcp-tmp: only in DST$' 'touch files/.fcp-tmp'
mutate "type" '^special/fifo: type fifo != file$' 'rm special/fifo; touch special/fifo'
mutate "escaped name" '^names/new\\x0aline: content differs' \
	'printf y >names/new$'"'"'\n'"'"'line'
mutate "non-UTF-8 name" '^names/bad\\xff\\xfebytes: content differs' \
	'printf y >names/bad$'"'"'\xff\xfe'"'"'bytes'
if [ "$(id -u)" = 0 ]; then
	mutate "device number" '^special/char: device 1:3 != 1:5$' \
		'rm special/char && mknod special/char c 1 5 && touch -h -r ../src/special/char special/char'
fi

# Options turn checks off, and only those.
mutate "mode is still checked with --no-times" '^files/small: mode' 'chmod 0640 files/small' --no-times
cp -a "$T/src" "$T/opt"
chmod 0640 "$T/opt/files/small"
check_tree "$T/src" "$T/opt" --no-mode
touch -d @7 "$T/opt/files/small"
check_tree "$T/src" "$T/opt" --no-mode --no-times
chown 1:1 "$T/opt/files/medium"
setfattr -n user.more -v 1 "$T/opt/files/medium"
check_tree "$T/src" "$T/opt" --content-only
printf Z | dd of="$T/opt/files/medium" bs=1 seek=1 conv=notrunc status=none
check_not "$TREECMP" --content-only "$T/src" "$T/opt" >/dev/null

# Usage errors exit 2.
"$TREECMP" "$T/src" >/dev/null 2>&1; check_eq $? 2 "treecmp with one argument"
"$TREECMP" --bogus "$T/src" "$T/ref" >/dev/null 2>&1; check_eq $? 2 "treecmp with a bad option"
"$TREECMP" "$T/src" "$T/nonexistent" >/dev/null 2>&1; check_eq $? 2 "treecmp with a missing root"

# A tree deeper than PATH_MAX: two identical builds compare equal, and a
# change at the bottom is found.
t_mkdeep "$T/deep1"
t_mkdeep "$T/deep2"
touch -d "$T_TIME1" "$T/deep2"
touch -d "$T_TIME1" "$T/deep1"
"$TREECMP" --no-times "$T/deep1" "$T/deep2" >"$T/deep.out"; check_eq $? 0 "identical deep trees"
(cd "$T/deep2" && find . -name bottom_file -execdir sh -c 'echo changed >bottom_file' \;)
"$TREECMP" --no-times "$T/deep1" "$T/deep2" >"$T/deep.out"; check_eq $? 1 "changed deep tree"
check_grep '(d{200}/){25}bottom_file: size' "$T/deep.out"

# --holes lists the data extents of a sparse file.
"$TREECMP" --holes "$T/src/sparse/middle" >"$T/holes.out" || fail "treecmp --holes"
cat "$T/holes.out"
check_eq "$(grep -c '^data ' "$T/holes.out")" 3 "data extents of sparse/middle"
check_grep '^data 0 65536$' "$T/holes.out"
check_grep '^size 8388608 ' "$T/holes.out"

# --shared: a plain copy shares nothing; a reflink on XFS does (root only).
"$TREECMP" --shared "$T/src/files/big"; check_eq $? 1 "treecmp --shared on an unshared file"
if [ "$(id -u)" = 0 ]; then
	t_mount_fs xfs 300M "$T/xfs"
	head -c 1M /dev/urandom >"$T/xfs/a"
	cp --reflink=always "$T/xfs/a" "$T/xfs/b" || fail "cp --reflink=always on XFS"
	"$TREECMP" --shared "$T/xfs/b"; check_eq $? 0 "treecmp --shared on a reflinked file"
	cp --reflink=never "$T/xfs/a" "$T/xfs/c"
	"$TREECMP" --shared "$T/xfs/c"; check_eq $? 1 "treecmp --shared on a plain copy"
fi
echo "treecmp self-test: $n mutations detected"
