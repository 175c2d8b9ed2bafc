#!/bin/bash
# --delete/--mirror with -b: the backup a run makes of a replaced file,
# and older backups (NAME + SUFFIX, NAME.~N~), are never extras, at any
# depth, as rsync's protect rule for *SUFFIX; a name that is no backup
# under the job's -b and -S is an extra, and as with rsync -b --delete it
# is renamed to its backup name, not deleted (sync_delete_backup_files.sh).
# The dry run lists exactly the deletions and backups the real run makes.
# --move --mirror -b across filesystems alike. Each replaced or extra
# file's old bytes survive under its backup name.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

# setup DIR SRC-PARENT: a source tree, and DIR a copy of an older one with
# older backups and extras. Backup-shaped names: h~, h.~3~, h.bak.
setup() {
	rm -rf "$1" "$2/src"
	mkdir -p "$2/src/sub" "$1/sub" "$1/olddir"
	echo v1 >"$2/src/f"
	echo g1 >"$2/src/sub/g"
	echo OLDDEST >"$1/f"
	echo OLDG >"$1/sub/g"
	touch -d '1 day ago' "$1/f" "$1/sub/g"
	echo tilde >"$1/h~"
	echo numbered >"$1/h.~3~"
	echo dotbak >"$1/h.bak"
	echo extra >"$1/gone"
	echo oldx >"$1/olddir/x"
	echo oldxb >"$1/olddir/x~"
	echo oldxn >"$1/olddir/x.~1~"
	echo notbackup >"$1/f.~0~"
}

# deletes FILE: the sorted "delete" and "backup" lines of FILE (a dry run's).
deletes() { grep -E "^(delete|backup) '" "$1" | sort; }
# removed FILE: the same of -v's lines, which are rm -v's ("removed 'x'",
# "removed directory 'x'") and mv -v's ("renamed 'x' -> 'x~' (backup)").
removed() {
	sed -nE -e "s/^removed (directory )?'/delete '/p" \
		-e "s/^renamed ('[^']*') -> '[^']*' \(backup\)$/backup \1/p" "$1" | sort
}
# was NAME: what setup put in extra NAME.
was() {
	case $1 in
	h~) echo tilde ;; h.bak) echo dotbak ;; gone) echo extra ;; olddir/x) echo oldx ;;
	olddir/x~) echo oldxb ;; f.~0~) echo notbackup ;; *) echo "?" ;;
	esac
}

