# lib.sh - helpers for the end-to-end tests (bash; source it, don't run it).
#
#   . "$TESTLIB/lib.sh"; t_init
#
# Conventions (tests/run.sh): exit 0 = pass, 1 = fail, 77 = skip with the
# reason as the last line of output. Every test gets a private work dir $T
# under /tmp; t_init arranges for it, and for every mount and loop device made
# through these helpers, to be removed on exit, whether the test passed,
# failed, skipped or was interrupted.
#
# Environment from tests/run.sh: FASTCP, FASTCP_BENCH, TREECMP, TESTLIB, TOOLS.
# Defaults below let a test also be run by hand from the top of the repo.

top_=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${FASTCP:=$top_/build/fastcp}" "${TREECMP:=$top_/build/tests/lib/treecmp}"
: "${TESTLIB:=$top_/tests/lib}" "${TOOLS:=$top_/build/tests/lib}"
: "${FASTCP_BENCH:=$top_/build/fastcp-bench}" "${FASTCP_MPI:=$top_/build/fastcp-mpi}"
set -u
export LC_ALL=C
# make check-sanitize: LeakSanitizer cannot work under ptrace, so a test
# that runs fastcp under strace keeps ASan and UBSan, not the leak check.
if [ -n "${FCP_SANITIZE:-}" ] && grep -qw strace "$0" 2>/dev/null; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
umask 022

T=
t_mounts_=()  # mount points, unmounted in reverse order
t_loops_=()   # loop devices, detached after the unmounts
t_holds_=()   # faultfs --hold files, removed before the unmounts

