#!/bin/bash
# -b where the source has NAME and NAME~ and DEST an old NAME: the copy of
# the source's NAME~ is no older backup. Whichever a worker does first
# (copy NAME~, or back up NAME), DEST ends with NAME = the new file, NAME~
# = the source's NAME~ and the old NAME under the next backup name
# (NAME~~), as GNU cp -a -b names them; the exit status is 0 and every
# byte of the source and of the old DEST is there. Also on tmpfs, whose
# readdir lists the newest name first (NAME~ copied before NAME is backed
# up, with -j 1 every time), with --backup=numbered, with --sync and
# --delete/--mirror (an extra e renamed to its backup name where the
# source has e~), with two SOURCEs merging into one copy (the second's
# backup never takes the first's copy), with operands copied into one
# directory, and where the destination refuses rename flags.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

gnu_cp=false
cp --version 2>/dev/null | grep -q 'GNU coreutils' && gnu_cp=true

# shape DIR: the reproducer's tree.
shape() {
	rm -rf "$1" && mkdir -p "$1/src" "$1/dst"
	echo new >"$1/src/a"
	echo "source a~ data" >"$1/src/a~"
	echo OLD >"$1/dst/a"
}

# many DIR: 40 files and their NAME~ in the source, the old NAMEs in DEST.
many() {
	rm -rf "$1" && mkdir -p "$1/src" "$1/dst"
	for i in $(seq 1 40); do
		echo "new$i" >"$1/src/f$i"
		echo "tilde$i" >"$1/src/f$i~"
		echo "OLD$i" >"$1/dst/f$i"
	done
}

# listing DIR: each file of DIR with the sha256 of its bytes.
listing() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# like_cp NAME DIR CP-OPTIONS...: fastcp's DEST (DIR/dst, made already)
# must be what GNU cp -a makes of the same tree (DIR/ref), name by name
# and byte by byte. Where cp itself lost a source file (it goes in inode
# order, and where it copies NAME~ before NAME it backs up NAME over it),
# not compared.
like_cp() {
	local name=$1 dir=$2 f
	shift 2
	$gnu_cp || { note "$name: no GNU cp, not compared"; return 0; }
	check cp -a "$@" "$dir/src/." "$dir/ref/"
	for f in "$dir"/src/*; do
		cmp -s "$f" "$dir/ref/${f##*/}" && continue
		note "$name: GNU cp lost the source's ${f##*/} (it copied NAME~ first), not compared"
		return 0
	done
	listing "$dir/ref" >"$T/ref.sums"
	listing "$dir/dst" >"$T/dst.sums"
	check_eq "$(cat "$T/dst.sums")" "$(cat "$T/ref.sums")" "$name: DEST is not GNU cp's"
}

# reference DIR: the DEST GNU cp starts from.
reference() { rm -rf "$1/ref" && mkdir "$1/ref" && cp -a "$1/dst/." "$1/ref/"; }

# source_kept NAME DIR: the source is unchanged and each of its files is
# in DEST under its own name.
source_kept() {
	local f
	for f in "$2"/src/*; do
		cmp -s "$f" "$2/dst/${f##*/}" || fail "$1: the source's ${f##*/} is not in DEST"
	done
}

run_shape() { # NAME DIR FASTCP-OPTIONS...
	local name=$1 dir=$2
	shift 2
	shape "$dir"
	reference "$dir"
	run_fcp "$@" -v -T "$dir/src" "$dir/dst"
	check_rc 0 "$name"
	check_eq "$(cat "$dir/dst/a")" new "$name: a"
	check_eq "$(cat "$dir/dst/a~")" "source a~ data" "$name: a~ is not the source's"
	check_eq "$(cat "$dir/dst/a~~")" OLD "$name: the old a is not under a~~"
	check_eq "$(ls -A "$dir/dst" | tr '\n' ' ')" "a a~ a~~ " "$name: the names in DEST"
	check_grep "^'$dir/src/a~' -> '$dir/dst/a~'$" "$T/out" "$name: -v"
	like_cp "$name" "$dir" -b
}

run_many() { # NAME DIR FASTCP-OPTIONS...
	local name=$1 dir=$2 i
	shift 2
	many "$dir"
	reference "$dir"
	run_fcp "$@" -T "$dir/src" "$dir/dst"
	check_rc 0 "$name"
	source_kept "$name" "$dir"
	for i in $(seq 1 40); do
		check_eq "$(cat "$dir/dst/f$i~~")" "OLD$i" "$name: the old f$i"
	done
	check_eq "$(ls -A "$dir/dst" | wc -l)" 120 "$name: the number of names in DEST"
	like_cp "$name" "$dir" -b
}

t_mount_fs tmpfs 64m "$T/tm"
for where in "$T/tm" "$T/plain"; do
	mkdir -p "$where"
	for j in "-j 1" "-j 4" ""; do
		# shellcheck disable=SC2086
		run_shape "shape on $where $j" "$where/s" -b $j
		# shellcheck disable=SC2086
		run_many "40 files on $where $j" "$where/m" -b $j
	done
done

# The source has a~~ too: the old a goes one further, as in cp.
d="$T/tm/deep"
shape "$d"; echo "source a~~ data" >"$d/src/a~~"
reference "$d"
run_fcp -b -j 1 -T "$d/src" "$d/dst"
check_rc 0 "a~~ in the source"
source_kept "a~~ in the source" "$d"
check_eq "$(cat "$d/dst/a~~~")" OLD "a~~ in the source: the old a"
like_cp "a~~ in the source" "$d" -b

