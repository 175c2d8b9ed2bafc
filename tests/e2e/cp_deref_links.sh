#!/bin/bash
# -L and -H with hard links kept (issue 33, item 17), beside GNU cp: two
# names that reach one file - a file and a symlink to it followed, or two
# followed symlinks - are one inode in the copy, as in cp's (they were two
# copies). A --sync run again changes nothing.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p src/d out
	echo "photo" >src/f; ln -s f src/link; ln -s ../f src/d/up
	head -c 300000 /dev/urandom >src/big; ln -s big src/big-link
	for i in 1 2 3 4 5 6; do echo "small $i" >src/s$i; done
	ln -s s3 src/d-s3 # names in a batch of small files too
}

# inodes DIR NAME...: the inode numbers of the names, one line.
inodes() { local d=$1 n; shift; for n; do stat -c %i "$d/$n"; done | tr '\n' ' '; }
one_inode() {
	local set
	set=$(inodes "$@" | tr ' ' '\n' | sort -u | grep -c .)
	check_eq "$set" 1 "one inode for $*"
}

cp_twins setup
cp_both -L src out
cp_same
one_inode "$T/fcp/out/src" f link d/up
one_inode "$T/fcp/out/src" big big-link
one_inode "$T/fcp/out/src" s3 d-s3
check_eq "$(cat "$T/fcp/out/src/link")" photo "the bytes"
before=$(cd "$T/fcp/out" && find . -printf '%p %i %n %s\n' | sort)
cd "$T/fcp" && run_fcp --sync -L src out && cd "$T"
check_rc 0
check_eq "$(cd "$T/fcp/out" && find . -printf '%p %i %n %s\n' | sort)" "$before" "--sync -L again"

cp_twins setup
cp_both -H src/f src/link src/d/up out
cp_same
one_inode "$T/fcp/out" f link up

# Many small files (copied in io_uring batches where there is io_uring),
# each reached again by a symlink in another directory, met while its
# batch holds it or after: every pair is one inode with the file's bytes.
mkdir -p "$T/many/files" "$T/many/links"
for i in $(seq 1 1500); do
	echo "file $i" >"$T/many/files/f$i"
	ln -s "../files/f$i" "$T/many/links/l$i"
done
run_fcp -L "$T/many" "$T/many-copy"
check_rc 0
bad=$(cd "$T/many-copy" && for i in $(seq 1 1500); do
	[ -f "links/l$i" ] && [ ! -L "links/l$i" ] && [ "$(cat "links/l$i")" = "file $i" ] &&
		[ "$(stat -c %i files/f$i)" = "$(stat -c %i links/l$i)" ] || echo "f$i"
done | head -3)
check_eq "$bad" "" "names of one file that are not one inode with its bytes"

# Without links kept: copies of their own, as cp --no-preserve=links.
cp_twins setup
cp_both -L --no-preserve=links src out
cp_same
check_eq "$(inodes "$T/fcp/out/src" f link | tr ' ' '\n' | sort -u | grep -c .)" 2 "two inodes"
echo PASS
