#!/bin/bash
# --manifest's record finds bit rot (issue 33, items 9 and 10). A copy made
# with --manifest (plain, --sync, --verify) records the hash of the bytes
# it wrote, for small files (the io_uring batch), medium ones, a large one
# copied in chunks, a sparse one, an empty one and a hard link's second
# name. A flipped byte in DEST (size and mtime kept) is then found by
# --check --manifest FILE DEST, exit 1, and its hash is never recorded as
# the truth: the next check finds it again, and so after a check against
# the source. A file recorded without a hash is said to be not compared
# and the check does not exit 0. A manifest of schema 1 loses its hashes
# of files above 32 MiB (hashed whole then). A missing or empty manifest
# is an error (exit 2) and is not made; a DEST under which no recorded
# file is names the directory probably meant.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd sqlite3 cmp
need_built HAVE_SQLITE3 "built without SQLite"
need_built HAVE_XXHASH "built without libxxhash"

hash_of() { sqlite3 "$1" "select hex(xxh128) from files where side = 0 and path = '$2'"; }

mkdir -p src/sub
for i in 1 2 3 4; do head -c $((i * 3000)) /dev/urandom >"src/f$i"; done
head -c $((3 << 20)) /dev/urandom >src/sub/medium
head -c $((70 << 20)) /dev/urandom >src/sub/large # > 64 MiB: copied in chunks
truncate -s 20M src/sparse && printf 'data' | dd of=src/sparse bs=1 seek=5000000 conv=notrunc status=none
: >src/empty
ln src/f1 src/f1_link
nfiles=$(find src -type f | wc -l)

for how in plain sync verify; do
	case $how in
	plain) opts=() ;;
	sync) opts=(--sync) ;;
	verify) opts=(--verify) ;;
	esac
	m=m_$how.db d=d_$how
	run_fcp "${opts[@]}" --manifest "$m" -T src "$d"
	check_rc 0 "copy ($how)"
	check_eq "$(sqlite3 "$m" 'select count(*) from files where side = 0 and xxh128 is not null')" \
		"$nfiles" "files recorded with a hash ($how)"
	# Not as read back from storage, even with --verify: the copies were
	# made in this run, and a change in the tick of their last ctime would
	# not show (fcp_statx_racy). A later run that reads them records so.
	check_eq "$(sqlite3 "$m" "select count(*) from files where side = 0 and verified is null")" \
		"$nfiles" "files recorded as not read back ($how)"
	run_fcp --check --manifest "$m" "$d"
	check_rc 0 "check of the intact copy ($how)"
	check_eq "$(cat "$T/out")" "" "no difference in the intact copy ($how)"

	before_large=$(hash_of "$m" sub/large) before_f2=$(hash_of "$m" f2)
	t_rot "$d/sub/large" $(((40 << 20) + 12345)) # in the second window
	t_rot "$d/f2" 100
	for round in 1 2; do
		run_fcp --check --manifest "$m" "$d"
		check_rc 1 "check after bit rot ($how, $round)"
		check_grep "^content differs: '$d/sub/large'$" "$T/out"
		check_grep "^content differs: '$d/f2'$" "$T/out"
		check_eq "$(wc -l <"$T/out")" 2 "lines of the check ($how, $round)"
		check_eq "$(hash_of "$m" sub/large)" "$before_large" "the recorded hash stays ($how)"
		check_eq "$(hash_of "$m" f2)" "$before_f2" "the recorded hash stays ($how)"
	done
	# Checked against the source: the damaged copy's hash is not taken.
	run_fcp --check --manifest "$m" -T src "$d"
	check_rc 1 "check against the source ($how)"
	check_grep "^content differs: '$d/f2'$" "$T/out"
	run_fcp --check --manifest "$m" "$d"
	check_rc 1 "check after the check against the source ($how)"
	check_grep "^content differs: '$d/sub/large'$" "$T/out"
	check_grep "^content differs: '$d/f2'$" "$T/out"
done