t_cleanup_() {
	local rc=$? i
	trap - EXIT INT TERM
	cd / || true
	# faultfs lets its held requests go first: an unmount would wait
	# behind them.
	for i in "${t_holds_[@]}"; do
		rm -f "$i"
	done
	for ((i = ${#t_mounts_[@]} - 1; i >= 0; i--)); do
		umount "${t_mounts_[i]}" 2>/dev/null || umount -l "${t_mounts_[i]}" 2>/dev/null
	done
	for i in "${t_loops_[@]}"; do
		losetup -d "$i" 2>/dev/null
	done
	# rm -rf copes with modes 0000/0500 as root and with trees deeper
	# than PATH_MAX; make it writable first for the non-root case.
	if [ -n "$T" ] && [ -d "$T" ]; then
		# (A test's chattr +i or +a would stop rm -rf, also as root.)
		command -v chattr >/dev/null && chattr -R -i -a "$T" 2>/dev/null
		chmod -R u+rwx "$T" 2>/dev/null
		rm -rf "$T"
	fi
	exit "$rc"
}

# Make the work dir $T and register the cleanup. Call first in every test.
t_init() {
	T=$(mktemp -d /tmp/fcp-test.XXXXXX) || { echo "FAIL: mktemp" >&2; exit 1; }
	chmod 755 "$T"
	trap t_cleanup_ EXIT
	trap 'exit 130' INT TERM
	cd "$T" || exit 1
}

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
note() { echo "# $*"; }

need_root() { [ "$(id -u)" = 0 ] || skip "${1:-needs root}"; }
need_cmd() {
	local c
	for c; do command -v "$c" >/dev/null 2>&1 || skip "command '$c' not installed"; done
}
# need_built SYMBOL REASON: skip unless the build's probe defined SYMBOL
# (build/config.h, beside $FASTCP), e.g. need_built HAVE_SQLITE3 "built without SQLite".
need_built() { grep -q "define $1 1" "$(dirname "$FASTCP")/config.h" 2>/dev/null || skip "$2"; }
need_fastcp() { [ -x "$FASTCP" ] || fail "fastcp binary missing: $FASTCP (run make all)"; }
need_treecmp() { [ -x "$TREECMP" ] || fail "treecmp missing: $TREECMP (run make all)"; }
# need_deny: $DENY, the tool that refuses kernel features (tests/lib/deny.c).
need_deny() { DENY=$TOOLS/deny; [ -x "$DENY" ] || fail "deny missing: $DENY (run make all)"; }

# ---- assertions ----

# check CMD...: CMD must succeed.
check() { "$@" || fail "command failed (exit $?): $*"; }
# check_not CMD...: CMD must fail.
check_not() { ! "$@" || fail "command should have failed: $*"; }
check_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: got '$1', want '$2'"; }
check_file() { [ -f "$1" ] && [ ! -L "$1" ] || fail "${2:-missing regular file}: $1"; }
check_dir() { [ -d "$1" ] && [ ! -L "$1" ] || fail "${2:-missing directory}: $1"; }
check_link() { [ -L "$1" ] || fail "${2:-missing symlink}: $1"; }
check_absent() { [ ! -e "$1" ] && [ ! -L "$1" ] || fail "${2:-should not exist}: $1"; }
# check_grep EXTENDED-REGEX FILE [MSG]
check_grep() {
	grep -Eq -- "$1" "$2" || { sed 's/^/  | /' "$2" | head -20; fail "${3:-no line matches /$1/ in $2}"; }
}
check_nogrep() {
	! grep -Eq -- "$1" "$2" || { grep -E -- "$1" "$2" | head -5; fail "${3:-unexpected /$1/ in $2}"; }
}

# t_rot FILE OFFSET: one byte of FILE changed for sure, its size and mtime
# kept (bit rot as a manifest or a quick check cannot see it).
t_rot() {
	local b
	touch -r "$1" "$T/stamp"
	b=$(dd if="$1" bs=1 skip="$2" count=1 status=none)
	[ "$b" = X ] && b=Y || b=X
	printf '%s' "$b" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
	touch -m -r "$T/stamp" "$1"
}
# t_looks FILE: what a quick check sees of FILE (size, mtime, ctime, inode).
t_looks() { stat -c '%s %.9Y %.9Z %i' "$1"; }

# t_tempname DIR [RANDOM]: the temporary name a fastcp run makes in DIR,
# as a run killed there leaves it (tests/lib/tempname.c).
t_tempname() { "$TOOLS/tempname" "$@" || fail "tempname $*"; }

# t_sums DIR: the sha256 of every regular file below DIR, by relative path,
# sorted: two trees hold the same bytes under the same names when equal.
t_sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# check_tree SRC DST [treecmp options]: trees must compare equal.
check_tree() {
	local s=$1 d=$2 out="$T/treecmp.out" rc
	shift 2
	"$TREECMP" "$@" "$s" "$d" >"$out" 2>&1
	rc=$?
	[ $rc = 0 ] && return 0
	echo "treecmp $* $s $d -> exit $rc:"
	head -40 "$out" | sed 's/^/  | /'
	fail "trees differ: $s vs $d"
}

# check_no_temp DIR: no temporary file of fastcp may be left behind.
check_no_temp() {
	local left
	left=$(find "$1" -name '.fcp*' 2>/dev/null | head -5)
	[ -z "$left" ] || fail "temporary files left behind: $left"
}

# check_no_temp_inside DIR: the same below DIR (itself a hidden .fcp-* copy).
check_no_temp_inside() {
	local left
	left=$(find "$1" -mindepth 1 -name '.fcp*' 2>/dev/null | head -5)
	[ -z "$left" ] || fail "temporary files left behind: $left"
}

# run_fcp ARGS...: run fastcp with a time limit (a hang is a failure, not a
# stuck suite); stdout in $T/out, stderr in $T/err, exit status in $RC. Both
# are echoed to the log so a failure can be read without rerunning. $T/all
# holds both, for messages that may go to either. FCP_WRAP, if set, is a
# command prefix (e.g. setpriv to run as another user).
RC=
run_fcp() {
	# shellcheck disable=SC2086
	timeout -k 5 "${FCP_TIMEOUT:-60}" ${FCP_WRAP:-} "$FASTCP" "$@" >"$T/out" 2>"$T/err"
	ran_ $? fastcp "$*"
}
# ran_ STATUS NAME ARGS: record and show a run whose output is in $T/out
# and $T/err (run_fcp's contract).
ran_() {
	RC=$1
	cat "$T/out" "$T/err" >"$T/all"
	echo "\$ $2 $3 -> exit $RC"
	head -c 3000 "$T/out" | sed 's/^/  out| /'
	head -c 3000 "$T/err" | sed 's/^/  err| /'
	[ "$RC" = 124 ] || [ "$RC" = 137 ] && fail "$2 timed out: $3"
	return 0
}
check_rc() { [ "$RC" = "$1" ] || fail "${2:-fastcp exit status} $RC, want $1"; }

# need_mpi: mpirun and fastcp-mpi (built where mpicc is: libopenmpi-dev).
need_mpi() {
	command -v mpirun >/dev/null 2>&1 || skip "mpirun not installed (openmpi-bin)"
	[ -x "$FASTCP_MPI" ] || skip "fastcp-mpi not built (libopenmpi-dev not installed)"
	[ "${FCP_SANITIZE:-}" = asan ] && mpi_lsan_
	return 0
}
# make check-sanitize: Open MPI keeps what MPI_Init allocates until exit
# (and frees some of it from components it has unloaded), so LeakSanitizer
# would fail every run on Open MPI's own memory. Leaks whose stack passes
# through Open MPI's libraries are suppressed; fastcp's own are still
# reported. The full unwinder is needed: the fast one stops at the first
# library built without frame pointers and names no Open MPI frame. The
# file is in $T, which the ranks of mpi_nonroot.sh (run as nobody) can read.
mpi_lsan_() {
	local l
	for l in libmpi.so libopen-pal.so libopen-rte.so libhwloc.so libpmix.so libevent; do
		echo "leak:$l"
	done >"$T/lsan-mpi.supp"
	export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$T/lsan-mpi.supp:print_suppressions=0"
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0"
}
# run_mpi N ARGS...: run_fcp's contract for fastcp-mpi on N ranks of this
# machine (more ranks than CPUs allowed; as root too, as the tests run).
# MPIRUN_OPTS: more options for mpirun (--tag-output: "[job,rank]" lines).
run_mpi() {
	run_mpi_as "" "$@"
}
# run_mpi_as WRAP N ARGS...: the same, mpirun run by the command prefix WRAP
# (e.g. setpriv to run as another user).
run_mpi_as() {
	local wrap=$1 n=$2
	shift 2
	# shellcheck disable=SC2086
	timeout -k 5 "${FCP_TIMEOUT:-120}" $wrap $MPIRUN_ ${MPIRUN_OPTS:-} -np "$n" "$FASTCP_MPI" "$@" \
		>"$T/out" 2>"$T/err"
	ran_ $? "mpirun -np $n fastcp-mpi" "$*"
}
# mpi_bg N ARGS...: fastcp-mpi on N ranks in the background, its output in
# $T/out and $T/err; $mp is mpirun's pid.
mpi_bg() {
	local n=$1
	shift
	$MPIRUN_ -np "$n" "$FASTCP_MPI" "$@" >"$T/out" 2>"$T/err" &
	mp=$!
}
# mpi_started DIR: wait until the copy of mpi_bg has begun in DIR (rank 0
# made the root copy there, under whatever name) or mpirun ($mp) ended.
# A rank signalled or killed inside MPI_Init is Open MPI's matter, not the
# copy's: there the launcher was seen to wait for it for good.
mpi_started() {
	local i
	for ((i = 0; i < 2000; i++)); do
		[ -n "$(ls -A "$1")" ] && return 0
		kill -0 "$mp" 2>/dev/null || return 0
		sleep 0.005
	done
	fail "the copy did not start in 10 s"
}
# mpi_ended WHAT: wait (60 s at most) for mpirun ($mp) to end after WHAT;
# $rc is its status.
mpi_ended() {
	rc=0
	timeout 60 tail --pid="$mp" -f /dev/null || fail "mpirun did not end after $1"
	wait "$mp" || rc=$?
}
# mpi_stop_midway SRC DST SECONDS [ARGS...]: fastcp-mpi on 2 ranks copies
# SRC into DST/ (emptied first) and mpirun gets SIGTERM SECONDS after the
# copy began. ARGS hold the copy to a rate (--bwlimit) at which it lasts
# well past SECONDS on any machine: a copy that ended first fails the test
# (it is not tried again). $rc is mpirun's status, its output in $T/out
# and $T/err.
mpi_stop_midway() {
	local src=$1 dst=$2 delay=$3
	shift 3
	rm -rf "$dst" && mkdir "$dst"
	mpi_bg 2 "$@" "$src" "$dst/"
	mpi_started "$dst"
	sleep "$delay"
	kill -TERM "$mp"
	mpi_ended "SIGTERM"
	[ ! -e "$dst/${src##*/}" ] && [ "$rc" != 0 ] ||
		fail "the copy ended (exit $rc) before SIGTERM, $delay s after it began with $*"
}
MPIRUN_="mpirun --allow-run-as-root --oversubscribe --bind-to none"
# t_mkflat DIR DIRS FILES: DIR/d1..dDIRS, each with f1..fFILES of 4 KiB of
# random bytes: a tree that takes a while to copy, for the interruptions.
t_mkflat() {
	mkdir "$1"
	for d in $(seq 1 "$2"); do
		mkdir "$1/d$d"
		for i in $(seq 1 "$3"); do head -c 4096 /dev/urandom >"$1/d$d/f$i"; done
	done
}

# interruptible CMD ARGS... &: run CMD in the background with SIGINT at
# its default, as for a user at a terminal who presses ^C. A script's
# background command (bash without job control) starts with SIGINT
# ignored, and fastcp, as any POSIX utility, keeps a signal ignored that
# was ignored when it started. Only as a background command: it execs
# CMD, so $! is CMD's pid. (A shell that itself started with SIGINT
# ignored cannot reset it: env does, where it can. So are SIGHUP and
# SIGTERM, which a suite started under nohup or a service manager may
# have ignored.)
interruptible() {
	trap - INT
	env --default-signal=INT,HUP,TERM true 2>/dev/null &&
		exec env --default-signal=INT,HUP,TERM "$@"
	exec "$@"
}

# kill_fcp_after MS ARGS...: for the kill loops. Run fastcp with ARGS
# (stderr in $T/err) and SIGKILL it after MS ms; rc is then its exit
# status, 0 or 137 (anything else fails the test), and a kill that ended
# it counts in $killed. The loops slow their runs to a known rate
# (--bwlimit, in ARGS) and draw MS below kill_span's, so that most kills
# land mid-copy whatever the machine's speed.
kill_fcp_after() {
	local ms=$1 pid
	shift
	"$FASTCP" "$@" >/dev/null 2>"$T/err" &
	pid=$!
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
	kill -KILL "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null # no "Killed" line from the shell
	rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 137 ] || { cat "$T/err"; fail "fastcp $* exit $rc"; }
	[ "$rc" = 137 ] && killed=$((killed + 1))
	return 0
}

# kill_span DIR MIB: the span (ms) the kill loops draw their moments from,
# for runs that copy DIR reading at most MIB MiB/s (--bwlimit MIBM): such
# a run lasts its bytes' time at that rate at least, and the span is that
# and a quarter more, so that four kills in five come before its end
# whatever the machine's speed, and the rest where it ends.
kill_span() {
	local bytes
	bytes=$(du -sb --apparent-size "$1" | cut -f1)
	echo $((bytes * 1000 / ($2 << 20) * 5 / 4))
}


# ---- filesystems ----

# t_mount_fs TYPE SIZE DIR: mount a fresh filesystem of TYPE (xfs with
# reflink, btrfs, ext4, tmpfs) of SIZE on DIR, removed again at exit. Skips
# the test, with the reason, where that cannot be done here.
t_mount_fs() {
	local type=$1 size=$2 dir=$3 img loop
	need_root "mounting a $type filesystem needs root"
	mkdir -p "$dir"
	# Absolute: the cleanup unmounts from /.
	dir=$(cd "$dir" && pwd) || fail "t_mount_fs: no directory $dir"
	if [ "$type" = tmpfs ]; then
		mount -t tmpfs -o "size=$size" tmpfs "$dir" || skip "cannot mount tmpfs"
		t_mounts_+=("$dir")
		return 0
	fi
	need_cmd "mkfs.$type" losetup
	img="$T/.img.$type.${#t_loops_[@]}"
	truncate -s "$size" "$img" || fail "truncate $img"
	case $type in
	xfs) mkfs.xfs -q -f -m reflink=1 "$img" >/dev/null 2>&1 ;;
	btrfs) mkfs.btrfs -q -f "$img" >/dev/null 2>&1 ;;
	ext4) mkfs.ext4 -q -F "$img" >/dev/null 2>&1 ;;
	*) fail "t_mount_fs: unknown type $type" ;;
	esac || skip "mkfs.$type failed on a $size image"
	loop=$(losetup -f --show "$img" 2>/dev/null) || skip "no loop device available"
	t_loops_+=("$loop")
	mount "$loop" "$dir" 2>/dev/null || skip "cannot mount $type (kernel support missing?)"
	t_mounts_+=("$dir")
}

