#!/bin/sh
# Install the Debian packages named on the command line that are missing.
# Only root can install; anyone else gets the list to install by hand.
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "fastcp: missing Debian packages:$missing (run as root, or: apt-get install$missing)" >&2
	exit 0
fi
echo "installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null || {
	echo "fastcp: apt-get install$missing failed" >&2; exit 1; }
