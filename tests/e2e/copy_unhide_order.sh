#!/bin/bash
# A new directory copy is made under a hidden name marked with its source
# (user.fastcp.root) and renamed into place when whole. The marker comes
# off only after the rename: with the marker first, a run killed between
# the two left a whole copy hidden and unmarked, which the same command
# could not tell from a stranger's, so it made a second copy beside it,
# exited 0 and left the first (found by the scenario tester under load).
#   - The order, seen by strace: the rename of the hidden copy to its name,
#     then the marker's removal from it (the same directory).
#   - The state such a kill leaves (the copy under its name, both markers
#     on it) is finished by the same command in place: exit 0, no copy
#     inside the copy, no hidden copy, no marker left.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd strace getfattr setfattr

mkdir -p photos/2024
for i in $(seq 1 20); do head -c $((i * 997)) /dev/urandom >"photos/2024/img$i.jpg"; done
setfattr -n user.probe -v 1 photos/2024 2>/dev/null || skip "no user xattrs on $(stat -f -c %T .)"

strace -f -o "$T/trace" -e trace=renameat2,renameat,rename,fremovexattr,removexattr,lremovexattr \
	"$FASTCP" photos new >out 2>err
check_eq "$?" 0 "the copy under strace"
check_tree photos new
ren=$(grep -n 'rename[a-z0-9]*(.*"\.fcp-[0-9a-f-]*", .*"new"' "$T/trace" | head -1 | cut -d: -f1)
unm=$(grep -n 'removexattr(.*"user\.fastcp\.root"' "$T/trace" | head -1 | cut -d: -f1)
sed 's/^/  | /' "$T/trace" | grep -E 'rename|user.fastcp.root'
[ -n "$ren" ] || fail "no rename of the hidden copy to 'new' in the trace"
[ -n "$unm" ] || fail "no removal of user.fastcp.root in the trace"
[ "$ren" -lt "$unm" ] || fail "the marker came off (line $unm) before the rename (line $ren)"


# The state a kill between the two leaves: both markers on the named copy.
# They are made by a run stopped by a full destination (a tmpfs of 64 KiB,
# grown afterwards: the directory stays the same one, which the marker
# names), which keeps its copy hidden and marked; the rename is then done
# as the run would have done it.
t_mount_fs tmpfs 64k back
run_fcp photos back/new
check_rc 1 "a copy into a full destination"
hidden=$(find back -mindepth 1 -maxdepth 1 -name '.fcp-*')
[ -n "$hidden" ] || fail "the stopped run left no hidden copy"
getfattr --absolute-names -n user.fastcp.root "$hidden" >/dev/null 2>&1 ||
	fail "the hidden copy has no user.fastcp.root"
mount -o remount,size=16m back || fail "cannot grow the tmpfs"
mv "$hidden" back/new
run_fcp photos back/new
check_rc 0 "the same command after a kill between the rename and the unmarking"
check_absent back/new/photos "the copy copied into itself"
check_eq "$(find back -mindepth 1 -maxdepth 1 -name '.fcp-*' | wc -l)" 0 "hidden copies left"
check_eq "$(t_sums back/new)" "$(t_sums photos)" "every file of the source in the copy"
getfattr -d -m - --absolute-names back/new | grep -q 'user\.fastcp' && fail "a marker left on the finished copy"

# A hidden copy taken up by --sync: its directory's metadata is set before
# its rename, and setting it dropped user.fastcp.root as an xattr the
# source lacks, so a kill between the two left it hidden and unmarked.
# Now the marker comes off only after the rename there too.
mkdir back2
faultfs_mount back2 fback2 --enospc-after=20000
run_fcp --sync photos fback2/
check_rc 1 "a --sync copy into a full destination"
umount fback2
hidden=$(find back2 -mindepth 1 -maxdepth 1 -name '.fcp-*')
[ -n "$hidden" ] || fail "the stopped --sync run left no hidden copy"
strace -f -o "$T/trace2" -e trace=renameat2,renameat,rename,fremovexattr,removexattr,lremovexattr \
	"$FASTCP" --sync photos back2/ >out 2>err
check_eq "$?" 0 "the same --sync again under strace"
check_eq "$(t_sums back2/photos)" "$(t_sums photos)" "every file of the source in the copy"
ren=$(grep -n 'rename[a-z0-9]*(.*"\.fcp-[0-9a-f-]*", .*"photos"' "$T/trace2" | head -1 | cut -d: -f1)
unm=$(grep -n 'removexattr(.*"user\.fastcp\.root"' "$T/trace2" | head -1 | cut -d: -f1)
sed 's/^/  | /' "$T/trace2" | grep -E 'rename|user.fastcp.root'
[ -n "$ren" ] || fail "no rename of the taken-up copy to 'photos' in the trace"
[ -z "$unm" ] || [ "$ren" -lt "$unm" ] ||
	fail "the marker came off the taken-up copy (line $unm) before its rename (line $ren)"
echo PASS
