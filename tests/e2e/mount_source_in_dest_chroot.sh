#!/bin/bash
# mount_source_in_dest.sh again, inside a chroot whose root is no mount
# point (a plain directory, as a debootstrap'd one is): there
# /proc/self/mountinfo lists no mount for / and none of the filesystem the
# test's files are on, only the mounts made below the root. fastcp told a
# SOURCE directory bind-mounted inside DEST by the mounts' paths alone, so
# it saw none there: the copy went into the source being read. Now the
# inodes tell it (the same st_dev and st_ino, file handles), as outside.
# The chroot is made in a mount namespace of its own: its mounts, and the
# test's inside it, go with it.
e2e=$(cd "$(dirname "$0")" && pwd)
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "a chroot and bind mounts need root"
need_cmd unshare chroot
unshare -m --propagation private true 2>/dev/null ||
	skip "no private mount namespace can be made here (a chroot already?)"
lib=$(cd "$TESTLIB" && pwd)
bin=$(cd "$(dirname "$FASTCP")" && pwd)

# The root: the system's programs (read-only), /dev, a fresh /proc, an
# empty /tmp, and the test with the fastcp under test.
R=$T/root
mkdir -p "$R/usr" "$R/etc" "$R/dev" "$R/proc" "$R/tmp" "$R/x/e2e" "$R/x/lib" "$R/x/bin"
chmod 1777 "$R/tmp"
binds="/usr:/usr /etc:/etc /dev:/dev $e2e:/x/e2e $lib:/x/lib $bin:/x/bin"
for d in bin sbin lib lib32 lib64; do
	if [ -L "/$d" ]; then
		cp -P "/$d" "$R/$d"
	elif [ -d "/$d" ]; then
		mkdir "$R/$d"
		binds="$binds /$d:/$d"
	fi
done
cat >"$T/enter" <<'EOF'
# In the new mount namespace: each bind read-only (so that no rm -rf of
# the root reaches the system's files), /proc, then the test in the chroot.
R=$1 binds=$2
shift 2
for b in $binds; do
	mount --bind "${b%%:*}" "$R${b#*:}" && mount -o remount,bind,ro "$R${b#*:}" || exit 3
done
mount -t proc proc "$R/proc" || exit 3
exec chroot "$R" /usr/bin/env FASTCP=/x/bin/fastcp TESTLIB=/x/lib TOOLS=/x/bin/tests/lib \
	bash /x/e2e/mount_source_in_dest.sh
EOF
unshare -m --propagation private bash "$T/enter" "$R" "$binds" >"$T/log" 2>&1
rc=$?
sed 's/^/  | /' "$T/log"
# Whatever it did, nothing may be left mounted below $T (rm -rf follows).
grep -q " $T/" /proc/self/mountinfo && fail "mounts left below $T"
[ $rc = 3 ] && skip "the chroot could not be made (bind or proc mount refused)"
[ $rc = 77 ] && skip "inside the chroot: $(tail -n 1 "$T/log")"
[ $rc = 0 ] || fail "mount_source_in_dest.sh failed in a chroot whose root is no mount point (exit $rc)"
check_grep "^# in a chroot whose root is no mount point$" "$T/log" "not run as in a chroot"
check_grep "^PASS$" "$T/log"
echo PASS