# run_case NAME SRC-PARENT DST BACKUP-OF-f BACKUP-OF-sub/g EXTRA=ITS-BACKUP... -- OPTIONS
run_case() {
	local name=$1 sp=$2 dst=$3 bf=$4 bg=$5 gone=() dry
	shift 5
	while [ "$1" != -- ]; do gone+=("$1"); shift; done
	shift
	setup "$dst" "$sp"
	# (--move has no dry run: it refuses one.)
	if [ "$1" != --move ]; then
		run_fcp --dry-run "$@" -T "$sp/src" "$dst"
		check_rc 0 "$name: dry run"
		deletes "$T/out" >"$T/dry"
		check_eq "$(cat "$dst/f")" OLDDEST "$name: the dry run changed nothing"
	fi
	run_fcp -v "$@" -T "$sp/src" "$dst"
	check_rc 0 "$name"
	removed "$T/out" >"$T/real"
	[ "$1" = --move ] ||
		check_eq "$(cat "$T/dry")" "$(cat "$T/real")" "$name: the dry run's deletions"
	check_eq "$(cat "$dst/f" "$dst/sub/g")" "$(printf 'v1\ng1')" "$name: the copy"
	check_file "$dst/$bf" "$name: the backup made of f deleted"
	check_eq "$(cat "$dst/$bf")" OLDDEST "$name: the backup of f"
	check_eq "$(cat "$dst/$bg")" OLDG "$name: the backup of sub/g"
	check_nogrep "delete '$dst/($bf|$bg)'" "$T/real" "$name: a backup listed for deletion"
	for gb in "${gone[@]}"; do
		g=${gb%%=*} b=${gb#*=}
		check_absent "$dst/$g" "$name: an extra kept"
		check_grep "^backup '$dst/$g'$" "$T/real" "$name: $g backed up unlisted"
		check_eq "$(cat "$dst/$b")" "$(was "$g")" "$name: the extra $g under its backup name"
	done
	check_absent "$dst/gone" "$name: an extra kept"
	check_absent "$dst/olddir/x" "$name: an extra beside backups kept"
	check_dir "$dst/olddir" "$name: the directory holding backups"
}

# -b: every NAME~ (f.~0~ too) and NAME.~N~ are backups; h.bak is not.
# (-b is --backup=existing: x has a numbered backup, its new one is x.~2~.)
run_case "-b" "$T" "$T/dst" "f~" "sub/g~" gone=gone~ olddir/x=olddir/x.~2~ h.bak=h.bak~ -- \
	--mirror -b
check_eq "$(cat dst/h~ dst/h.~3~ dst/olddir/x~ dst/olddir/x.~1~)" \
	"$(printf 'tilde\nnumbered\noldxb\noldxn')" "-b: older backups"
# --check -b names the backups as extras: they are no part of the copy.
run_fcp --check -b -T src dst
check_rc 1 "--check -b with backups in DEST"
check_grep "extra in DEST: 'dst/f~'" "$T/out" "--check -b: a backup not named"

# --backup=numbered: the new backups take .~1~ (h has .~3~: not f's).
run_case "numbered" "$T" "$T/dst" "f.~1~" "sub/g.~1~" gone=gone.~1~ olddir/x=olddir/x.~2~ \
	h.bak=h.bak.~1~ -- --delete --backup=numbered
check_eq "$(cat dst/h~ dst/h.~3~ dst/olddir/x~)" "$(printf 'tilde\nnumbered\noldxb')" \
	"numbered: older backups"
# A second run backs f up again as f.~2~: f.~1~ stays.
echo v2 >src/f && touch -d '1 hour ago' src/f && echo new2 >dst/f && touch -d '2 days ago' dst/f
run_fcp --delete --backup=numbered -T src dst
check_rc 0 "numbered, second run"
check_eq "$(cat dst/f dst/f.~1~ dst/f.~2~)" "$(printf 'v2\nOLDDEST\nnew2')" "numbered, second run"

# -S .bak: NAME.bak and NAME.~N~ are backups; h~ is then no backup.
run_case "-S .bak" "$T" "$T/dst" "f.bak" "sub/g.bak" gone=gone.bak olddir/x=olddir/x.~2~ \
	olddir/x~=olddir/x~.bak h~=h~.bak f.~0~=f.~0~.bak -- --mirror -S .bak
check_eq "$(cat dst/h.bak dst/h.~3~ dst/olddir/x.~1~)" "$(printf 'dotbak\nnumbered\noldxn')" \
	"-S .bak: older backups"

# --move --mirror -b from another filesystem: the source goes, the old
# destination bytes stay as backups.
t_mount_fs tmpfs 16M "$T/card"
run_case "--move --mirror -b" "$T/card" "$T/dst" "f~" "sub/g~" gone=gone~ olddir/x=olddir/x.~2~ \
	-- --move --mirror -b
check_absent card/src/f "--move: the source file stays"
check_eq "$(cat dst/h~ dst/olddir/x~)" "$(printf 'tilde\noldxb')" "--move: older backups"

# A directory that must give way to a file of the source's but holds a
# backup stays, with the backup (and its files get theirs, as with rsync);
# the item fails.
rm -rf src dst && mkdir -p src dst/t && echo new >src/t && echo keep >dst/t/y~ && echo z >dst/t/z
run_fcp --mirror -b -T src dst
check_rc 1 "a directory holding backups in a file's way"
check_grep "not replaced, a directory holding backups \(-b keeps them\): 'dst/t'" "$T/err"
check_eq "$(cat dst/t/y~ dst/t/z~)" "$(printf 'keep\nz')" "the backups in the directory given way"

# Without -b nothing is protected: backup-shaped extras go.
setup "$T/dst" "$T"
run_fcp --mirror -T src dst
check_rc 0 "--mirror without -b"
check_absent dst/h~ "without -b: a backup-shaped extra kept"
check_absent dst/olddir "without -b: an extra directory kept"
echo PASS
