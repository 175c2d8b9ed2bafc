#!/bin/bash
# Overwriting an existing file costs one rename, as before special files
# in the destination were looked at: the scan that every existing
# destination directory gets (leftovers) tells whether it holds a FIFO,
# device or socket, and only such a directory takes the look-first way
# (copy_special_dest.sh). Counted with strace for a -T copy onto an
# existing copy of N small files, on both paths: at most one rename and
# few statx calls per file (those of the source and a fixed few: 20, 3 to
# stat the SOURCE, its copy's root and the first level, one per directory
# above the SOURCE, which the job walks up once to tell
# that the SOURCE is not inside its own copy, and one per destination
# directory that gets temporary names, whose tag is that directory's).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd strace

N=40
mkdir -p src/sub
for i in $(seq 1 $N); do
	printf '%s\n' "$i" >"src/f$i"
	printf 's%s\n' "$i" >"src/sub/g$i"
done
files=$((2 * N))
run_fcp -T src dst
check_rc 0 "first copy"

count() { # SYSCALL...: calls of these in $T/trace (strace -c output)
	local s n=0
	for s; do
		n=$((n + $(awk -v s="$s" '$NF == s { print $4 }' "$T/trace" | head -1 | grep . || echo 0)))
	done
	echo "$n"
}

for path in "" --no-io-uring; do
	echo changed >>src/f1
	check strace -f -c -o "$T/trace" -e trace=rename,renameat,renameat2,statx \
		"$FASTCP" -j1 $path -T src dst
	cat "$T/trace"
	renames=$(count rename renameat renameat2)
	statxs=$(count statx)
	note "${path:-io_uring}: $renames renames, $statxs statx for $files files"
	[ "$renames" -le "$files" ] || fail "${path:-io_uring}: $renames renames for $files files"
	depth=$(printf '%s' "$T/src" | tr -cd / | wc -c)
	[ "$statxs" -le $((files + 23 + depth + 2)) ] || fail "${path:-io_uring}: $statxs statx for $files files"
	check_eq "$(cat dst/f1)" "$(cat src/f1)" "overwritten file"
done
check_no_temp dst
echo "an overwrite costs one rename per file"
