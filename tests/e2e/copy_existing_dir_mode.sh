#!/bin/bash
# A directory fastcp did not create keeps its mode under --no-preserve=mode
# (as cp): copying into an existing drwx------ destination, and into an
# existing subdirectory of the same name, must not widen them to the new-
# directory default. With the mode preserved (the default), an existing
# directory gets its source's mode, as with cp -a.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p s/sub
printf 'f\n' >s/f
printf 'g\n' >s/sub/g
chmod 0755 s s/sub

mk_dest() { rm -rf "$1"; mkdir -m 0700 "$1" "$1/s" "$1/s/sub"; }
modes() { stat -c %a "$@" | tr '\n' ' '; }

# --no-preserve=mode into DEST/ (the copy s is an existing directory).
mk_dest d
run_fcp --no-preserve=mode s d/
check_rc 0
check_eq "$(modes d d/s d/s/sub)" "700 700 700 " "existing directories with --no-preserve=mode"
check_eq "$(cat d/s/sub/g)" g
check_eq "$(stat -c %a d/s/f)" 644 "a new file with --no-preserve=mode"

# -T onto an existing directory: the copy itself existed.
mk_dest e
run_fcp --no-preserve=mode -T s e/s
check_rc 0
check_eq "$(modes e/s e/s/sub)" "700 700 " "existing directories with -T --no-preserve=mode"

# A directory that did not exist gets the default mode (0777 less umask).
mk_dest n
rmdir n/s/sub
run_fcp --no-preserve=mode s n/
check_rc 0
check_eq "$(modes n/s n/s/sub)" "700 755 " "new directory with --no-preserve=mode"

# Mode preserved: existing directories take their source's mode (cp -a).
mk_dest p
run_fcp s p/
check_rc 0
check_eq "$(modes p p/s p/s/sub)" "700 755 755 " "existing directories in archive mode"
echo "existing directory modes ok"
