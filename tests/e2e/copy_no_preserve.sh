#!/bin/bash
# --no-preserve=LIST with cp's names (mode, ownership, timestamps, xattr,
# links, all, and lists of them): each name turns off exactly its part of
# archive mode, like cp -a --no-preserve; an unknown name is bad usage.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_root "the source has files owned by another user"
need_cmd setfattr getfattr

mkdir -p s/d
printf 'f\n' >s/f && chmod 0640 s/f
printf 'u\n' >s/suid && chmod 4755 s/suid
printf 'g\n' >s/d/g && chown 65534:65534 s/d/g
ln s/f s/d/f_link
chmod 0700 s/d
setfattr -n user.k -v value s/f
find s -depth -exec touch -h -d "$T_TIME1" {} +

mtime() { stat -c %Y "$1"; }
recent() { [ $(($(date +%s) - $(mtime "$1"))) -lt 600 ] || fail "mtime of $1 is not the copy time"; }
ino() { stat -c %i "$1"; }

# mode: cp gives the default modes (0666/0777 less umask): no setuid, and
# not even the execute bits of the source.
run_fcp --no-preserve=mode s dm
check_rc 0
check_tree s dm --no-mode
check_eq "$(stat -c %a dm/f dm/suid dm/d | tr '\n' ' ')" "644 644 755 " "modes with --no-preserve=mode (cp gives 0666/0777 less umask)"
cp -a --no-preserve=mode s cm
check_tree cm dm

# ownership
run_fcp --no-preserve=ownership s do
check_rc 0
check_tree s do --no-owner
check_eq "$(stat -c %u:%g do/d/g)" 0:0 "owner with --no-preserve=ownership"

# timestamps
run_fcp --no-preserve=timestamps s dt
check_rc 0
check_tree s dt --no-times
recent dt/f
recent dt/d

# xattr
run_fcp --no-preserve=xattr s dx
check_rc 0
check_tree s dx --no-xattr
[ -z "$(getfattr --absolute-names -d dx/f 2>/dev/null)" ] || fail "xattr copied with --no-preserve=xattr"

# links: hard links become separate files with the same content.
run_fcp --no-preserve=links s dl
check_rc 0
check_tree s dl --no-links
[ "$(ino dl/f)" != "$(ino dl/d/f_link)" ] || fail "hard link kept with --no-preserve=links"

# a list, and all
run_fcp --no-preserve=mode,timestamps s dmt
check_rc 0
check_tree s dmt --no-mode --no-times
check_eq "$(stat -c %a dmt/suid)" 644 "setuid with --no-preserve=mode,timestamps"
recent dmt/f
run_fcp --no-preserve=all s da
check_rc 0
check_tree s da --no-mode --no-owner --no-times --no-xattr --no-links
check_eq "$(stat -c %a:%u da/suid da/d/g | tr '\n' ' ')" "644:0 644:0 " "--no-preserve=all"
[ "$(ino da/f)" != "$(ino da/d/f_link)" ] || fail "hard link kept with --no-preserve=all"
recent da/f

# Without --no-preserve everything is kept (the control).
run_fcp s dfull
check_rc 0
check_tree s dfull

# Unknown names are bad usage.
for bad in colour mode,colour "" mode,,links; do
	run_fcp "--no-preserve=$bad" s dbad
	check_rc 2 "--no-preserve=$bad"
	check_absent dbad
done
echo "no-preserve ok"
