#!/bin/bash
# A destination without user xattrs (ramfs) cannot hold the marker that
# lets the same command take up a killed run's hidden copy. The run says
# so at its start, once; a killed copy stays one hidden copy however often
# the command is repeated (each repeat is held by it: exit 1, with how to
# finish it), never one more per run; renamed as the message says, --sync
# finishes it, and every byte of the source is there.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_root "mounting ramfs needs root"

mkdir dst
mount -t ramfs ramfs "$T/dst" 2>/dev/null || skip "cannot mount ramfs"
t_mounts_+=("$T/dst")
setfattr -n user.x -v 1 dst 2>/dev/null && skip "this ramfs keeps user xattrs"
mkdir -p src/DCIM
for i in $(seq 1 20); do echo "photo $i" >"src/DCIM/IMG_$i.JPG"; done
head -c 3000000 /dev/urandom >src/DCIM/MVI_9999.MP4

# Killed once its hidden copy holds the start of the large file.
"$FASTCP" -j 2 --bwlimit 256K src/DCIM dst/ 2>"$T/err1" &
pid=$!
for ((i = 0; i < 400; i++)); do
	h=$(find dst -maxdepth 1 -name '.fcp-*' -type d -print -quit)
	[ -n "$h" ] && [ -s "$h/MVI_9999.MP4" ] && break
	sleep 0.025
done
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
[ -n "$h" ] || fail "the copy made no hidden copy"
check_grep "^fastcp: '$T/dst' keeps no extended attributes: a copy interrupted here cannot be taken up" \
	"$T/err1"
check_eq "$(grep -c 'keeps no extended attributes' "$T/err1")" 1 "times the start says so"

for r in 1 2 3; do
	run_fcp src/DCIM dst/
	check_rc 1 "repeat $r"
	check_grep "^fastcp: not copied: 'src/DCIM': '$T/$h' may be the unfinished copy of it" "$T/err"
	check_eq "$(find dst -maxdepth 1 -name '.fcp-*' | wc -l)" 1 "hidden copies after repeat $r"
	check_absent dst/DCIM "a copy beside the held one"
done
# The files the killed run finished are still there, intact.
for f in "$h"/IMG_*; do
	[ -e "$f" ] || continue
	cmp -s "$f" "src/DCIM/${f##*/}" || fail "a finished file of the held copy changed: $f"
done
mv "$h" dst/DCIM
run_fcp --sync src/DCIM dst/
check_rc 0 "--sync into the renamed copy"
"$TREECMP" src/DCIM dst/DCIM >/dev/null || fail "dst/DCIM is not exactly the source"
check_eq "$(find dst -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies at the end"
echo "without xattrs in DEST: said at the start, one hidden copy, never more"