# Numbered: a.~1~, cp's name; the source's a~ stays a~.
d="$T/tm/num"
shape "$d"
reference "$d"
run_fcp --backup=numbered -j 1 -T "$d/src" "$d/dst"
check_rc 0 numbered
source_kept numbered "$d"
check_eq "$(cat "$d/dst/a.~1~")" OLD "numbered: the old a"
like_cp numbered "$d" --backup=numbered
# A numbered backup the source has is no name for the old one either.
shape "$d"; echo "source a.~1~" >"$d/src/a.~1~"
run_fcp --backup=numbered -j 1 -T "$d/src" "$d/dst"
check_rc 0 "numbered, a.~1~ in the source"
source_kept "numbered, a.~1~ in the source" "$d"
check_eq "$(cat "$d/dst/a.~2~")" OLD "numbered, a.~1~ in the source: the old a"

# --sync, --delete, --mirror: a DEST that has an old a~ too, and an extra
# e where the source has e~. Every old byte stays, under some name, once.
for opts in "--sync -b" "--delete -b" "--mirror -b" "--mirror --backup=numbered" "-b"; do
	for j in "-j 1" ""; do
		d="$T/tm/sync"
		rm -rf "$d" && mkdir -p "$d/src" "$d/dst"
		echo new >"$d/src/a"; echo "source a~" >"$d/src/a~"; echo "source e~" >"$d/src/e~"
		echo "OLD a, longer" >"$d/dst/a"; echo "old a~, longer" >"$d/dst/a~"
		echo "EXTRA e" >"$d/dst/e"
		# shellcheck disable=SC2086
		run_fcp $opts $j -T "$d/src" "$d/dst"
		check_rc 0 "$opts $j"
		source_kept "$opts $j" "$d"
		for old in "OLD a, longer" "old a~, longer" "EXTRA e"; do
			check_eq "$(cat "$d"/dst/* | grep -cxF "$old")" 1 "$opts $j: '$old' in DEST"
		done
		case $opts in
		--mirror\ -b | --delete\ -b)
			check_eq "$(cat "$d/dst/e~~")" "EXTRA e" "$opts $j: the extra e"
			check_absent "$d/dst/e" "$opts $j: the extra e stayed" ;;
		esac
	done
done

# Two SOURCEs merging into one copy, each in its round: the second's
# backup of the old a must not take the first's copy of a~ (GNU cp -b
# loses it: "cp -a -b d2/photos d1/photos out/").
for opts in -b "--mirror -b"; do
	d="$T/tm/merge"
	rm -rf "$d" && mkdir -p "$d/d2/photos" "$d/d1/photos" "$d/out/photos"
	echo "d2's a~" >"$d/d2/photos/a~"; echo "d1's a" >"$d/d1/photos/a"
	echo OLD >"$d/out/photos/a"
	# shellcheck disable=SC2086
	run_fcp $opts "$d/d2/photos" "$d/d1/photos" "$d/out/"
	check_rc 0 "merge $opts"
	check_eq "$(cat "$d/out/photos/a")" "d1's a" "merge $opts: a"
	check_eq "$(cat "$d/out/photos/a~")" "d2's a~" "merge $opts: the first SOURCE's a~"
	check_eq "$(cat "$d/out/photos/a~~")" OLD "merge $opts: the old a"
done

# Operands copied into one directory: a~ of one, a of another, in either
# order on the command line.
d="$T/tm/ops"
for order in "x/a~ y/a" "y/a x/a~"; do
	rm -rf "$d" && mkdir -p "$d/x" "$d/y" "$d/out"
	echo "x's a~" >"$d/x/a~"; echo "y's a" >"$d/y/a"; echo OLD >"$d/out/a"
	# shellcheck disable=SC2086
	set -- $order
	run_fcp -b "$d/$1" "$d/$2" "$d/out/"
	check_rc 0 "operands $order"
	check_eq "$(cat "$d/out/a")" "y's a" "operands $order: a"
	check_eq "$(cat "$d/out/a~")" "x's a~" "operands $order: a~"
	check_eq "$(cat "$d/out/a~~")" OLD "operands $order: the old a"
done

# A destination that takes no rename flags (as NFS): the same names.
if [ ! -c /dev/fuse ] || [ ! -x "$TOOLS/faultfs" ]; then
	note "no FUSE or no faultfs: a destination without rename flags not tried"
	echo PASS
	exit 0
fi
mkdir -p "$T/back"
faultfs_mount "$T/back" "$T/nf" --no-rename-flags
for b in -b --backup=numbered --backup=simple; do
	d="$T/nf/x"
	shape "$d"; echo "source a.~1~" >"$d/src/a.~1~"; echo "old a.~1~" >"$d/dst/a.~1~"
	run_fcp $b -T "$d/src" "$d/dst"
	check_rc 0 "no rename flags, $b"
	source_kept "no rename flags, $b" "$d"
	for old in OLD "old a.~1~"; do
		check_eq "$(cat "$d"/dst/* | grep -cxF "$old")" 1 "no rename flags, $b: '$old' in DEST"
	done
done
echo PASS
