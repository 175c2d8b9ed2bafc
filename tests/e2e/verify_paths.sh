#!/bin/bash
# --verify on every data path, from one loopback XFS (reflink=1) onto another
# (XFS shows ACLs as its own xattrs: the trees compare only XFS to XFS)
# (issue 19):
#   - the sample tree plus a medium file with an unaligned tail and a large
#     file (chunks): through the io_uring batch (--reflink=never, so it is
#     taken at once), the synchronous path (--no-io-uring), and by default;
#     each copy exact (treecmp), every copied file counted as verified;
#   - the read-back comes from the device: the loop device's sectors read
#     grow by at least the bytes of the (non-sparse) files verified, and do
#     not without --verify (so the measure can tell);
#   - XFS to XFS, the files are cloned: "N files cloned, verified by
#     re-reading shared extents", extents still shared, the copy exact;
#   - onto ramfs, which has no O_DIRECT: said once, the copy verified anyway;
#     onto ramfs and tmpfs the summary says the copies were read back from
#     memory, where they are kept, never "from storage"
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_root "loopback filesystems need root"
FCP_TIMEOUT=180

X=$T/xfs
t_mount_fs xfs 400M "$X"
loop=$(findmnt -n -o SOURCE "$X")
stat_f=/sys/block/${loop#/dev/}/stat
[ -r "$stat_f" ] || skip "no $stat_f to count the device's reads"
sectors_read() { awk '{ print $3 }' "$stat_f"; }

t_mount_fs xfs 300M "$T/xsrc"
S=$T/xsrc/src
t_mktree "$S" nodeep
head -c 3146962 /dev/urandom >"$S/files/odd_tail"
head -c $((70 << 20)) /dev/urandom >"$S/files/large"  # > FCP_LARGE_MIN: chunks
# The bytes a read-back must fetch from the device: the files without holes.
dense=$(find "$S" -type f -printf '%s %b\n' | awk '$2 * 512 >= $1 { s += $1 } END { print s }')

# copied_eq_verified: the summary's copied and verified counts agree.
copied_eq_verified() {
	local c v
	c=$(sed -n 's/^fastcp: copied \([0-9]*\) file.*/\1/p' "$T/err")
	v=$(sed -n 's/^fastcp: verified \([0-9]*\) file.*/\1/p' "$T/err")
	[ -n "$c" ] && [ "$c" -gt 60 ] || fail "no copied count in the summary"
	check_eq "$v" "$c" "files verified"
}

n=0
for opts in "--reflink=never" "--no-io-uring" ""; do
	n=$((n + 1))
	sync
	before=$(sectors_read)
	run_fcp -v --verify $opts "$S" "$X/v$n"
	after=$(sectors_read)
	check_rc 0 "--verify $opts"
	check_tree "$S" "$X/v$n"
	copied_eq_verified
	check_grep "^fastcp: verified [0-9]+ files \(.*\) read back from storage$" "$T/err"
	[ $(((after - before) * 512)) -ge "$dense" ] ||
		fail "--verify $opts: the device read $(((after - before) * 512)) bytes, less than the $dense verified"
	check_nogrep "O_DIRECT" "$T/err"
done
check_grep "io_uring\)" "$T/all" "the default copy did not go through io_uring"

# Control: the same copy without --verify reads (almost) nothing back.
sync
before=$(sectors_read)
run_fcp "$S" "$X/plain"
after=$(sectors_read)
check_rc 0
[ $(((after - before) * 512)) -lt "$dense" ] ||
	fail "without --verify the device read $(((after - before) * 512)) bytes: the measure cannot tell"

# XFS to XFS: clones, verified by reading them back.
run_fcp -v --verify "$X/v1" "$X/clone"
check_rc 0 "--verify of clones"
check_tree "$S" "$X/clone"
"$TREECMP" --shared "$X/clone/files/large" || fail "files/large was not cloned"
check_grep "^fastcp: [0-9]+ files cloned, verified by re-reading shared extents$" "$T/err"
check_nogrep "cloned \(reflink\)" "$T/err"

# ramfs: no O_DIRECT, and no storage but the memory the copy was written
# to: said once, and the summary says it read back from memory (contents
# only: ramfs keeps neither ACLs nor, read back, holes).
R=$T/ram
mkdir -p "$R"
mount -t ramfs ramfs "$R" 2>/dev/null || skip "cannot mount ramfs"
t_mounts_+=("$R")
run_fcp -v --verify --no-preserve=xattr "$S" "$R/copy"
check_rc 0 "--verify onto ramfs"
check_tree "$S" "$R/copy" --content-only
copied_eq_verified
check_eq "$(grep -c "verify: '$R/copy' is held in memory (tmpfs or ramfs): the copies are read back from there" "$T/err")" 1 \
	"the read-back from memory said once"
check_grep "^fastcp: verified [0-9]+ files \(.*\) read back from memory: the destination \(tmpfs or ramfs\) keeps them nowhere else$" "$T/err"
check_nogrep "from storage" "$T/err"

# tmpfs: O_DIRECT taken (Linux 6.6 on) or not, the read-back reads the
# memory the copy was written to; never "from storage".
M=$T/tmp
t_mount_fs tmpfs 200M "$M"
run_fcp -v --verify --json --no-preserve=xattr "$S" "$M/copy"
check_rc 0 "--verify onto tmpfs"
check_tree "$S" "$M/copy" --content-only
python3 -c 'import json,sys; s = json.load(open(sys.argv[1]))
assert s["verified_files"] > 60 and s["verified_in_memory"] == s["verified_files"], s' "$T/out" ||
	fail "verified_in_memory is not every verified file"
run_fcp -v --verify --no-preserve=xattr "$S" "$M/copy2"
check_rc 0 "--verify onto tmpfs, summary"
copied_eq_verified
check_grep "^fastcp: verified [0-9]+ files \(.*\) read back from memory: the destination \(tmpfs or ramfs\) keeps them nowhere else$" "$T/err"
check_nogrep "from storage" "$T/err"
echo "PASS"
