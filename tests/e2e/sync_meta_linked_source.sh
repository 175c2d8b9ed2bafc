#!/bin/bash
# --sync sets metadata in place only on a file with no other name: where
# the DEST file is a hard link of a source (made by -l) and another SOURCE
# of the same name has the same bytes and mtime but another mode, setting
# the mode in place would set it on that source. A new file takes the name
# instead; the sources keep their modes, times, inodes and bytes.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p s1/photos s2/photos d
yes one | head -c 4000 >s1/photos/x; chmod 644 s1/photos/x; touch -d @1600000962 s1/photos/x
cp -p s1/photos/x s2/photos/x; chmod 600 s2/photos/x
snap() { stat -c '%i %a %Y %s' "$1"; sha256sum <"$1"; }
run_fcp -l s1/photos d/
check_rc 0
before1=$(snap s1/photos/x) before2=$(snap s2/photos/x)

run_fcp --sync s1/photos s2/photos d/
check_rc 0
check_eq "$(snap s1/photos/x)" "$before1" "source 1 unchanged"
check_eq "$(snap s2/photos/x)" "$before2" "source 2 unchanged"
check_eq "$(stat -c '%a %Y %h' d/photos/x)" "600 1600000962 1" "DEST has the later source's metadata"
check_eq "$(sha256sum <d/photos/x)" "$(sha256sum <s2/photos/x)" "DEST bytes"
check_no_temp d
echo PASS