# t_cached FILE: bytes of FILE in the page cache (fincore, util-linux).
t_cached() { fincore --bytes --noheadings --output RES "$1" | tr -d " "; }

# t_bind DIR MOUNTPOINT: bind-mount DIR on MOUNTPOINT, unmounted at exit.
t_bind() {
	need_root "bind mounts need root"
	mount --bind "$1" "$2" 2>/dev/null || skip "cannot bind-mount $1 on $2"
	t_mounts_+=("$(cd "$2" && pwd)")
}

# ---- the sample tree ----

# Fixed times, with nanoseconds, so two builds of a tree compare equal.
T_TIME1=@1000000000.123456789
T_TIME2=@1234567890.987654321
T_TIME3=@1500000000.000000001
T_ATIME=@1100000000.555555555

t_mkfiles_() { # regular files of several sizes, odd names
	mkdir -p files names
	: >files/empty
	printf 'hello world\n' >files/small
	head -c 4097 /dev/urandom >files/page_plus_one
	head -c 100000 /dev/urandom >files/medium
	head -c 1572865 /dev/urandom >files/big          # 1.5 MiB + 1
	printf '#!/bin/sh\necho hi\n' >files/script
	local i long
	for i in $(seq 1 60); do printf 'file %d\n' "$i" >"files/many_$i"; done
	printf 'x' >"names/with space"
	printf 'x' >"names/new"$'\n'"line"
	printf 'x' >"names/bad"$'\xff\xfe'"bytes"
	printf 'x' >"names/back\\slash"
	printf 'x' >"names/-dash"
	printf 'x' >"names/.hidden"
	printf 'x' >"names/tab"$'\t'"and*?[glob]"
	long=$(printf 'L%.0s' $(seq 1 255))
	printf 'x' >"names/$long"
	mkdir "names/dir with space"
}

