#!/bin/bash
# --move with an option that makes no copy of the data (--attributes-only,
# -l, -s) is bad usage, exit 2, and nothing changes: with
# --attributes-only the source's mtime stamped on another file of the
# same size let the quick check call it a copy, and the source went; -s
# left a symlink to the source it removed. Both sides are checked byte
# for byte, on one filesystem (a rename) and across two (a copy).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd cmp
t_mount_fs tmpfs 16m "$T/mnt"

R=$T/ref
mkdir -p "$R/src/sub" "$R/dst/src/sub"
head -c 5000 /dev/urandom >"$R/src/sub/photo"
head -c 5000 /dev/urandom >"$R/dst/src/sub/photo"
touch -d @1500000000 "$R/src/sub/photo"
touch -d @1400000000 "$R/dst/src/sub/photo"

for where in "$T/mnt" "$T"; do
	for opt in --attributes-only -l --link -s --symbolic-link; do
		rm -rf "$where/w" && mkdir "$where/w" && cp -a "$R/src" "$R/dst" "$where/w/" || fail setup
		# A directory, merged into DEST's copy of it, and a file onto
		# a file: the same refusal.
		for args in "$where/w/src $where/w/dst" "$where/w/src/sub/photo $where/w/dst/src/sub/photo"; do
			# shellcheck disable=SC2086
			run_fcp --move $opt $args
			check_rc 2 "--move $opt"
			check_grep "^fastcp: --move cannot be combined with .*${opt#--}" "$T/err"
			cmp -s "$R/src/sub/photo" "$where/w/src/sub/photo" || fail "--move $opt: the source changed"
			cmp -s "$R/dst/src/sub/photo" "$where/w/dst/src/sub/photo" ||
				fail "--move $opt: the file in DEST changed"
			check_eq "$(stat -c %Y "$where/w/dst/src/sub/photo")" 1400000000 "--move $opt: DEST's mtime"
			check_eq "$(find "$where/w" | wc -l)" 8 "--move $opt: entries made or removed"
		done
	done
done
echo "--move with --attributes-only, -l, -s: refused, nothing changed"
