#!/bin/bash
# --check and --check --manifest read DEST from its storage (O_DIRECT), as
# --verify's read-back does. Where a filesystem of DEST refuses O_DIRECT
# (ramfs; tmpfs before Linux 6.6; some FUSE, played here by deny's
# 'direct' on a loopback ext4), its files are read through the page cache:
# that is said once per filesystem, naming the highest directory of DEST
# on it, and is a note, not a failure (the exit status is the
# comparison's, a difference still found). A filesystem that takes
# O_DIRECT gets no such line.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_deny
need_cmd python3
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"
cd "$T" || fail "cd $T"

E=$T/ext4
t_mount_fs ext4 200M "$E"
mkdir -p src/a src/b
for i in 1 2 3 4 5 6; do
	head -c $((i * 1500)) /dev/urandom >"src/a/f$i"      # batched (io_uring)
	head -c $((i * 400000)) /dev/urandom >"src/b/g$i"    # one by one
done

# notes: the O_DIRECT lines of the last run ($T/err).
notes() { grep -E "^fastcp: check: '.*' (cannot do O_DIRECT|is held in memory)" "$T/err"; }
disk() { echo "fastcp: check: '$1' cannot do O_DIRECT: its files are read through the page cache, so the bytes compared may be cached ones, not the disk's"; }
mem() { echo "fastcp: check: '$1' is held in memory (tmpfs or ramfs): its files are read from there"; }
run_deny() { FCP_WRAP="$DENY direct --" run_fcp "$@"; }
# direct_ok DIR: does DIR's filesystem take O_DIRECT?
direct_ok() {
	python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT))' "$1" \
		2>/dev/null
}

run_fcp --manifest "$T/m.db" -T src "$E/dst"
check_rc 0 "copy onto ext4"
direct_ok "$E/dst/b/g1" || skip "this ext4 refuses O_DIRECT: nothing to compare the note with"

# ext4 takes O_DIRECT: no note, in every mode.
for mode in "" --no-io-uring; do
	run_fcp $mode --check -T src "$E/dst"
	check_rc 0 "check $mode on ext4"
	check_eq "$(notes)" "" "a note on a filesystem that takes O_DIRECT ($mode)"
done
run_fcp --check --manifest "$T/m.db" "$E/dst"
check_rc 0 "check --manifest on ext4"
check_eq "$(notes)" "" "a note on a filesystem that takes O_DIRECT (--manifest)"

# The same ext4 refusing O_DIRECT: said once, the check still equal.
for mode in "" --no-io-uring; do
	run_deny $mode --check -T src "$E/dst"
	check_rc 0 "check $mode, O_DIRECT refused"
	check_eq "$(notes)" "$(disk "$E/dst")" "the note, once ($mode)"
done
run_deny --check --manifest "$T/m.db" "$E/dst"
check_rc 0 "check --manifest, O_DIRECT refused"
check_eq "$(notes)" "$(disk "$E/dst")" "the note, once (--manifest)"
# A note, not a verdict: a difference is still one (exit 1).
printf X | dd of="$E/dst/b/g3" bs=1 seek=1000 conv=notrunc status=none
touch -r src/b/g3 "$E/dst/b/g3"
run_deny --check -T src "$E/dst"
check_rc 1 "check of a damaged copy, O_DIRECT refused"
check_grep "^content differs: '$E/dst/b/g3'$" "$T/out"
check_eq "$(notes)" "$(disk "$E/dst")" "the note beside a difference"
run_deny --check --manifest "$T/m.db" "$E/dst"
check_rc 1 "check --manifest of a damaged copy, O_DIRECT refused"
check_grep "^content differs: '$E/dst/b/g3'$" "$T/out"
cp -p src/b/g3 "$E/dst/b/g3"

# Once per filesystem: ramfs (no O_DIRECT, memory its only storage)
# mounted at dst/b, inside the ext4 copy.
mount -t ramfs ramfs "$E/dst/b" 2>/dev/null || skip "cannot mount ramfs"
t_mounts_+=("$E/dst/b")
cp -p src/b/* "$E/dst/b/" && touch -r src/b "$E/dst/b"
run_fcp --check -T src "$E/dst"
check_rc 0 "check with ramfs below DEST"
check_eq "$(notes)" "$(mem "$E/dst/b")" "the note for ramfs alone"
run_deny --check -T src "$E/dst"
check_rc 0 "check with ramfs below DEST, O_DIRECT refused everywhere"
check_eq "$(notes | sort)" "$( (disk "$E/dst"; mem "$E/dst/b") | sort)" "a note per filesystem"
run_fcp --check --manifest "$T/m.db" "$E/dst"
check_rc 1 "check --manifest with ramfs below DEST (another mount: not compared)"
check_eq "$(notes)" "$(mem "$E/dst/b")" "the note for ramfs alone (--manifest)"

# tmpfs: takes O_DIRECT from Linux 6.6 on; the note only where it does not.
M=$T/tmpfs
t_mount_fs tmpfs 64M "$M"
run_fcp --manifest "$T/m2.db" -T src "$M/dst"
check_rc 0 "copy onto tmpfs"
want=
direct_ok "$M/dst/b/g1" || want=$(mem "$M/dst")
run_fcp --check -T src "$M/dst"
check_rc 0 "check on tmpfs"
check_eq "$(notes)" "$want" "the note on tmpfs"
run_fcp --check --manifest "$T/m2.db" "$M/dst"
check_rc 0 "check --manifest on tmpfs"
check_eq "$(notes)" "$want" "the note on tmpfs (--manifest)"
echo PASS
