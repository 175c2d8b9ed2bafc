#!/bin/bash
# A full destination (a 4 MiB tmpfs): fastcp exits 1, reports no space, stops
# starting new files, removes its temporary files, leaves the unfinished root
# copy under its temporary name (named by its full path, nothing under the
# final name), and its summary says how many items were not copied.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
t_mount_fs tmpfs 4m "$T/small"

mkdir -p src/a src/b
for i in $(seq 1 12); do head -c 700K /dev/urandom >"src/a/f$i"; done
for i in $(seq 1 40); do printf 'small %d\n' "$i" >"src/b/s$i"; done

for threads in 1 4; do
	rm -rf "$T/small/dst" "$T"/small/.fcp-*
	run_fcp -v --threads $threads src "$T/small/dst"
	check_rc 1 "full destination (threads $threads)"
	check_grep "No space left on device" "$T/err"
	check_grep "not copied" "$T/all" "summary does not say how many items were not copied"
	check_absent "$T/small/dst" "an unfinished copy under its final name"
	left=$(find "$T/small" -mindepth 1 -maxdepth 1 -name '.fcp-*')
	[ "$(printf '%s\n' "$left" | grep -c .)" = 1 ] || fail "not one hidden copy: $left"
	check_grep "unfinished copy of 'src' is left as '$left'" "$T/err"
	check_no_temp_inside "$left"
	# Every file in the hidden copy is complete.
	while IFS= read -r -d '' f; do
		cmp -s "$f" "src/${f#"$left/"}" || fail "partial or wrong file left: $f"
	done < <(find "$left" -type f -print0)
done
echo "full destination handled"
