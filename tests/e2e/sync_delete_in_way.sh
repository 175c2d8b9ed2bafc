#!/bin/bash
# A source item whose place in DEST is taken by an entry of another type
# that cannot be removed (a directory with a bind mount below it, one made
# immutable with chattr +i, a file made immutable in the way of a
# directory) is not copied, and is named with its path everywhere a failed
# item is: on stderr, in --log and in --json's errors; what stays in the
# way is said too, nothing outside DEST changes, exit 1.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "bind mounts and chattr +i need root"

# said_failed ITEM: ITEM is named as failed in all three outputs.
said_failed() {
	check_grep "^fastcp: .*'$1'" "$T/err" "'$1' not named on stderr"
	check_grep "^fail	$1	" log.tsv "'$1' not named in --log"
	grep -o '"errors":\[[^]]*\]' "$T/out" >errors.json
	check_grep "'$1'" errors.json "'$1' not named in --json's errors"
}

mkdir s other
echo SX >s/x
mkdir s/y && echo SY >s/y/y
echo outside >other/o
mkdir -p d/x/deep/mp
t_bind other d/x/deep/mp
run_fcp --mirror --log log.tsv --json -T s d
check_rc 1 "a mount point below the directory in the way"
said_failed s/x
check_grep "held back in 'd/x/deep/mp'" "$T/err"
check_eq "$(cat other/o)" outside "the mounted directory's file"
check_eq "$(cat d/x/deep/mp/o)" outside "the file below the mount point"
check_eq "$(cat d/y/y)" SY "the other item copied"
check_eq "$(cat s/x)" SX "the source item"

umount d/x/deep/mp
rm -rf d
mkdir -p d/x
echo keep >d/x/k
echo DY >d/y
if chattr +i d/x d/y 2>/dev/null; then
	run_fcp --mirror --log log.tsv --json -T s d
	rc=$RC
	chattr -i d/x d/y
	RC=$rc
	check_rc 1 "an immutable entry in the way"
	said_failed s/x
	said_failed s/y
	check_eq "$(cat d/x/k)" keep "the immutable directory's file"
	check_eq "$(cat d/y)" DY "the immutable file"
else
	note "chattr +i not supported on $T: the immutable case not run"
fi
echo "an item not copied for what is in its way is named everywhere"
