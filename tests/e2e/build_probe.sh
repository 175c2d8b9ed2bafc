#!/bin/bash
# The build probes its optional libraries on every make: a library
# installed after the first build is picked up by the next make, an
# unchanged probe leaves build/config.h alone (nothing rebuilds), and a
# missing liburing-dev that the distribution offers stops the build with the
# apt-get line instead of building the slow path silently. "Installing" is
# simulated by a pkg-config in front of PATH that hides liburing while
# $T/hide exists. NO_URING=1 builds without io_uring, installed or not.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_cmd make pkg-config
real=$(command -v pkg-config)
pkg-config --exists liburing || skip "liburing-dev is not installed here"

mkdir -p repo bin
cp -r "$top_/Makefile" "$top_/mk" "$top_/include" "$top_/lib" "$top_/src" "$top_/tests" repo/
cat > bin/pkg-config <<EOS
#!/bin/sh
if [ -e "$T/hide" ]; then
	for a; do case \$a in liburing*) exit 1 ;; esac; done
fi
exec "$real" "\$@"
EOS
chmod +x bin/pkg-config
export PATH="$T/bin:$PATH"
mk() { make -C "$T/repo" --no-print-directory "$@" > "$T/make.out" 2>&1; }
cfg="$T/repo/build/config.h"

touch hide
if apt-cache show liburing-dev >/dev/null 2>&1; then
	check_not mk build/config.h
	cat "$T/make.out"
	check_grep "apt-get install liburing-dev" "$T/make.out"
else
	note "the distribution has no liburing-dev: a build without it is allowed"
fi
check mk NO_URING=1 build/config.h
check_grep "^/\* #undef HAVE_LIBURING \*/" "$cfg"
check_grep "without io_uring \(NO_URING=1\)" "$T/repo/build/config.txt"

rm hide  # as if liburing-dev had been installed since
# Asked for, the path without io_uring is built even with liburing there.
check mk NO_URING=1 build/config.h
check_grep "^/\* #undef HAVE_LIBURING \*/" "$cfg" "NO_URING=1 built with io_uring where liburing is installed"
check_grep "without io_uring \(NO_URING=1\)" "$T/repo/build/config.txt"
check mk build/config.h
check_grep "^#define HAVE_LIBURING 1" "$cfg" "the next make did not pick up liburing"
check_grep "^fastcp: built with io_uring" "$T/repo/build/config.txt"
check_grep "-luring" "$T/repo/build/config.mk"

touch -d '2001-01-01' "$cfg"
check mk build/config.h
check_eq "$(stat -c %Y "$cfg")" "$(date -d 2001-01-01 +%s)" "an unchanged probe rewrote config.h"