t_mksparse_() { # holes at the start, the end, the middle; all hole
	mkdir -p sparse
	truncate -s 4M sparse/lead_hole
	dd if=/dev/urandom of=sparse/lead_hole bs=64K count=1 seek=63 conv=notrunc status=none
	dd if=/dev/urandom of=sparse/trail_hole bs=64K count=1 status=none
	truncate -s 4M sparse/trail_hole
	truncate -s 8M sparse/middle
	dd if=/dev/urandom of=sparse/middle bs=64K count=1 status=none conv=notrunc
	dd if=/dev/urandom of=sparse/middle bs=64K count=2 seek=60 status=none conv=notrunc
	dd if=/dev/urandom of=sparse/middle bs=64K count=1 seek=127 status=none conv=notrunc
	truncate -s 2M sparse/all_hole
}

t_mklinks_() { # hard links across directories, symlinks of every kind
	local root=$1
	mkdir -p hard/a hard/b symlinks
	printf 'linked\n' >hard/a/one
	ln hard/a/one hard/b/one_again
	ln hard/a/one hard/three
	printf 'pair\n' >hard/a/pair
	ln hard/a/pair hard/b/pair
	ln sparse/middle hard/sparse_link
	ln -s ../files/small symlinks/relative
	ln -s "$root/files/small" symlinks/absolute_in
	ln -s "$root/files" symlinks/absolute_in_dir
	ln -s /etc/hostname symlinks/absolute_out
	ln -s does/not/exist symlinks/dangling
	ln -s ../files symlinks/to_dir
	ln -s . symlinks/self_dir
	ln -P symlinks/relative hard/link_to_symlink # a hard link to a symlink
}

