#!/bin/bash
# --move removes a source file once its copy passes the quick check (size
# and mtime) and was made by this run. Where the source's times would not
# show a change made while it was copied (fcp_statx_racy, job.h: a
# filesystem of whole-second times whose ctime is its mtime, as FAT keeps
# them, like a camera's card; or a file written within two seconds of the
# move's start), the quick check proves nothing: such a source is
# compared with its copy byte for byte before it goes. Here the source
# changes (size and mtime kept) after it was copied, while the move is
# held at the open that makes its copy durable: the source stays, named,
# exit 1; unchanged, it goes.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd cmp


mkdir -p bfat bfast bdst
faultfs_mount bfat fat --ctime-mtime --whole-seconds
faultfs_mount bfast fast --ctime-mtime
faultfs_mount bdst d --block-open --match='g*' --hold="$T/hold"

# move SRC NAME: move SRC to d/NAME, held at the first open of d/NAME
# (the prune's, to sync the copy), while the source changes.
move_changing() {
	local pid
	touch "$T/hold"
	timeout -k 5 60 "$FASTCP" --move -T "$1" "d/$2" >"$T/out" 2>"$T/err" &
	pid=$!
	faultfs_held "open of /$2"
	was=$(t_looks "$1")
	t_rot "$1" 3000
	check_eq "$(t_looks "$1")" "$was" "the change shows in no time, size or inode"
	cp -p "$1" "$T/want_$2"
	rm -f "$T/hold"
	wait "$pid"
	ran_ $? fastcp "--move -T $1 d/$2"
}

# A card's file: whole seconds, old.
head -c 10000 /dev/urandom >fat/card
touch -d @1000000000 fat/card
move_changing fat/card g1
check_rc 1 "move of a source changed while it was copied (whole seconds)"
check_grep "not removing 'fat/card': its copy differs" "$T/err"
check cmp "$T/want_g1" fat/card

# A file written right before the move, on a filesystem of fine times.
head -c 10000 /dev/urandom >fast/new
move_changing fast/new g2
check_rc 1 "move of a source changed while it was copied (written just before)"
check_grep "not removing 'fast/new': its copy differs" "$T/err"
check cmp "$T/want_g2" fast/new

# Run again: copied again, compared equal, it goes.
run_fcp --move -T fat/card d/g1
check_rc 0 "the move again"
check_absent fat/card
check cmp "$T/want_g1" d/g1
echo "PASS"
