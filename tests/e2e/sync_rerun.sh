#!/bin/bash
# --sync, issue 18: a re-run over an unchanged copy changes nothing
# (no inode replaced, no ctime moved: not even a metadata write) and says
# "copied 0 files" and how many were unchanged; a file whose size or mtime
# changed is copied again (a new inode under its name, renamed over the old
# one); a change of mode, owner or xattrs alone is applied in place (the
# same inode); a changed symlink target replaces the link. Then the copy
# equals the source.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_root "the sample tree has devices and owners"
need_cmd setfattr getfattr

t_mktree src nodeep
run_fcp -T src dst
check_rc 0 "first copy"
check_tree src dst

# %C@ (ctime): any chmod, chown, utimens, xattr or rename would move it.
snap() { (cd dst && find . -printf '%i %y %m %u %g %s %T@ %C@ %p\n' | sort -k9); }
snap >before
entries=$(find dst -mindepth 1 -printf x | wc -c) # names with a newline: one each
sleep 0.05
run_fcp -v --sync -T src dst
check_rc 0 "unchanged re-run"
check_grep "^fastcp: copied 0 files \(0 B\), 0 directories, 0 symlinks, 0 hard links, 0 special files" "$T/err"
# Every name is an entry; the root copy itself too.
check_grep "^fastcp: $((entries + 1)) unchanged, 0 with metadata updated, 0 deleted$" "$T/err"
snap >after
diff before after >/dev/null || { diff before after | head; fail "an unchanged re-run touched the copy"; }
if command -v strace >/dev/null 2>&1; then
	# Nothing written, made, renamed or removed; and the files that the
	# walk batches (the many_* of files/) are not even opened.
	FCP_WRAP="strace -f -qq -o $T/trace -e trace=openat,renameat,renameat2,linkat,unlinkat,mkdirat,io_uring_enter" \
		run_fcp --sync -T src dst
	check_rc 0 "unchanged re-run under strace"
	check_nogrep "O_WRONLY|O_RDWR|O_CREAT|O_TMPFILE|renameat|linkat\(|unlinkat|mkdirat" "$T/trace"
	check_nogrep "\"many_[0-9]+\"" "$T/trace"
else
	note "strace not installed: syscalls not checked"
fi

ino() { stat -c %i "$1"; }
i_small=$(ino dst/files/small) i_medium=$(ino dst/files/medium)
i_script=$(ino dst/files/script) i_page=$(ino dst/files/page_plus_one)
i_xattr=$(ino dst/xattr/file) i_empty=$(ino dst/files/empty)
printf 'more\n' >>src/files/small                       # size and mtime
touch -m -d @1600000000.5 src/files/medium              # mtime only, same size
chmod 0640 src/files/script                             # mode only
chown 65534:65534 src/files/page_plus_one               # owner only
setfattr -n user.added -v new src/xattr/file            # xattrs only
setfattr -x user.plain src/xattr/file
setfattr -n user.extra -v stale dst/files/empty         # only the copy has it
rm src/symlinks/dangling && ln -s elsewhere src/symlinks/dangling
run_fcp -v --sync -T src dst
check_rc 0 "re-run after changes"
check_tree src dst
check_grep "^fastcp: copied 2 files \(" "$T/err"
check_grep ", 1 symlink," "$T/err"
[ "$(ino dst/files/small)" != "$i_small" ] || fail "a file whose size changed was not copied again"
[ "$(ino dst/files/medium)" != "$i_medium" ] || fail "a file whose mtime changed was not copied again"
check_eq "$(ino dst/files/script)" "$i_script" "mode change: not updated in place"
check_eq "$(ino dst/files/page_plus_one)" "$i_page" "owner change: not updated in place"
check_eq "$(ino dst/xattr/file)" "$i_xattr" "xattr change: not updated in place"
check_eq "$(ino dst/files/empty)" "$i_empty" "extra xattr: not updated in place"
check_eq "$(getfattr --absolute-names --only-values -n user.extra dst/files/empty 2>/dev/null)" "" \
	"an xattr the source lacks stayed on the copy"
check_eq "$(getfattr --absolute-names --only-values -n user.plain dst/xattr/file 2>/dev/null)" "" \
	"a removed xattr stayed on the copy"
check_eq "$(readlink dst/symlinks/dangling)" "elsewhere" "changed symlink"
check_no_temp dst
echo "sync: unchanged entries untouched, changed ones copied or updated in place"
