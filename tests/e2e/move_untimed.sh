#!/bin/bash
# --move without the source's times (--no-preserve=timestamps, =all): the
# copy's mtime is its own, so the quick check that lets a source go
# (type, size, mtime) never passed, and no source ever left: "its copy
# differs (it failed, or the source changed)", exit 1, on every re-run.
# The bytes of both sides now decide, read right before the source goes.
#   - Across filesystems (DEST a tmpfs): exit 0, SOURCE gone, the copies
#     whole, with times of their own.
#   - -n keeping a DEST file of the same size and other bytes: its source
#     stays, named; the others go.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
t_mount_fs tmpfs 16M d

for opt in --no-preserve=timestamps --no-preserve=all; do
	rm -rf s d/*
	mkdir -p s/sub
	echo one >s/a
	head -c 300000 /dev/urandom >s/sub/b
	touch -d 2001-01-01 s/a s/sub/b
	cp -a s "$T/orig"
	run_fcp --move "$opt" s d/
	check_rc 0 "--move $opt across filesystems"
	check_nogrep "its copy differs" "$T/err" "$opt: a whole copy called different"
	check_absent s "$opt: SOURCE after the move"
	cmp "$T/orig/a" d/s/a || fail "$opt: d/s/a"
	cmp "$T/orig/sub/b" d/s/sub/b || fail "$opt: d/s/sub/b"
	[ "$(stat -c %Y d/s/a)" != "$(stat -c %Y "$T/orig/a")" ] || fail "$opt: the source's mtime kept"
	rm -rf "$T/orig"
done

rm -rf s d/*
mkdir -p s d/s
echo new1 >s/f
echo new2 >s/g
echo old1 >d/s/f
run_fcp --move -n --no-preserve=timestamps s d/
check_rc 1 "--move -n over a file of the same size and other bytes"
check_grep "not removing 's/f'" "$T/err" "the kept source named"
check_eq "$(cat s/f)" new1 "the source -n kept out stays"
check_eq "$(cat d/s/f)" old1 "-n kept DEST's file"
check_absent s/g "the other source moved"
check_eq "$(cat d/s/g)" new2 "its copy"
echo PASS