t_mkspecial_() { # FIFO, devices, modes, owners
	mkdir -p special modes
	mkfifo special/fifo
	if [ "$(id -u)" = 0 ]; then
		mknod special/char c 1 3
		mknod special/block b 7 200
		printf 'owned\n' >special/owned
		chown 65534:65534 special/owned
		ln -s owned special/owned_link
		chown -h 65534:65534 special/owned_link
	fi
	printf 'suid\n' >modes/setuid && chmod 4755 modes/setuid
	printf 'sgid\n' >modes/setgid && chmod 2755 modes/setgid
	printf 'none\n' >modes/mode0000 && chmod 0000 modes/mode0000
	printf 'priv\n' >modes/private && chmod 0600 modes/private
	mkdir modes/sticky modes/sgid_dir modes/readonly_dir
	chmod 1777 modes/sticky
	chmod 2775 modes/sgid_dir
	printf 'inside\n' >modes/readonly_dir/inside
}

t_mkxattr_() { # user xattrs, trusted on a symlink (root), ACLs
	mkdir -p xattr/acl_dir
	printf 'x\n' >xattr/file
	setfattr -n user.plain -v hello xattr/file
	setfattr -n user.binary -v 0x00ff10ab00 xattr/file
	setfattr -n user.empty xattr/file
	setfattr -n user.big -v "$(head -c 3000 /dev/zero | tr '\0' b)" xattr/file
	setfattr -n user.ondir -v d xattr/acl_dir
	setfacl -m u:65534:rw,g:65534:r xattr/file
	setfacl -m u:65534:rwx xattr/acl_dir
	setfacl -d -m u:65534:rx,g::r xattr/acl_dir
	printf 'inherits\n' >xattr/acl_dir/child
	if [ "$(id -u)" = 0 ]; then
		ln -s file xattr/symlink
		setfattr -h -n trusted.onlink -v yes xattr/symlink 2>/dev/null || true
	fi
}

