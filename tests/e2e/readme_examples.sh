#!/bin/bash
# The README's quick start, run exactly as written: every command line of
# its code blocks after the first (the first, ./fastcp.sh demo and check, is
# scripts/fresh-machine.sh's), in order, in a working directory holding a
# small sample tree, with the built programs first on PATH. Each line has a
# check of what the README's text says it does; a line without one fails the
# test, so an example cannot be added, changed or left to rot unchecked.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
need_fastcp
need_treecmp
readme=$top_/README.md
[ -f "$readme" ] || fail "no $readme"

# The code blocks after the first, one command line each, comments dropped.
awk '/^```/ { if (inb) { inb = 0; next } inb = 1; n++; next } inb && n > 1' "$readme" |
	sed 's/^[[:space:]]*#.*//; /^[[:space:]]*$/d' >"$T/lines"
nblocks=$(grep -c '^```sh' "$readme")
[ "$nblocks" -ge 7 ] && [ "$nblocks" -le 11 ] ||
	fail "the README has $((nblocks - 1)) quick-start examples, want 6 to 10"

W=$T/w
mkdir -p "$W" && cd "$W" || fail "cannot make $W"
mkdir -p photos/2024 photos/2026 project/src project/build project/.cache \
	card/DCIM/100CANON downloads backup usb
head -c 100000 /dev/urandom >photos/2024/a.jpg
head -c 50000 /dev/urandom >photos/2024/b.jpg
head -c 70000 /dev/urandom >photos/2026/c.jpg
touch -d '30 days ago' photos/2024/a.jpg photos/2024/b.jpg
printf 'build/\n*.o\n' >project/.gitignore
echo 'int main(void) { return 0; }' >project/src/main.c
echo object >project/src/main.o
echo output >project/build/out
printf 'Signature: 8a477f597d28d172789f06886806bc55\n' >project/.cache/CACHEDIR.TAG
echo cached >project/.cache/x
head -c 30000 /dev/urandom >card/DCIM/100CANON/IMG_0001.JPG
head -c 200000 /dev/urandom >downloads/x.iso
cp downloads/x.iso downloads/x-copy.iso
echo text >downloads/y.txt
cp -a card "$T/card.orig"

export PATH=$(dirname "$FASTCP"):$(dirname "$FASTCP_MPI"):$PATH
# mpirun refuses root without these, and a small machine has fewer slots
# than ranks: the environment says so, the README's line stays as written.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

# run LINE: the README's line as a shell runs it; $RC, $T/out, $T/err
run() {
	timeout -k 5 120 bash -o pipefail -c "$1" >"$T/out" 2>"$T/err"
	RC=$?
	cat "$T/out" "$T/err" >"$T/all"
	echo "\$ $1 -> exit $RC"
	sed 's/^/  out| /' "$T/out" | head -20
	sed 's/^/  err| /' "$T/err" | head -20
}
snapshot() { (cd "$1" && find . -printf '%p %y %s %T@ %i\n' | sort) }
ino() { stat -c %i "$1"; }
# flip one byte of FILE, keeping its size and mtime: bit rot
rot() {
	local c=X
	[ "$(dd if="$1" bs=1 skip=10 count=1 status=none)" = X ] && c=Y
	touch -r "$1" "$T/stamp"
	printf '%s' "$c" | dd of="$1" bs=1 seek=10 conv=notrunc status=none
	touch -r "$T/stamp" "$1"
}

