#!/bin/sh
# make check-sanitize: the unit and end-to-end tests built with ASan+UBSan,
# then the engine stress test (-j 16) built with TSan, which cannot be
# combined with ASan. Each build has its own copy of the sources
# (build-asan/src, build-tsan/src), so build/ is left as it is; the tests
# of this tree run against it (BUILD=... tests/run.sh). Any report fails
# the test that met it (halt_on_error, exit status 99), and so the target.
top=$(pwd)
jobs=${JOBS:-2}
rc=0

# san_build DIR FLAGS: copy the sources into DIR/src and build them there
# (CFLAGS and LDFLAGS from the environment: the Makefile adds its own).
san_build() {
	mkdir -p "$1/src"
	rsync -a --delete --exclude=/build --exclude='/build-*' --exclude=/.git ./ "$1/src/"
	CFLAGS="-O1 -g -fno-omit-frame-pointer $2" LDFLAGS="$2" \
		make --no-print-directory -C "$1/src" -j"$jobs" all >"$1/make.log" 2>&1 ||
		{ tail -n 30 "$1/make.log"; exit 1; }
}

echo "== ASan+UBSan: unit and end-to-end tests"
san_build build-asan "-fsanitize=address,undefined -fno-sanitize-recover=all"
FCP_SANITIZE=asan BUILD="$top/build-asan/src/build" \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
ASAN_OPTIONS=detect_leaks=1:exitcode=99 \
	sh tests/run.sh || rc=1

# The stress test, and the deep copies, whose directories are given back
# and re-opened under a lock shared by the workers (lib/core/dirfds.c).
echo "== TSan: the engine stress test (16 threads), deep trees"
san_build build-tsan "-fsanitize=thread"
(
	export FCP_SANITIZE=tsan BUILD="$top/build-tsan/src/build"
	export TSAN_OPTIONS=halt_on_error=1:exitcode=99:second_deadlock_stack=1
	sh tests/run.sh engine_stress && sh tests/run.sh copy_deep
) || rc=1
exit $rc
