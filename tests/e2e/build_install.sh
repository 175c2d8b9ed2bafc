#!/bin/bash
# make install honours PREFIX and DESTDIR and puts both programs, both
# man pages and the bash and zsh completions in place; make uninstall removes exactly those files again;
# debian/changelog carries the Makefile's VERSION.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_cmd make
need_fastcp

mk() { make -C "$top_" --no-print-directory "$@" > "$T/make.out" 2>&1 || { cat "$T/make.out"; fail "make $*"; }; }
mk install PREFIX=/opt/fcp DESTDIR="$T/stage"
for f in bin/fastcp bin/fastcp-bench share/man/man1/fastcp.1 share/man/man1/fastcp-bench.1 \
	share/bash-completion/completions/fastcp share/bash-completion/completions/fastcp-bench \
	share/zsh/vendor-completions/_fastcp; do
	check_file "$T/stage/opt/fcp/$f"
done
# fastcp-mpi and its man page, where it is built (Open MPI installed).
if [ -x "$top_/build/fastcp-mpi" ]; then
	check_file "$T/stage/opt/fcp/bin/fastcp-mpi"
	check_file "$T/stage/opt/fcp/share/man/man1/fastcp-mpi.1"
fi
[ -x "$T/stage/opt/fcp/bin/fastcp" ] || fail "fastcp not executable"
"$T/stage/opt/fcp/bin/fastcp" --version > "$T/v" || fail "installed fastcp --version"
check_grep "^fastcp [0-9]" "$T/v"
touch "$T/stage/opt/fcp/bin/other"  # not ours: must stay
mk uninstall PREFIX=/opt/fcp DESTDIR="$T/stage"
check_eq "$(cd "$T/stage" && find . -type f | sort | tr '\n' ' ')" "./opt/fcp/bin/other " "files left after make uninstall"

# The Debian package carries the version the programs print.
want=$(sed -n 's/^VERSION *:= *//p' "$top_/Makefile")
check_eq "$(sed -n '1s/^fastcp (\([^)]*\)).*/\1/p' "$top_/debian/changelog")" "$want" "debian/changelog version vs Makefile VERSION"
