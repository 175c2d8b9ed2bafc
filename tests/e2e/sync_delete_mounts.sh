#!/bin/bash
# --delete and --mirror never delete on or below a mount point inside DEST
# (issue 33, item 3), a bind mount of the same filesystem included (st_dev
# alone cannot tell one): an extra that is a mount point (a directory or a
# file bind-mounted there) is neither entered nor deleted, a directory of
# the copy that is a mount point (or lies below one) is copied into but not
# tidied, and a directory in the way of a file is not removed there. Each
# is said, per item, as a mount point, and the exit status is 1. Every file
# of each mount's origin survives byte for byte; the extras elsewhere go.
# DEST itself may be a mount point: tidied as usual.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "bind mounts and tmpfs need root"

# Origins outside DEST, each with files of random bytes.
mkfiles() { # DIR N
	mkdir -p "$1/deep"
	for i in $(seq 1 "$2"); do head -c $((i * 997)) /dev/urandom >"$1/f$i"; done
	head -c 5000 /dev/urandom >"$1/deep/g"
}
mkfiles origin_x 20
mkfiles origin_vol 8
mkfiles origin_old 5
mkfiles origin_way 3
printf 'a bind-mounted file\n' >origin_file
(cd "$T" && find origin_* -type f -print0 | sort -z | xargs -0 sha256sum) >sums

mkdir -p src/vol src/sub/tmpin/below
printf 'a\n' >src/a
printf 'in vol\n' >src/vol/new
printf 'in tmpfs\n' >src/sub/tmpin/new
printf 'below\n' >src/sub/tmpin/below/new2
run_fcp -T src dst
check_rc 0 "first copy"
printf 'now a file\n' >src/way
printf 'now a file\n' >src/vol/deep  # a directory in origin_vol

# The mounts inside DEST, and the extras beside them.
mkdir dst/x dst/old dst/old/mnt dst/way
t_bind "$T/origin_x" "$T/dst/x"               # an extra: a bind mount
t_bind "$T/origin_vol" "$T/dst/vol"           # the copy of src/vol: a bind mount
t_bind "$T/origin_old" "$T/dst/old/mnt"       # inside an extra directory
t_bind "$T/origin_way" "$T/dst/way"           # a directory in the way of a file
: >dst/fileb                                  # an extra: a file bind-mounted
mount --bind "$T/origin_file" "$T/dst/fileb" || skip "cannot bind-mount a file"
t_mounts_+=("$T/dst/fileb")
t_mount_fs tmpfs 4m "$T/dst/tmp"              # an extra: a tmpfs
printf 'on tmpfs\n' >dst/tmp/t1
t_mount_fs tmpfs 4m "$T/dst/sub/tmpin"        # the copy of src/sub/tmpin: a tmpfs
printf 'keep me\n' >dst/sub/tmpin/t2
mkdir dst/sub/tmpin/below && printf 'keep me too\n' >dst/sub/tmpin/below/t3
printf 'x\n' >dst/extra
printf 'y\n' >dst/old/y

run_fcp --dry-run --mirror -T src dst
check_rc 1 "--dry-run --mirror with mount points inside DEST"
check_nogrep "^delete 'dst/(x|vol|tmp|fileb|way|old/mnt|sub/tmpin)[/']" "$T/out" \
	"--dry-run would delete on a mount point"
check_grep "^delete 'dst/extra'" "$T/out"
run_fcp -v --mirror -T src dst
check_rc 1 "--mirror with mount points inside DEST"
(cd "$T" && sha256sum --quiet -c sums) || fail "a file of a mount's origin changed or was lost"
check_file dst/tmp/t1 "deleted on a tmpfs mounted inside DEST"
check_file dst/sub/tmpin/t2 "deleted inside a tmpfs that is the copy of a source directory"
check_file dst/sub/tmpin/below/t3 "deleted below a tmpfs mount point"
check_eq "$(cat dst/vol/new dst/sub/tmpin/new dst/sub/tmpin/below/new2)" \
	"$(printf 'in vol\nin tmpfs\nbelow')" \
	"copied into the mount points"
check_absent dst/extra "an extra beside the mounts stayed"
check_absent dst/old/y "an extra beside a mount inside an extra directory stayed"
check_dir dst/old/mnt
for m in dst/x dst/fileb dst/tmp dst/old/mnt; do
	check_grep "deletions held back in '$m': it is a mount point" "$T/err"
done
check_grep "deletions held back in 'dst/vol': it is a mount point \(8 entries" "$T/err"
check_grep "deletions held back in 'dst/vol/deep': its directory is a mount point" "$T/err"
check_grep "deletions held back in 'dst/sub/tmpin': it is a mount point \(1 entry" "$T/err"
check_grep "deletions held back in 'dst/sub/tmpin/below': it is below a mount point" "$T/err"
check_nogrep "cannot delete 'dst/old'" "$T/err"
check_grep "deletions held back in 'dst/way': it is a mount point" "$T/err"
check_file dst/way/f1 "the directory in the way was emptied"

# Again: the same, nothing more lost, nothing more deleted.
run_fcp --mirror -T src dst
check_rc 1 "--mirror again"
(cd "$T" && sha256sum --quiet -c sums) || fail "a file of a mount's origin changed on the second run"

# The root copy of "--mirror src/photos backup/" is inside DEST: a bind
# mount there is not tidied either.
mkdir -p photos backup/photos
printf 'p\n' >photos/p
t_bind "$T/origin_x" "$T/backup/photos"
run_fcp --mirror photos backup/
check_rc 1 "--mirror into DEST whose copy is a bind mount"
check_grep "deletions held back in 'backup/photos': it is a mount point \(21 entries" "$T/err"
check_file backup/photos/p
(cd "$T" && sha256sum --quiet -c sums) || fail "a file of the root copy's mount was lost"

# DEST itself a mount point: the tree the user named, tidied as usual.
t_mount_fs tmpfs 4m "$T/mdest"
printf 'old\n' >mdest/stale
run_fcp --mirror -T src/sub mdest
check_rc 0 "--mirror onto a DEST that is a mount point"
check_absent mdest/stale "an extra of a DEST that is itself a mount point"
check_file mdest/tmpin/new
exit 0
