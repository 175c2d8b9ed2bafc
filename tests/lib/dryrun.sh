# dryrun.sh - "the dry run says what the run does" (source after lib.sh).
#
#   dry_equals_real NAME SETUP DEST ARGS...
#
# SETUP (a shell function) builds the trees in the current directory; it is
# run twice, in $T/NAME.v and $T/NAME.i. In the first, fastcp runs with
# --dry-run, then with --dry-run --itemize-changes, then for real with -v
# --stats; in the second, for real with --itemize-changes. Each is checked
# against what changed in DEST, seen by find and getfattr alone (not by
# fastcp's words):
#   - a path only before: delete; only after: copy (mkdir: a directory;
#     a hard link's other name may read link);
#   - on both sides, another type: update, and where either is a
#     directory, a delete too (the run removes it to make room); another
#     inode: update; the same inode with another mode, owner, mtime or
#     xattrs: update metadata.
# The dry run's lines (duplicates count), its closing totals, -v's lines
# (cp's arrows and rm's "removed") and the summary's "N deleted", and the
# two --itemize-changes listings must all say exactly that; the dry runs
# must leave DEST as it was, and both real runs must leave the same tree.
# The dry runs exit as the real runs do, and say on standard error the
# same messages that name a path (each failure, each thing kept).

# One line per path of DEST: path, type, inode, mode, owner, mtime, link
# target, xattrs (their dump's checksum).
dr_snap_() {
	local p x
	find "$1" -printf '%p\t%y\t%i\t%m\t%U:%G\t%T@\t%l\n' | sort | while IFS= read -r p; do
		x=$(getfattr -h -d -m - --absolute-names "${p%%$'\t'*}" 2>/dev/null | grep -v '^#' |
			md5sum | cut -c1-8)
		printf '%s\t%s\n' "$p" "$x"
	done
}

# What changed between snapshots $1 and $2, as "word<TAB>path" lines.
dr_expect_() {
	awk -F'\t' '
	NR == FNR { b[$1] = $0; bt[$1] = $2; bi[$1] = $3; next }
	{ a[$1] = $0; at[$1] = $2; ai[$1] = $3 }
	END {
		for (p in b) {
			if (!(p in a)) { print "delete\t" p; continue }
			if (bt[p] != at[p]) {
				if (bt[p] == "d" || at[p] == "d") print "delete\t" p
				print "update\t" p
			} else if (bi[p] != ai[p]) {
				print "update\t" p
			} else if (b[p] != a[p]) {
				print "update metadata\t" p
			}
		}
		for (p in a) if (!(p in b)) print (at[p] == "d" ? "mkdir" : "copy") "\t" p
	}' "$1" "$2" | sort
}

# fastcp's lines "word 'path'" as "word<TAB>path" (plain names only).
dr_words_() {
	grep -v '^fastcp: ' "$1" | sed -n "s/^\([a-z ]*\) '\(.*\)'\$/\1\t\2/p" |
		grep -v '^unchanged	\|^keep	' | sed 's/^link	/copy	/' | sort
}

# The trees; DEST's directories then get an old time, so that a coarse
# clock cannot make one equal its source's by chance (in one run and not
# in the other).
dr_setup_() {
	"$1"
	[ -d "$2" ] && find "$2" -type d -exec touch -d '2001-02-03 04:05:06' {} +
	return 0
}

# The messages of standard error that name a path, sorted (not the notes
# on how an option was read, which a run says before it starts).
dr_failures_() { grep "^fastcp: .*'" "$1" | grep -v "^fastcp: note: " | sort; }

# Which name of a hard-linked file is copied first is the workers' race.
dr_unlinked_() { sed 's/^hf/>f/' | sort; }

