#!/bin/bash
# --itemize-changes prints rsync -i's lines (issue 35), checked beside
# rsync -ai on the same changes: a new tree (file, directory, symlink,
# FIFO), then permissions alone, new data of the same size (and a time
# alone: rsync and --sync both copy it again, "t" and no "s"), new data of
# another size, an extra deleted (--delete); then, with -c, a time alone
# (metadata only). The directories whose time only the run's own writes
# changed are not listed, as by rsync. fastcp names the destination path (rsync the
# path below the transfer's root, "./" for it) and no symlink target
# (rsync's " -> f"): both are taken away before the lines are compared.
# A dry run prints the same lines.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd rsync

mkdir -p s/sub
printf f >s/f
printf g >s/sub/g
printf hhhh >s/h
printf k >s/k
ln -s f s/l
mkfifo s/p
touch -h -d '2020-01-02 03:04:05' s/f s/sub/g s/h s/k s/l s/sub s
# rsync's lines, as fastcp's would read: "./" for the root, no targets.
rs() { rsync -ai "$@" s/ r/ | grep -v '^created directory' | sed -E 's/ -> .*//' | sort; }
# fastcp's lines, its destination's name taken away.
fc() { sed -E 's#^(.{11}) d/$#\1 ./#; s#^(.{11}) d/#\1 #; s#^\*deleting   d/#*deleting   #' "$1" |
	grep -v '^fastcp: ' | sort; }

rs >rsync.1
run_fcp --itemize-changes -T s d
check_rc 0 "the first copy"
fc "$T/out" >fastcp.1
diff rsync.1 fastcp.1 || fail "--itemize-changes of a new tree differs from rsync -ai's"
check_grep '^cd\+{9} \./$' fastcp.1
check_grep '^>f\+{9} f$' fastcp.1
check_grep '^cL\+{9} l$' fastcp.1
check_grep '^cS\+{9} p$' fastcp.1

chmod 600 s/f
touch -d '2021-01-01 00:00:00' s/sub/g
printf HHHH >s/h && touch -d '2021-01-02 00:00:00' s/h
printf kkkkk >s/k && touch -d '2021-01-03 00:00:00' s/k
touch r/extra d/extra
touch -d '2020-01-02 03:04:05' r d
rs --delete >rsync.2
run_fcp --dry-run --itemize-changes --sync --delete -T s d
check_rc 0 "the dry run"
fc "$T/out" >fastcp.dry
tail -n 1 "$T/out" >closing
run_fcp --itemize-changes --sync --delete -T s d
check_rc 0 "the re-run"
fc "$T/out" >fastcp.2
diff rsync.2 fastcp.2 || fail "--itemize-changes of the changes differs from rsync -ai's"
check_grep '^\.f\.\.\.p\.{5} f$' fastcp.2
check_grep '^>f\.\.t\.{6} sub/g$' fastcp.2
check_grep '^>f\.\.t\.{6} h$' fastcp.2
check_grep '^>f\.st\.{6} k$' fastcp.2
check_grep '^\*deleting   extra$' fastcp.2
check_eq "$(wc -l <fastcp.2)" 5 "lines of the re-run"
diff fastcp.2 fastcp.dry || fail "the dry run's lines differ from the run's"
check_eq "$(cat closing)" "fastcp: dry run, nothing changed: would copy 0 entries (0 B), update 3 (10 B), update metadata of 1, delete 1" \
	"the dry run's closing line"
cmp s/h d/h && cmp s/k d/k || fail "the copy's data"
check_absent d/extra
run_fcp --itemize-changes --sync --delete -T s d
check_eq "$(cat "$T/out")" "" "a run with nothing to change"

# -c: the data compared, a time alone is metadata alone.
touch -d '2022-01-01 00:00:00' s/f
rs -c >rsync.3
run_fcp --itemize-changes -c -T s d
check_rc 0 "the run with -c"
fc "$T/out" >fastcp.3
diff rsync.3 fastcp.3 || fail "--itemize-changes with -c differs from rsync -aci's"
check_eq "$(cat fastcp.3)" ".f..t...... f" "a time alone under -c"
echo "--itemize-changes: rsync -i's lines"
