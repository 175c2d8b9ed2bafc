#!/bin/bash
# --exclude-caches (issue 20): a directory holding a CACHEDIR.TAG that
# starts with the exact signature is left out whole (counted once); a tag
# with a wrong or short signature, a tag that is a directory or a symlink
# to a valid one, and a tag file at the top of a name that is no directory
# leave things copied.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

sig='Signature: 8a477f597d28d172789f06886806bc55'
mkdir -p src/cache/sub src/bad src/short src/dirtag/CACHEDIR.TAG src/linked src/plain
printf '%s\n# This file is a cache directory tag.\n' "$sig" >src/cache/CACHEDIR.TAG
printf 'data\n' >src/cache/sub/blob
printf 'Signature: 8a477f597d28d172789f06886806bc56\n' >src/bad/CACHEDIR.TAG
printf '%s' "${sig%?}" >src/short/CACHEDIR.TAG
ln -s ../cache/CACHEDIR.TAG src/linked/CACHEDIR.TAG
printf 'p\n' >src/plain/f
printf '%s\n' "$sig" >src/CACHEDIR.TAG.txt

run_fcp -v --exclude-caches -T src dst
check_rc 0
check_absent dst/cache "a tagged cache directory"
for d in bad short dirtag linked plain; do check_dir "dst/$d"; done
check_file dst/bad/CACHEDIR.TAG
check_file dst/plain/f
check_grep "^fastcp: 1 excluded" "$T/err"

run_fcp -T src plain
check_file plain/cache/sub/blob "without --exclude-caches"
exit 0
