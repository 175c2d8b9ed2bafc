#!/bin/sh
# scripts/fresh-machine.sh: prove that the README's two commands work on a
# bare Debian 12, as a first-time user would run them. As root:
#   debootstrap --variant=minbase bookworm into a temporary directory (the
#   mirror from this machine's apt sources), clone this repository's HEAD
#   into it, bind /proc, /dev and /sys, then in the chroot:
#   - the first command as user nobody must stop with the apt-get line;
#   - the README's two commands as root, read from its first code block so
#     the README and this proof cannot drift apart; the build must have
#     io_uring, xxHash and SQLite, the tests must end "N passed, 0 failed";
#   - build the .deb (dpkg-buildpackage -us -uc -b), install it, run
#     /usr/bin/fastcp --version.
# Every mount and the tree are removed at the end, also on failure or
# Ctrl-C; then comes the last line, PASS or FAIL. It takes a few minutes; the
# downloaded .debs are kept in $FRESH_CACHE (default
# /var/cache/fastcp-fresh-machine; FRESH_CACHE= to keep nothing), so a
# second run downloads less; the packages are installed afresh each time.
# The full log is in $FRESH_LOG (default /tmp/fastcp-fresh-machine.log).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FRESH_CACHE-/var/cache/fastcp-fresh-machine}
log=${FRESH_LOG:-/tmp/fastcp-fresh-machine.log}
suite=bookworm
start=$(date +%s)
root=

say() { echo "fresh-machine [$(($(date +%s) - start)) s]: $*"; }
why= passed=
fail() {
	say "$*"
	echo "--- last lines of $log:"; tail -n 25 "$log"
	why=$*
	exit 1
}

