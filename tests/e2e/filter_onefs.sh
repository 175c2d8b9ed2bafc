#!/bin/bash
# -x, --one-file-system (issue 20): a directory on another filesystem
# (a mount point below the source) is made, empty, as cp -x does; its
# contents are not read. Without -x they are copied. Under --delete the
# copy of a mount point keeps what it holds: its source was not read.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "mounting a tmpfs needs root"

mkdir -p src/d/mnt src/e
printf 'a\n' >src/d/a
printf 'e\n' >src/e/f
t_mount_fs tmpfs 4m "$T/src/d/mnt" # absolute: the cleanup runs from /
mkdir -p src/d/mnt/inner
printf 'on tmpfs\n' >src/d/mnt/inner/g
chmod 0750 src/d/mnt

run_fcp -v -x -T src dst
check_rc 0 "-x"
check_file dst/d/a
check_file dst/e/f
check_dir dst/d/mnt "the mount point's directory"
check_eq "$(ls -A dst/d/mnt)" "" "-x copied what is mounted"
check_eq "$(stat -c %a dst/d/mnt)" 750 "the mount point's own mode"

run_fcp --one-file-system --delete -T src dst2
check_rc 0
printf 'mine\n' >dst2/d/mnt/keep
run_fcp -x --delete -T src dst2
check_rc 0 "-x --delete"
check_file dst2/d/mnt/keep "deleted inside a mount point's copy it never read"

run_fcp -T src all2
check_file all2/d/mnt/inner/g "without -x"
exit 0
