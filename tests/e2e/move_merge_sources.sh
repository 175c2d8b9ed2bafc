#!/bin/bash
# --move with two SOURCE directories of one name (sa/x sb/x DEST/): they
# merge into DEST/x, the later one's files over the earlier one's. A file
# of sb/x that replaces (or, with --in-place, rewrites) the copy of sa/x's
# file of its name leaves sa/x's file with no copy: it must stay in its
# source, named, exit 1. On one filesystem sa/x was renamed whole into
# DEST/x and then sb/x merged over it, and sa/x's file existed nowhere,
# exit 0. Checked on one filesystem and across two, into a DEST/x that is
# missing or empty, plain and with --in-place: every source byte is in its
# source or under its name in DEST/x, nothing outside DEST changes; and
# two sources whose files are equal both go, exit 0.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd cmp
t_mount_fs tmpfs 64m "$T/mnt"

# The reference: f collides (same size and mtime, other bytes), same is
# the same file in both, only_a and only_b are each in one source.
R=$T/ref
mkdir -p "$R/sa/x/sub" "$R/sb/x/sub"
head -c 20000 /dev/urandom >"$R/sa/x/f"
head -c 20000 /dev/urandom >"$R/sb/x/f"
head -c 3000 /dev/urandom >"$R/sa/x/sub/g"
head -c 3000 /dev/urandom >"$R/sb/x/sub/g"
head -c 5000 /dev/urandom >"$R/sa/x/same"
cp "$R/sa/x/same" "$R/sb/x/same"
echo "only in a" >"$R/sa/x/only_a"
echo "only in b" >"$R/sb/x/only_b"
touch -d @1500000000 "$R"/sa/x/f "$R"/sb/x/f "$R"/sa/x/sub/g "$R"/sb/x/sub/g "$R"/s?/x/same
cmp -s "$R/sa/x/f" "$R/sb/x/f" && fail "random files equal"

# setup SRCBASE BASE [empty]: fresh sources in SRCBASE, DEST (BASE/d) and
# a directory beside it; with "empty", DEST/x is there, empty.
setup() {
	rm -rf "$1/sa" "$1/sb" "$2/d" "$2/other"
	mkdir -p "$1" "$2/d" "$2/other"
	cp -a "$R/sa" "$R/sb" "$1/" || fail setup
	echo "not to be touched" >"$2/other/keep"
	[ "${3:-}" = empty ] && mkdir "$2/d/x"
	return 0
}

# survives REF SRC DST: the reference file's bytes are in its source, or
# else under its name in DEST (and then its source is gone).
survives() {
	if [ -e "$2" ]; then
		cmp -s "$1" "$2" || fail "$2: the source was altered"
	else
		cmp -s "$1" "$3" || fail "$2 is gone and its bytes are not at $3: lost"
	fi
}

merge_case() {
	local sb=$1 b=$2 empty=$3 p
	shift 3
	setup "$sb" "$b" "$empty"
	run_fcp --move "$@" "$sb/sa/x" "$sb/sb/x" "$b/d/"
	for p in f sub/g same only_a; do
		survives "$R/sa/x/$p" "$sb/sa/x/$p" "$b/d/x/$p"
	done
	for p in f sub/g same only_b; do
		survives "$R/sb/x/$p" "$sb/sb/x/$p" "$b/d/x/$p"
	done
	check_rc 1 "--move $* of two sources x (DEST/x $empty)"
	# The later source's files are the copy's; the earlier's they
	# replaced stay, named; the rest of both went.
	cmp -s "$R/sb/x/f" "$b/d/x/f" || fail "DEST/x/f is not the later source's"
	cmp -s "$R/sb/x/sub/g" "$b/d/x/sub/g" || fail "DEST/x/sub/g is not the later source's"
	check_file "$sb/sa/x/f" "the earlier source's f, replaced in DEST"
	check_file "$sb/sa/x/sub/g" "the earlier source's sub/g, replaced in DEST"
	check_grep "not removing '$sb/sa/x/f': what is at its destination is another SOURCE's" "$T/err"
	check_grep "not removing '$sb/sa/x/sub/g'" "$T/err"
	for p in sa/x/same sa/x/only_a sb/x; do
		check_absent "$sb/$p" "moved: $p"
	done
	cmp -s "$b/other/keep" - <<<"not to be touched" || fail "a file outside DEST changed"
	check_no_temp "$b/d"
}

for where in one two; do
	if [ $where = one ]; then sb=$T/mnt/s b=$T/mnt; else sb=$T/s b=$T/mnt; fi
	note "$where filesystem(s): $sb -> $b/d"
	for empty in missing empty; do
		merge_case "$sb" "$b" $empty
		merge_case "$sb" "$b" $empty --in-place
	done
	# Equal files in both sources: both go, the copy is theirs.
	for opt in "" --in-place; do
		setup "$sb" "$b"
		cp -a "$R/sa/x/f" "$sb/sb/x/f" && cp -a "$R/sa/x/sub/g" "$sb/sb/x/sub/g"
		# shellcheck disable=SC2086
		run_fcp --move $opt "$sb/sa/x" "$sb/sb/x" "$b/d/"
		check_rc 0 "--move $opt of two sources x whose files are equal"
		check_absent "$sb/sa/x" && check_absent "$sb/sb/x"
		cmp -s "$R/sa/x/f" "$b/d/x/f" || fail "DEST/x/f of equal sources"
		cmp -s "$R/sa/x/only_a" "$b/d/x/only_a" || fail "DEST/x/only_a"
		cmp -s "$R/sb/x/only_b" "$b/d/x/only_b" || fail "DEST/x/only_b"
	done
done
echo "--move of two sources of one name: nothing lost"
