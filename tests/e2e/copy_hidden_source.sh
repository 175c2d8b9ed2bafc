#!/bin/bash
# The hidden copy of a killed run records its source root (path, device,
# inode) and is taken up only by a copy of that very source: after a
# killed `fastcp cam1/DCIM backup/`, `fastcp --sync cam2/DCIM backup/`
# makes cam2's own copy (never publishes cam1's files as backup/DCIM),
# and names cam1's hidden copy with its source. A directory put at the
# same path (another card in the same slot) is another source too. The
# same command with cam1 again finishes cam1's copy: one hidden copy per
# name, never a second. The kill comes at a fixed point: a file read at
# --bwlimit has begun in the hidden copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp

mkdir -p cam1/DCIM cam2/DCIM backup
for i in $(seq 1 50); do echo "cam1 photo $i" >"cam1/DCIM/IMG_$i.JPG"; done
head -c 3000000 /dev/urandom >cam1/DCIM/MVI_9999.MP4
for i in 1 2; do echo "cam2 photo $i" >"cam2/DCIM/IMG_$i.JPG"; done

# kill_mid DIR ARGS...: run fastcp ARGS; SIGKILL it once its hidden copy
# in DIR holds the start of MVI_9999.MP4 (read slowly at --bwlimit).
kill_mid() {
	local dir=$1 pid h i
	shift
	"$FASTCP" -j 2 --bwlimit 256K "$@" 2>/dev/null &
	pid=$!
	for ((i = 0; i < 400; i++)); do
		h=$(find "$dir" -maxdepth 1 -name '.fcp-*' -type d -print -quit)
		[ -n "$h" ] && [ -s "$h/MVI_9999.MP4" ] && break
		sleep 0.025
	done
	kill -KILL "$pid"
	{ wait "$pid"; } 2>/dev/null
	[ -n "$h" ] && [ -s "$h/MVI_9999.MP4" ] || fail "the copy never began its large file"
}

kill_mid backup cam1/DCIM backup/
hidden=$(find backup -maxdepth 1 -name '.fcp-*')
check_eq "$(printf '%s\n' "$hidden" | grep -c .)" 1 "hidden copies after the kill"

# The same path, another directory (another card in the same slot): not
# taken up though its path and name match; a copy of its own is made.
mv cam1 cam1.first
mkdir -p cam1/DCIM && echo "third card" >cam1/DCIM/IMG_1.JPG
run_fcp cam1/DCIM backup/
check_rc 0
check_tree cam1/DCIM backup/DCIM
check_dir "$hidden" "a copy of another directory at the same path was taken up"
rm -rf cam1 backup/DCIM
mv cam1.first cam1

# Another card: its own copy, exactly its files, and cam1's copy kept.
run_fcp --sync cam2/DCIM backup/
check_rc 0 "another source to the same name"
check_tree cam2/DCIM backup/DCIM
check_eq "$(find backup/DCIM -type f | wc -l)" 2 "files under backup/DCIM"
check_dir "$hidden" "the other source's hidden copy was taken"
check_grep "is an unfinished copy of '$T/cam1/DCIM' left by an interrupted run; copying that source" \
	"$T/err"
# Now that the name is taken, the message says so.
run_fcp --sync cam2/DCIM backup/
check_rc 0
check_grep "is an unfinished copy of '$T/cam1/DCIM' left by an interrupted run; its name is taken" \
	"$T/err"

# The same source again: its hidden copy is finished (rm cam2's copy
# first, so that the name is free), and no second hidden copy is made.
rm -rf backup/DCIM
run_fcp cam1/DCIM backup/
check_rc 0 "the same command after the kill"
check_grep "^fastcp: finishing '$T/$hidden', the copy of 'cam1/DCIM'" "$T/err"
check_tree cam1/DCIM backup/DCIM
check_absent "$hidden" "the killed run's copy was not the one finished"
check_eq "$(find backup -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies left"
echo "a hidden copy is taken up only by its own source"
