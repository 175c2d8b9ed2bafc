# Sourced by the benchmark scripts: sets top (the checkout), B and F (copies
# of build/fastcp-bench and build/fastcp, so that a rebuild during a run
# changes nothing) and out (the results directory, $1 or build/bench-results).
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d /tmp/fcp-bench-bin.XXXXXX)
cp "$top/build/fastcp-bench" "$top/build/fastcp" "$bin/"
B=$bin/fastcp-bench F=$bin/fastcp
out=${1:-$top/build/bench-results}

# mount_image IMG DIR [buffered]: mount a filesystem image as a disk
# behaves: a loop device with direct I/O, so that what is read or written
# passes through one page cache, the one of the filesystem on it. A
# buffered loop (mount -o loop) adds a second one, of the image file, that
# no disk has: every byte read from a cold source fills both, and that is
# exactly what reading around the cache (O_DIRECT) saves, so a rule tuned
# there is tuned to the rig. "buffered" mounts it so all the same, for the
# tables that measure that case (SOURCE_LOOP=buffered in the scripts).
# Prints the device and whether its direct I/O is on.
mount_image() {
	local dev
	case ${3:-direct} in
	buffered) mount -o loop "$1" "$2" || return 1 ;;
	direct)
		dev=$(losetup --direct-io=on -f --show "$1") || return 1
		mount "$dev" "$2" || { losetup -d "$dev"; return 1; } ;;
	*) echo "mount_image: '$3' is neither direct nor buffered" >&2; return 2 ;;
	esac
	dev=$(findmnt -n -o SOURCE --mountpoint "$2")
	echo "# $1 on $2: $dev, direct I/O $(losetup -n -O DIO "$dev" | tr -d ' ')" >&2
}

# umount_image DIR: unmount it and detach its loop device (a buffered
# one detaches itself).
umount_image() {
	local dev
	dev=$(findmnt -n -o SOURCE --mountpoint "$1") || return 1
	umount "$1" || return 1
	losetup -d "$dev" 2>/dev/null || true
}

# How the benchmark scripts mount their source: direct (default) or buffered.
source_loop=${SOURCE_LOOP:-direct}
case $source_loop in direct | buffered) ;; *)
	echo "SOURCE_LOOP must be direct or buffered, not '$source_loop'" >&2; exit 2 ;;
esac
