#!/bin/bash
# What only reads moves no access time (review M4): on a tmpfs mounted
# strictatime (every read moves atime), `fastcp --check --manifest FILE
# DEST`, `--check SOURCE DEST`, `--dry-run -c` and `--dry-run --dedup`
# leave the atimes of every file and directory of the source and of DEST
# as they were: they open what they read with O_NOATIME, as root and as
# the owner of the files (a non-root user who owns them may ask for it).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "mounting a strictatime tmpfs needs root"
need_cmd sqlite3 setpriv
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"
mkdir "$T/mnt"
mount -t tmpfs -o strictatime,size=64m tmpfs "$T/mnt" || skip "cannot mount tmpfs"
t_mounts_+=("$T/mnt")
cd "$T/mnt" || fail "cd"

mkdir -p src/sub/deeper
for i in 1 2 3; do
	head -c $((i * 7000)) /dev/urandom >"src/sub/f$i"
	cp src/sub/f$i "src/sub/deeper/g$i" # the same bytes: --dedup reads both
done
run_fcp --manifest "$T/m.db" -T src dst
check_rc 0 "copy"
# The list is taken once: find reads directories, and moves their atime.
mapfile -t items < <(find src dst)
old() { touch -a -d '2001-01-01 00:00:00' "${items[@]}"; }
atimes() { stat -c '%n %x' "${items[@]}"; }
old
# Does this mount move atime on a read at all?
atimes >"$T/a0"
cat src/sub/f1 >/dev/null
ls src/sub >/dev/null
atimes >"$T/probe"
cmp -s "$T/a0" "$T/probe" && skip "reads do not move atime on this tmpfs"

# as WHO CMD...: run fastcp, then say which atimes moved.
as() {
	local who=$1
	shift
	old
	atimes >"$T/before"
	if [ "$who" = root ]; then
		run_fcp "$@"
	else
		FCP_WRAP="setpriv --reuid=$who --regid=$who --clear-groups" run_fcp "$@"
	fi
	atimes >"$T/after"
	diff "$T/before" "$T/after" >"$T/moved"
	check_eq "$(grep -c '^>' "$T/moved")" 0 "atimes moved by '$*' as $who: $(grep '^>' "$T/moved" | head -5 | tr '\n' ' ')"
}

for who in root owner; do
	if [ $who = owner ]; then
		# A user who owns them all, manifest included.
		chown -R 65534:65534 src dst "$T/m.db"
		chmod 777 "$T"
		who=65534
	fi
	as $who --check --manifest "$T/m.db" dst
	check_rc 0 "check of DEST alone"
	as $who --check -T src dst
	check_rc 0 "check against the source"
	as $who --dry-run -c -T src dst
	check_rc 0 "dry run with -c"
	as $who --dry-run --dedup -T src dst2
	check_rc 0 "dry run with --dedup"
	check_absent dst2 "the dry run made nothing"
done
echo "PASS"
