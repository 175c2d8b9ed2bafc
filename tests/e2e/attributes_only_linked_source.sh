#!/bin/bash
# --attributes-only never changes a source through a DEST file that is the
# same inode (made by -l): a source's own file there is left as it is, and
# a file with other names that a second source of the same name would
# change fails its item. The sources' bytes, modes and times stay.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir -p s1/photos s2/photos d
yes one | head -c 2640 >s1/photos/x; chmod 644 s1/photos/x; touch -d @1600000962 s1/photos/x
yes two | head -c 2111 >s2/photos/x; chmod 755 s2/photos/x; touch -d @1600000197 s2/photos/x
snap() { stat -c '%i %a %Y %s' "$@"; sha256sum "$@"; }
before1=$(snap s1/photos/x) before2=$(snap s2/photos/x)

run_fcp -l s1/photos d/
check_rc 0
check_eq "$(stat -c %i d/photos/x)" "$(stat -c %i s1/photos/x)" "-l made a link"

# The DEST file is its source: nothing to do, nothing changes.
run_fcp --attributes-only s1/photos d/
check_rc 0
check_eq "$(snap s1/photos/x)" "$(snap d/photos/x | sed 's,d/photos,s1/photos,')" "same file"
check_eq "$(snap s1/photos/x)" "$before1" "source 1 after its own --attributes-only"

# The second source's metadata would go through the link onto s1/photos/x.
run_fcp --attributes-only s1/photos s2/photos d/
check_rc 1
check_grep "other names" "$T/err"
check_eq "$(snap s1/photos/x)" "$before1" "source 1 after --attributes-only of both"
check_eq "$(snap s2/photos/x)" "$before2" "source 2 after --attributes-only of both"
check_eq "$(snap d/photos/x | sed 's,d/photos,s1/photos,')" "$before1" "DEST file left as it was"
check_no_temp d

# A DEST file with no other name still gets the metadata and keeps its data.
mkdir e; run_fcp d/photos e/
check_rc 0
run_fcp --attributes-only -T s2/photos e/photos
check_rc 0
check_eq "$(stat -c '%a %Y' e/photos/x)" "755 1600000197" "metadata of an unlinked file"
check_eq "$(sha256sum <e/photos/x)" "$(sha256sum <s1/photos/x)" "data kept"
echo PASS
