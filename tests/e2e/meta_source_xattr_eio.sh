#!/bin/bash
# A source's xattrs that cannot be read (EIO from listxattr/getxattr) fail
# the item, as a read error of its data does: it is said with its path,
# the exit status is 1, no copy stands under its name (a file, a symlink)
# or the directory is named failed, and --move keeps the source. What the
# destination cannot hold stays a warning (copy_xattr_* tests).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
cd "$T" || fail "cd $T"

mk() {
	rm -rf src
	mkdir -p src/tree/bad.d
	echo keep >src/tree/ok
	head -c 70000 /dev/urandom >src/tree/bad.big   # the synchronous path
	echo small >src/tree/bad.small                   # the io_uring batch
	ln -s ok src/tree/bad.lnk
	echo inner >src/tree/bad.d/inner
}
mk
faultfs_mount src fsrc '--match=bad*' --xattr-eio

for j in "" "-j 1" "--no-io-uring"; do
	rm -rf dst
	# shellcheck disable=SC2086
	run_fcp $j fsrc/tree dst
	check_rc 1 "a copy whose source xattrs cannot be read ($j)"
	for p in bad.big bad.small bad.lnk bad.d; do
		check_grep "cannot read the extended attributes of 'fsrc/tree/$p'.*Input/output error" \
			"$T/err" "$p's unreadable xattrs not said as a failure ($j)"
	done
	check_nogrep "warning: cannot preserve extended attributes" "$T/err"
	check_absent dst/bad.big "a file copied without its xattrs under its name ($j)"
	check_absent dst/bad.small "a small file copied without its xattrs under its name ($j)"
	check_absent dst/bad.lnk "a symlink copied without its xattrs under its name ($j)"
	check cmp src/tree/ok dst/ok
	check cmp src/tree/bad.d/inner dst/bad.d/inner
	check_no_temp dst
done

# --move across filesystems (faultfs to /tmp's): what failed stays.
rm -rf dst
run_fcp --move fsrc/tree dst
check_rc 1 "--move with source xattrs that cannot be read"
for p in bad.big bad.small bad.lnk bad.d/inner; do
	check_file_or_link() { [ -e "$1" ] || [ -L "$1" ]; }
	check_file_or_link "src/tree/$p" || fail "--move removed $p, whose xattrs were not read"
done
[ -d src/tree/bad.d ] || fail "--move removed the directory whose xattrs were not read"
check_absent src/tree/ok "--move kept a file that was copied whole"
check cmp dst/ok <(echo keep)
echo "PASS"
