#!/bin/bash
# --manifest in a build without SQLite (issue 19): the command line says
# so and exits 2 before anything is copied; --check itself still works.
# The build is made in a copy of the tree, with a pkg-config in front of
# PATH that hides sqlite3 (as build_probe.sh hides liburing).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_cmd make pkg-config
real=$(command -v pkg-config)

mkdir -p repo bin
cp -r "$top_/Makefile" "$top_/mk" "$top_/include" "$top_/lib" "$top_/src" "$top_/tests" repo/
cat >bin/pkg-config <<EOS
#!/bin/sh
for a; do case \$a in sqlite3*) exit 1 ;; esac; done
exec "$real" "\$@"
EOS
chmod +x bin/pkg-config
PATH="$T/bin:$PATH" make -C repo --no-print-directory -j2 build/fastcp >make.out 2>&1 ||
	{ tail -20 make.out; fail "build without SQLite"; }
check_grep "^/\* #undef HAVE_SQLITE3 \*/" repo/build/config.h
FASTCP=$T/repo/build/fastcp

mkdir src && printf 'a\n' >src/a
run_fcp --manifest m.db -T src dst
check_rc 2 "--manifest without SQLite"
check_grep "^fastcp: --manifest is not available: fastcp was built without SQLite$" "$T/err"
check_absent dst
check_absent m.db
run_fcp --check --manifest m.db dst
check_rc 2 "--check --manifest without SQLite"
run_fcp -T src dst
check_rc 0 "a copy"
run_fcp --check -T src dst
check_rc 0 "--check without SQLite"
echo "PASS"