[ "$(id -u)" = 0 ] || { echo "fresh-machine: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
# debootstrap is the one tool a machine that ran the README may lack.
command -v debootstrap >/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null 2>&1 ||
	{ apt-get update -q >/dev/null 2>&1 &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null 2>&1; }
for c in debootstrap git chroot mount umount; do
	command -v "$c" >/dev/null || { echo "fresh-machine: '$c' is not installed" >&2; exit 2; }
done

# The Debian mirror this machine's apt uses (deb822 .sources or one-line
# format), the main archive rather than the security one.
mirror() {
	{ cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
		/^URIs:/ { u = $2 } /^Suites:/ { s = $0 }
		/^$/ { if (s ~ / '$suite'( |$)/ && u != "") { print u; exit } u = ""; s = "" }
		END { if (s ~ / '$suite'( |$)/ && u != "") print u }'
	  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" && $3 == "'$suite'" { print $2 }'
	} | grep -v security | head -n 1
}

mounts_under() { # mount points at or below $1, deepest first
	awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r
}

in_tree_pids() { # processes whose root is the tree
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
	done
}

# The last line, PASS or FAIL, comes after the cleanup, which can fail too.
result() {
	if [ "$1" = 0 ] && [ -n "$passed" ]; then
		echo "PASS: fresh-machine ($(($(date +%s) - start)) s): $passed"
	else
		echo "FAIL: fresh-machine ($(($(date +%s) - start)) s): ${why:-interrupted (exit $1)}"
	fi
	exit "$1"
}

cleanup() {
	rc=$?
	trap - EXIT INT TERM HUP
	[ -n "$root" ] && [ -d "$root" ] || result "$rc"
	# Processes left in the chroot (a test's FUSE daemon, say) hold mounts:
	# TERM lets a test clean up after itself, KILL the rest.
	for sig in TERM KILL; do
		for p in $(in_tree_pids); do kill -s "$sig" "$p" 2>/dev/null; done
		[ -n "$(in_tree_pids)" ] && sleep 2
	done
	for m in $(mounts_under "$root"); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	# Loop devices a killed test left attached to an image in the tree.
	for b in /sys/block/loop*/loop/backing_file; do
		case $(cat "$b" 2>/dev/null) in "$root"/*)
			d=${b#/sys/block/}; losetup -d "/dev/${d%%/*}" 2>/dev/null ;;
		esac
	done
	left=$(mounts_under "$root")
	if [ -n "$left" ]; then
		why="still mounted, so $root is left in place: $(echo $left)"
		result 1
	fi
	# --one-file-system: never reach through a mount, whatever happened.
	rm -rf --one-file-system "$root"
	[ -e "$root" ] && { why="could not remove $root"; result 1; }
	result "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# The README's first code block: its command lines, comments stripped.
readme_cmds=$(awk '/^```/ { if (n++) exit; next } n' "$top/README.md" |
	sed 's/[[:space:]]*#.*//; /^[[:space:]]*$/d')
[ "$(echo "$readme_cmds" | wc -l)" = 2 ] || fail "README.md's first code block should hold two commands, has: $readme_cmds"
cmd1=$(echo "$readme_cmds" | sed -n 1p) cmd2=$(echo "$readme_cmds" | sed -n 2p)

url=$(mirror)
[ -n "$url" ] || url=http://deb.debian.org/debian
commit=$(git -C "$top" rev-parse HEAD) || fail "not a git repository: $top"
root=$(mktemp -d /tmp/fcp-fresh.XXXXXX) || fail "mktemp"
chmod 755 "$root"
: > "$log"
say "commit $commit, mirror $url, tree $root, log $log"
git -C "$top" diff --quiet HEAD || say "note: uncommitted changes in $top are not part of the test"

dbopt=
if [ -n "$cache" ] && mkdir -p "$cache/debootstrap" "$cache/apt/partial" 2>/dev/null; then
	dbopt="--cache-dir=$cache/debootstrap"
fi
say "debootstrap --variant=minbase $suite ..."
# shellcheck disable=SC2086
debootstrap --variant=minbase $dbopt "$suite" "$root" "$url" >>"$log" 2>&1 ||
	fail "debootstrap failed"

say "git clone (HEAD) into /src/fastcp"
git clone -q --no-hardlinks "$top" "$root/src/fastcp" >>"$log" 2>&1 &&
	git -C "$root/src/fastcp" checkout -q --detach "$commit" >>"$log" 2>&1 ||
	fail "git clone failed"

# /dev for loop devices and /dev/fuse, /sys and /proc for the tools; rslave
# so that nothing mounted in the chroot propagates back to this machine.
mount -t proc proc "$root/proc" &&
	mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" &&
	mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys" ||
	fail "cannot bind /proc, /dev, /sys"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
if [ -n "$dbopt" ]; then # downloads only; apt still installs everything afresh
	mount --bind "$cache/apt" "$root/var/cache/apt/archives" || fail "cannot bind the apt cache"
fi

# in_chroot USER COMMAND: a login-like clean environment in /src/fastcp.
in_chroot() {
	chroot --userspec="$1" "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c "cd /src/fastcp && $2"
}

say "as nobody: $cmd1"
in_chroot nobody:nogroup "$cmd1" > "$root/nobody.out" 2>&1 && fail "'$cmd1' as nobody should stop"
cat "$root/nobody.out" >> "$log"
grep -q '^apt-get install .*liburing-dev' "$root/nobody.out" ||
	fail "'$cmd1' as nobody did not print the apt-get install line"
sed 's/^/  | /' "$root/nobody.out"

say "as root: $cmd1"
in_chroot root "$cmd1" > "$root/cmd1.out" 2>&1 || { cat "$root/cmd1.out" >> "$log"; fail "'$cmd1' failed"; }
cat "$root/cmd1.out" >> "$log"
grep '^fastcp: built' "$root/cmd1.out" | sed 's/^/  | /'
grep -q '^fastcp: built with io_uring, xxHash, SQLite, MPI (fastcp-mpi)$' "$root/cmd1.out" ||
	fail "the build lacks io_uring, xxHash, SQLite or MPI"
grep '^small files go through' "$root/cmd1.out" | sed 's/^/  | /'
in_chroot root "build/fastcp --version --verbose" > "$root/version.out" 2>&1
sed 's/^/  | /' "$root/version.out"
grep -qx 'small files: io_uring batches' "$root/version.out" ||
	fail "fastcp --version --verbose does not report the io_uring path"

say "as root: $cmd2"
in_chroot root "$cmd2" > "$root/cmd2.out" 2>&1
cat "$root/cmd2.out" >> "$log"
grep -E '^(FAIL|SKIP) ' "$root/cmd2.out" | sed 's/^/  | /'
last=$(tail -n 1 "$root/cmd2.out")
say "  $last"
echo "$last" | grep -Eq '^[0-9]+ passed, 0 failed$' || fail "'$cmd2' did not end with 'N passed, 0 failed'"

say "dpkg-buildpackage -us -uc -b (Build-Depends through apt-get build-dep)"
in_chroot root "DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q ./ &&
	dpkg-buildpackage -us -uc -b" >> "$log" 2>&1 || fail "building the .deb failed"
deb=$(ls "$root"/src/fastcp_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "no .deb built"
say "apt-get install ./$(basename "$deb")"
in_chroot root "DEBIAN_FRONTEND=noninteractive apt-get install -y -q ../$(basename "$deb")" >> "$log" 2>&1 ||
	fail "installing the .deb failed"
chroot "$root" dpkg -L fastcp > "$root/files.out" 2>&1
for f in /usr/bin/fastcp /usr/bin/fastcp-bench /usr/share/man/man1/fastcp.1.gz /usr/share/man/man1/fastcp-bench.1.gz; do
	grep -qx "$f" "$root/files.out" || fail "the package lacks $f"
done
chroot "$root" /usr/bin/fastcp --version > "$root/deb.out" 2>&1 || fail "/usr/bin/fastcp --version failed"
sed 's/^/  | /' "$root/deb.out"
chroot "$root" /usr/bin/fastcp --version --verbose | grep -qx 'small files: io_uring batches' ||
	fail "the packaged fastcp does not report the io_uring path"

passed="README's commands on a bare Debian 12, io_uring build, $last, .deb installed"