# t_mkdeep DIR: a chain of directories whose full path is longer than
# PATH_MAX, built with cd-relative mkdirs (no absolute path could name it).
t_mkdeep() (
	local name i
	name=$(printf 'd%.0s' $(seq 1 200))
	mkdir -p "$1" && cd "$1" || exit 1
	for i in $(seq 1 25); do
		mkdir "$name" && cd "$name" || exit 1
	done
	printf 'bottom\n' >bottom_file
	touch -h -d "$T_TIME2" bottom_file
)

# Times last, deepest first, so creating an entry cannot change a time that
# was already set. Every entry gets a distinct-nanosecond mtime and an atime.
t_settimes_() {
	local root=$1 i=0 f
	while IFS= read -r -d '' f; do
		i=$((i + 1))
		touch -h -a -d "$T_ATIME" "$root/$f"
		touch -h -m -d "@$((1000000000 + i * 3607)).$(printf '%09d' $((i * 7919)))" "$root/$f"
	done < <(cd "$root" && find . -depth -mindepth 1 ! -path './deep/*' ! -path ./deep -print0)
	# find cannot name entries below PATH_MAX; -execdir can.
	(cd "$root" && [ -d deep ] && find deep -depth -execdir touch -h -d "$T_TIME1" {} +)
	touch -d "$T_TIME3" "$root"
}

