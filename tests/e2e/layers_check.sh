#!/bin/bash
# scripts/layers.py, the floors of lib/, is itself tested: on a small
# project of its own it must pass where every use goes down, and name the
# file, the use and the floors where one goes up (by an include, by a call
# made through a prototype written by hand, and a write in policy).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_cmd python3 nm gcc
layers=$TESTLIB/../../scripts/layers.py

# lay ARGS: run the checker on the project p/; has TEXT: a line holds TEXT.
lay() {
	python3 "$layers" --top p "$@" >"$T/out" 2>"$T/err"
	ran_ $? layers.py "$*"
}
has() { grep -qF -- "$1" "$T/all" || fail "no line holds '$1'"; }
has_not() { ! grep -qF -- "$1" "$T/all" || fail "a line holds '$1'"; }

mkdir -p p/lib/base p/lib/core p/lib/policy p/build/lib/base p/build/lib/core p/build/lib/policy
cat >p/lib/base/a.h <<'C'
int base_a(void);
C
cat >p/lib/base/a.c <<'C'
#include "a.h"
int base_a(void) { return 1; }
C
cat >p/lib/core/b.c <<'C'
#include "../base/a.h"
int core_b(void) { return base_a(); }
C
cat >p/lib/policy/d.c <<'C'
#include "../base/a.h"
int policy_d(void) { return base_a(); }
C
build() {
	for f in base/a core/b policy/d; do
		gcc -c -o "p/build/lib/$f.o" "p/lib/$f.c" || fail "cannot compile $f"
	done
}
build
lay --graph
check_rc 0 "every use goes down"
has "every use follows the rules"
has "floors on a cycle: none"

# An include up: base includes a core file.
echo 'int core_b(void);' >p/lib/core/b.h
echo '#include "../core/b.h"' >>p/lib/base/a.c
build
lay --graph
check_rc 1 "an include from base up to core"
has "lib/base/a.c: includes ../core/b.h (lib/core/b.h): base -> core"
has "floors on a cycle: base, core"

# A call up through a prototype written by hand: no include to see.
sed -i '$d' p/lib/base/a.c
printf 'int core_b(void);\nint base_c(void) { return core_b(); }\n' >>p/lib/base/a.c
build
lay
check_rc 1 "a call from base up to core"
has "lib/base/a.c: calls core_b (lib/core/b.c): base -> core"
has_not "includes"

# Policy decides and never writes.
sed -i '$d;$d' p/lib/base/a.c
printf '#include <unistd.h>\nint policy_w(int fd) { return (int)write(fd, "", 0); }\n' >>p/lib/policy/d.c
build
lay
check_rc 1 "a write in policy"
has "lib/policy/d.c: calls write: policy never writes"

# An include the checker cannot place is named, never taken for a system
# header and let through (the project's own config.h and fastcp.h are).
printf '#include "config.h"\n#include "fastcp.h"\n#include "tree/walk.h"\n' >p/lib/core/e.c
lay
check_rc 1 "an include of no file of lib/"
has "lib/core/e.c: includes tree/walk.h, which is no file of lib/"
has_not "config.h"
has_not "fastcp.h"
echo PASS