# A file recorded without a hash cannot be compared: said, not exit 0,
# and its hash now is not recorded as the truth.
# (a manifest of its own: one serves one DEST)
run_fcp --manifest legacy.db -T src d_legacy
check_rc 0 "copy for the legacy manifest"
sqlite3 legacy.db "update files set xxh128 = null, verified = null where path = 'f3'"
t_rot d_legacy/f3 10
run_fcp -v --check --manifest legacy.db d_legacy
check_rc 1 "check with a file recorded without a hash"
check_eq "$(cat "$T/out")" "" "no difference claimed"
check_grep "1 file recorded without a hash .*not compared" "$T/err"
check_grep "1 file not compared \(no hash recorded\)" "$T/err"
check_eq "$(hash_of legacy.db f3)" "" "no hash recorded for it"
run_fcp --json --check --manifest legacy.db d_legacy
check_rc 1 "check with --json"
check_grep '"not_compared": ?1' "$T/out"
# Against the source, the damage shows; an intact file gets its hash.
run_fcp --check --manifest legacy.db -T src d_legacy
check_rc 1 "legacy check against the source"
check_grep "^content differs: 'd_legacy/f3'$" "$T/out"
cp src/f3 d_legacy/f3 && touch -r src/f3 d_legacy/f3
run_fcp --check --manifest legacy.db -T src d_legacy
check_rc 0 "legacy check against the source, repaired"
run_fcp --check --manifest legacy.db d_legacy
check_rc 0 "every file compared now"

# Schema 1 hashed a file whole: such hashes of files above 32 MiB are
# dropped, the smaller ones (the same either way) kept.
cp m_verify.db v1.db
# (of schema 1's time: no DEST recorded, so d_legacy, whose copy the
# large file's hash still matches, can be checked with it)
sqlite3 v1.db "pragma user_version = 1; delete from meta where name = 'dest'"
run_fcp --check --manifest v1.db d_legacy
check_rc 1 "check with a schema 1 manifest"
check_eq "$(sqlite3 v1.db 'pragma user_version')" 2 "schema taken up"
check_eq "$(hash_of v1.db sub/large)" "" "a large file's hash of schema 1 dropped"
check_eq "$(hash_of v1.db sub/medium)" "$(hash_of m_verify.db sub/medium)" "a small one's kept"
check_grep "1 file recorded without a hash" "$T/err"

# A missing or empty manifest: an error, and nothing made.
run_fcp --check --manifest TYPO.db d_plain
check_rc 2 "a missing manifest"
check_grep "cannot use manifest 'TYPO.db': No such file or directory" "$T/err"
for f in TYPO.db TYPO.db-wal TYPO.db-shm TYPO.db-journal; do check_absent "$f"; done
: >empty.db
run_fcp --check --manifest empty.db d_plain
check_rc 2 "an empty manifest"
check_grep "cannot use manifest 'empty.db': .*records no files" "$T/err"
check_eq "$(stat -c %s empty.db)" 0 "the empty manifest stays empty"
cp m_plain.db norows.db && sqlite3 norows.db "delete from files"
run_fcp --check --manifest norows.db d_plain
check_rc 2 "a manifest without files"
check_grep "records no files" "$T/err"

# No recorded file under the DEST given: the directory probably meant
# (where the recorded DEST holds none: the copy moved).
mkdir into
real_t=$(cd "$T" && pwd -P)
run_fcp --manifest into.db src into
check_rc 0 "copy into a directory"
run_fcp --check --manifest into.db into/src
check_rc 2 "DEST one level too deep"
# (the DEST the manifest records, there: named, another refused)
check_grep "manifest 'into.db' records the files of '$real_t/into', not of '$real_t/into/src' \(.*was '$real_t/into' meant\?\)" "$T/err"
check_eq "$(cat "$T/out")" "" "no line per missing file"
mkdir -p parent && mv d_plain parent/
run_fcp --check --manifest m_plain.db parent
check_rc 2 "DEST one level too high"
check_grep "\(was 'parent/d_plain' meant\?\)" "$T/err"
run_fcp --check --manifest m_plain.db nowhere/at/all
check_rc 2 "DEST missing"
check_grep "none of the $nfiles files .* is in 'nowhere/at/all'" "$T/err"
echo "PASS"