# t_mktree DIR [nodeep]: build the rich sample tree in DIR (created). With
# "nodeep", leave out the part deeper than PATH_MAX (cp -a and rsync cannot
# copy it, so a reference copy made with them would differ).
t_mktree() {
	local root=$1
	mkdir -p "$root" && root=$(cd "$root" && pwd) || fail "t_mktree $1"
	(
		cd "$root" || exit 1
		t_mkfiles_ && t_mksparse_ && t_mklinks_ "$root" && t_mkspecial_ &&
			t_mkxattr_ || exit 1
		[ "${2:-}" = nodeep ] || t_mkdeep deep || exit 1
		chmod 0500 modes/readonly_dir
	) || fail "t_mktree: building the sample tree failed"
	t_settimes_ "$root"
}

# faultfs_mount BACKING MNT [OPTIONS...]: mount the fault-injecting
# passthrough of BACKING on MNT (tests/lib/faultfs.c: --match, --eio-at,
# --eio-len, --eio-first,
# --short, --delay-ms, --enospc-after, --edquot-after, --no-rename-flags,
# --corrupt-write, --corrupt-count, --einval-write-at, --armed, --hold with
# --block-at and --block-open: see faultfs_held), in
# the background; returns once it is mounted, unmounted again at exit. Skips
# where FUSE or the tool is missing.
faultfs_mount() {
	local backing=$1 mnt=$2 pid i
	shift 2
	need_root "mounting faultfs needs root"
	[ -c /dev/fuse ] || skip "no /dev/fuse (FUSE not available here)"
	[ -x "$TOOLS/faultfs" ] || skip "faultfs not built (libfuse3-dev missing?)"
	mkdir -p "$mnt" && mnt=$(realpath "$mnt") || fail "faultfs_mount: mkdir $mnt"
	for i; do
		case $i in --hold=*) t_holds_+=("${i#--hold=}") ;; esac
	done
	"$TOOLS/faultfs" "$@" "$backing" "$mnt" >>"$T/faultfs.log" 2>&1 &
	pid=$!
	t_mounts_+=("$mnt")
	for ((i = 0; i < 100; i++)); do
		grep -qs " $mnt fuse" /proc/self/mounts && return 0
		kill -0 "$pid" 2>/dev/null || { cat "$T/faultfs.log"; skip "faultfs failed to mount $mnt"; }
		sleep 0.05
	done
	kill "$pid" 2>/dev/null
	fail "faultfs did not mount $mnt within 5 s"
}

# faultfs_held WHAT [N]: wait until faultfs holds a request (--block-at,
# --block-open) whose description matches the extended regex WHAT ("read
# of /big at 0", "open of /dir/f"), the N-th (1) such one; the program
# under test is then held there, whatever the machine's speed, until the
# test removes the --hold file. Fails after 60 s: a copy that never gets
# there is stuck.
faultfs_held() {
	local i
	for ((i = 0; i < 6000; i++)); do
		[ "$(grep -cE -- "^faultfs: holding $1" "$T/faultfs.log" 2>/dev/null)" -ge "${2:-1}" ] &&
			return 0
		sleep 0.01
	done
	fail "faultfs held no $1 within 60 s"
}