checked=0
while IFS= read -r line; do
	case $line in
	'fastcp photos backup/')
		run "$line"; check_rc 0 "$line"
		check_tree photos backup/photos ;;
	'fastcp --mirror --dry-run -T photos backup/photos')
		# something new in the source, something extra in the backup
		head -c 1000 /dev/urandom >photos/2026/d.jpg
		echo extra >backup/photos/extra.txt
		snapshot backup >"$T/before"
		run "$line"; check_rc 0 "$line"
		snapshot backup >"$T/after"
		cmp -s "$T/before" "$T/after" || fail "--dry-run changed the backup"
		check_grep "d\.jpg" "$T/out" "the dry run does not say the new file"
		check_grep "extra\.txt" "$T/out" "the dry run does not say the deletion" ;;
	'fastcp --mirror -T photos backup/photos')
		run "$line"; check_rc 0 "$line"
		check_tree photos backup/photos
		check_absent backup/photos/extra.txt
		# run again: only the changes are copied
		head -c 1000 /dev/urandom >photos/2026/e.jpg
		a=$(ino backup/photos/2024/a.jpg)
		run "$line"; check_rc 0 "$line, again"
		check_tree photos backup/photos
		check_eq "$(ino backup/photos/2024/a.jpg)" "$a" "an unchanged file was copied again" ;;
	'fastcp --verify photos usb/')
		run "$line"; check_rc 0 "$line"
		check_tree photos usb/photos ;;
	'fastcp --check -T photos backup/photos')
		run "$line"; check_rc 0 "$line (equal)"
		rot backup/photos/2026/c.jpg
		run "$line"; check_rc 1 "$line (a damaged copy)"
		check_grep "c\.jpg" "$T/all" "--check does not name the damaged file"
		cp -p photos/2026/c.jpg backup/photos/2026/c.jpg ;;
	'fastcp --mirror --manifest photos.db -T photos backup/photos')
		run "$line"; check_rc 0 "$line"
		check_tree photos backup/photos
		[ -s photos.db ] || fail "no manifest photos.db" ;;
	'fastcp --check --manifest photos.db backup/photos')
		run "$line"; check_rc 0 "$line (no rot)"
		rot backup/photos/2024/a.jpg
		run "$line"; check_rc 1 "$line (bit rot)"
		check_grep "a\.jpg" "$T/all" "--check --manifest does not name the rotten file"
		cp -p photos/2024/a.jpg backup/photos/2024/a.jpg ;;
	'fastcp --move card/DCIM photos/')
		run "$line"; check_rc 0 "$line"
		check_absent card/DCIM
		check_tree "$T/card.orig/DCIM" photos/DCIM ;;
	'fastcp --dedup downloads backup/')
		run "$line"; check_rc 0 "$line"
		check_tree downloads backup/downloads ;;
	'fastcp --gitignore --exclude-caches -T project backup/project')
		run "$line"; check_rc 0 "$line"
		check_file backup/project/src/main.c
		check_file backup/project/.gitignore
		check_absent backup/project/src/main.o
		check_absent backup/project/build
		check_absent backup/project/.cache ;;
	'fastcp --newer-than 7d --max-size 100M -T photos backup/recent')
		truncate -s 101M photos/2026/video.mov # sparse: no disk used
		run "$line"; check_rc 0 "$line"
		check_file backup/recent/2026/c.jpg
		cmp photos/2026/c.jpg backup/recent/2026/c.jpg || fail "a recent file differs"
		check_absent backup/recent/2024/a.jpg
		check_absent backup/recent/2024/b.jpg
		check_absent backup/recent/2026/video.mov
		rm photos/2026/video.mov ;;
	"fastcp --json --sync -T photos backup/photos | jq '.files, .failed'")
		command -v jq >/dev/null || fail "jq not installed (mk/packages has it): '$line' not run"
		head -c 1000 /dev/urandom >photos/2026/f.jpg
		new=$(comm -23 <(cd photos && find . -type f | sort) <(cd backup/photos && find . -type f | sort) | wc -l)
		[ "$new" -ge 2 ] || fail "the sample should have new files here, has $new"
		run "$line"; check_rc 0 "$line"
		check_eq "$(cat "$T/out")" "$new
0" "the JSON's files and failed"
		check_tree photos backup/photos ;;
	'mpirun -np 2 fastcp-mpi photos backup/')
		if ! command -v mpirun >/dev/null || [ ! -x "$FASTCP_MPI" ]; then
			note "mpirun or fastcp-mpi missing: '$line' not run"; continue
		fi
		[ "${FCP_SANITIZE:-}" = asan ] && mpi_lsan_ # Open MPI's own memory
		head -c 1000 /dev/urandom >photos/2026/g.jpg
		run "$line"; check_rc 0 "$line"
		check_tree photos backup/photos ;;
	*)
		fail "the README's example has no check in this test: $line" ;;
	esac
	checked=$((checked + 1))
	check_no_temp "$W"
done <"$T/lines"
[ "$checked" -ge 6 ] || fail "only $checked README lines were run"
echo "README examples: $checked lines run and checked"
