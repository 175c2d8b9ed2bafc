#!/bin/sh
# fastcp.sh demo|check|deps - the README's two commands, from a fresh clone.
# Installs the Debian packages of mk/packages that are missing (as root; any
# other user gets the apt-get line to run and a non-zero exit), then builds
# with make and runs the demo (demo) or every test (check). It needs nothing
# but a POSIX sh, so it works where make and gcc are not installed yet.
set -e
cd "$(dirname "$0")"

usage() { echo "usage: ./fastcp.sh demo|check|deps" >&2; exit 2; }
[ $# = 1 ] || usage
case $1 in demo|check|deps) ;; *) usage ;; esac

pkgs=$(sed 's/#.*//' mk/packages | tr -s ' \n' '  ')
if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	echo "fastcp: not a Debian system; make sure these (or their equivalents) are installed:$pkgs" >&2
else
	missing=
	for p in $pkgs; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$' ||
			missing="$missing $p"
	done
	if [ -n "$missing" ] && [ "$(id -u)" != 0 ]; then
		echo "fastcp: Debian packages missing; as root, run:" >&2
		echo "apt-get install -y --no-install-recommends$missing"
		exit 1
	fi
	if [ -n "$missing" ]; then
		echo "fastcp: installing Debian packages:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q >/dev/null
		# shellcheck disable=SC2086
		apt-get install -y -q --no-install-recommends $missing >/dev/null
	fi
fi
[ "$1" = deps ] && exit 0
# The build probes the libraries now that they are installed (every make does).
make -j"$(nproc 2>/dev/null || echo 2)" --no-print-directory all
case $1 in
demo) exec sh scripts/demo.sh ;;
check) exec sh tests/run.sh ;;
esac
