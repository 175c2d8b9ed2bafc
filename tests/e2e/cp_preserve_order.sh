#!/bin/bash
# cp's -p is --preserve=mode,ownership,timestamps: after a --no-preserve
# that left them out, it keeps them again (the later one wins), and a
# --no-preserve after it leaves them out. fastcp accepted -p and did
# nothing: "--no-preserve=mode,timestamps -p" copied without the mode and
# times. Beside GNU cp; and rsync's -A/-X (--acls/--xattrs) as
# --preserve=xattr after --no-preserve=xattr.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
. "$TESTLIB/cp.sh"

setup() {
	mkdir src
	echo data >src/f
	chmod 0777 src/f
	touch -d 2001-02-03 src/f
	setfattr -n user.k -v v src/f 2>/dev/null
}

# times_of TREE: the mtime of out/f in the twin TREE.
mtime() { stat -c %Y "$T/$1/out/f"; }
want=$(date -d 2001-02-03 +%s)

for cmd in "--no-preserve=mode,timestamps -p" "--no-preserve=all -p" \
	   "-p --no-preserve=mode,timestamps" "--no-preserve=mode -p --no-preserve=timestamps"; do
	cp_twins setup
	# shellcheck disable=SC2086
	cp_both $cmd -T src out
	cp_same
	check_eq "$(stat -c %a "$T/fcp/out/f")" "$(stat -c %a "$T/gnu/out/f")" "$cmd: mode as cp's"
	if [ "$(mtime gnu)" = "$want" ]; then
		check_eq "$(mtime fcp)" "$want" "$cmd: mtime kept, as by cp"
	else
		[ "$(mtime fcp)" != "$want" ] || fail "$cmd: mtime kept where cp does not"
	fi
done
# The first: kept (what cp does, said outright).
cp_twins setup
cp_both --no-preserve=mode,timestamps -p -T src out
check_eq "$(stat -c %a "$T/fcp/out/f")" 777 "-p after --no-preserve=mode"
check_eq "$(mtime fcp)" "$want" "-p after --no-preserve=timestamps"

# rsync's -A, -X, --acls, --xattrs after --no-preserve=xattr.
if getfattr -n user.k "$T/base/src/f" >/dev/null 2>&1; then
	for x in -X -A --xattrs --acls; do
		rm -rf "$T/fcp/out"
		cd "$T/fcp" || fail cd
		run_fcp --no-preserve=xattr $x -T src out
		check_rc 0
		check_eq "$(getfattr --only-values -n user.k out/f 2>/dev/null)" v "$x after --no-preserve=xattr"
		rm -rf out
		run_fcp $x --no-preserve=xattr -T src out
		check_eq "$(getfattr --only-values -n user.k out/f 2>/dev/null)" "" "--no-preserve=xattr after $x"
		cd "$T" || fail cd
	done
else
	note "no user xattrs here: -A/-X not checked"
fi
echo PASS