dry_equals_real() {
	local name=$1 setup=$2 dest=$3 dir
	shift 3
	# DR_ONLY=NAME runs that case alone (to show which one fails).
	[ -z "${DR_ONLY:-}" ] || [ "$DR_ONLY" = "$name" ] || return 0
	dir=$T/$name.v
	mkdir "$dir" && cd "$dir" || fail "$name: cannot make $dir"
	dr_setup_ "$setup" "$dest"
	dr_snap_ "$dest" >"$T/$name.before"

	run_fcp --dry-run "$@"
	local rc=$RC
	cp "$T/out" "$T/$name.dry"
	cp "$T/err" "$T/$name.dry_err"
	run_fcp --dry-run --itemize-changes "$@"
	check_rc "$rc" "$name: the dry run with --itemize-changes (the dry run's: $rc)"
	grep -v '^fastcp: ' "$T/out" | dr_unlinked_ >"$T/$name.dry_i"
	dr_snap_ "$dest" >"$T/$name.still"
	diff "$T/$name.before" "$T/$name.still" || fail "$name: the dry run changed DEST"

	run_fcp -v --stats "$@"
	check_rc "$rc" "$name: the real run (the dry run's: $rc)"
	cp "$T/out" "$T/$name.real"
	cp "$T/err" "$T/$name.real_err"
	# Each failure, and each thing kept, is said by the dry run as by
	# the run: the lines that name a path.
	dr_failures_ "$T/$name.dry_err" >"$T/$name.dry_fails"
	dr_failures_ "$T/$name.real_err" >"$T/$name.real_fails"
	diff "$T/$name.real_fails" "$T/$name.dry_fails" ||
		fail "$name: the dry run's messages (>) are not the run's (<)"
	dr_snap_ "$dest" >"$T/$name.after"
	dr_expect_ "$T/$name.before" "$T/$name.after" >"$T/$name.want"

	# The dry run's words are what changed.
	dr_words_ "$T/$name.dry" >"$T/$name.said"
	diff "$T/$name.want" "$T/$name.said" ||
		fail "$name: the dry run's lines (>) are not what the run did (<)"
	# Its totals are its lines'.
	local c u m k
	c=$(grep -c $'^\\(copy\\|mkdir\\|link\\)\t' "$T/$name.want")
	u=$(grep -c $'^update\t' "$T/$name.want")
	m=$(grep -c $'^update metadata\t' "$T/$name.want")
	k=$(grep -c $'^delete\t' "$T/$name.want")
	grep -q "^fastcp: dry run, nothing changed: would copy $c entr\(y\|ies\) ([^)]*), update $u ([^)]*), update metadata of $m, delete $k\$" "$T/$name.dry" ||
		fail "$name: the dry run's totals, want copy $c, update $u, update metadata of $m, delete $k"

	# -v: cp's arrow for every item whose data was copied, its own line
	# for one that got its metadata alone, rm's line for every deletion
	# (a directory that several SOURCEs merge into may be given the
	# metadata of each in turn: one item).
	sed -n "s/^'.*' -> '\(.*\)'\$/\1/p" "$T/$name.real" | sort -u >"$T/$name.v_changed"
	grep -v $'^delete\t\|^update metadata\t' "$T/$name.want" | cut -f2 | sort >"$T/$name.w_changed"
	diff "$T/$name.w_changed" "$T/$name.v_changed" ||
		fail "$name: -v's changed items (>) are not what the run did (<)"
	sed -n "s/^update metadata '\(.*\)'\$/\1/p" "$T/$name.real" | sort -u >"$T/$name.v_meta"
	grep $'^update metadata\t' "$T/$name.want" | cut -f2 | sort >"$T/$name.w_meta"
	diff "$T/$name.w_meta" "$T/$name.v_meta" ||
		fail "$name: -v's metadata lines (>) are not what the run updated (<)"
	sed -n "s/^removed \(directory \)\{0,1\}'\(.*\)'\$/\2/p" "$T/$name.real" | sort >"$T/$name.v_removed"
	grep $'^delete\t' "$T/$name.want" | cut -f2 | sort >"$T/$name.w_removed"
	diff "$T/$name.w_removed" "$T/$name.v_removed" ||
		fail "$name: -v's removed lines (>) are not what the run deleted (<)"
	if [ "$k" != 0 ] || grep -q ', [0-9]* deleted$' "$T/$name.real_err"; then
		grep -q ", $k deleted\$" "$T/$name.real_err" ||
			fail "$name: the summary's deletions, want $k"
	fi

	# The summary's directories copied: those made (new, or in place of
	# another type), not those that were there.
	local dirs
	dirs=$(awk -F'\t' 'NR == FNR { t[$1] = $2; next }
		$2 == "d" && t[$1] != "d" { n++ } END { print n + 0 }' \
		"$T/$name.before" "$T/$name.after")
	grep -q "^fastcp: copied .* files\{0,1\} ([^)]*), $dirs director" "$T/$name.real_err" ||
		fail "$name: the summary's directories copied, want $dirs"

	# --itemize-changes: the dry run's listing is the run's.
	dir=$T/$name.i
	mkdir "$dir" && cd "$dir" || fail "$name: cannot make $dir"
	dr_setup_ "$setup" "$dest"
	run_fcp --itemize-changes "$@"
	check_rc "$rc" "$name: the real run with --itemize-changes (the dry run's: $rc)"
	grep -v '^fastcp: ' "$T/out" | dr_unlinked_ >"$T/$name.real_i"
	diff "$T/$name.dry_i" "$T/$name.real_i" ||
		fail "$name: the dry run's --itemize-changes (<) is not the run's (>)"
	dr_snap_ "$dest" | cut -f1,2,4,5,7 >"$T/$name.after_i"
	cut -f1,2,4,5,7 "$T/$name.after" >"$T/$name.after_v"
	diff "$T/$name.after_v" "$T/$name.after_i" || fail "$name: the two real runs differ"
	cd "$T" || fail "cd $T"
	note "$name: the dry run said what the run did ($c copied, $u updated, $m metadata, $k deleted)"
}
