#!/bin/bash
# The files a job writes itself (issue 33, item 10) — the --manifest
# database with its -wal and -shm, the --log and --events files — are
# never walked, copied or deleted, inside DEST or inside a SOURCE:
# "--mirror --manifest DEST/m.db" keeps its own manifest (and the extras
# beside it go), an extra directory that holds one stays with it (said),
# one inside a SOURCE is not copied, a source file of the same name is not
# copied over one (that item fails), and an operand that names one (a
# shell glob) is left out.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_cmd sqlite3

mkdir -p src/d
printf 'a\n' >src/a
printf 'b\n' >src/d/b
run_fcp -T src dst
check_rc 0 "first copy"

# In DEST's top and in a directory of the copy: kept, run after run,
# while the extras beside them go.
for run in 1 2; do
	printf 'x\n' >dst/extra
	printf 'y\n' >dst/d/extra
	run_fcp --mirror --manifest dst/m.db --log dst/run.log --events dst/d/ev.ndjson -T src dst
	check_rc 0 "--mirror with its own files in DEST, run $run"
	check_absent dst/extra "an extra beside the job's own files"
	check_absent dst/d/extra "an extra beside the --events file"
	check_file dst/m.db "--mirror deleted its own manifest (run $run)"
	check_eq "$(sqlite3 dst/m.db 'pragma integrity_check')" ok "the manifest, run $run"
	check_grep "src/d/b" dst/run.log "--log, run $run"
	check_grep '"event":"end"' dst/d/ev.ndjson "--events, run $run"
	check_nogrep "m\.db|run\.log|ev\.ndjson" "$T/all" "the job's own files were touched"
done
# The -wal and -shm of a manifest in use: kept. The job is held (its
# --events FIFO full) until they are seen, then let finish.
mkdir big && for i in $(seq 1 2000); do printf '%d\n' "$i" >"big/f$i"; done
run_fcp -T big bdst
check_rc 0 "copy of big"
printf 'x\n' >bdst/extra
mkfifo fifo
"$FASTCP" --mirror --manifest bdst/m.db --log run2.log --events fifo -T big bdst \
	>"$T/out" 2>"$T/err" &
pid=$!
exec 3<fifo
for _ in $(seq 1 100); do [ -e bdst/m.db-wal ] && break; sleep 0.05; done
check_file bdst/m.db-wal "no -wal while the manifest is open"
cat <&3 >/dev/null
exec 3<&-
wait $pid
ran_ $? fastcp "--mirror --manifest bdst/m.db --events fifo -T big bdst"
check_rc 0 "--mirror with a manifest in WAL mode"
check_absent bdst/extra
check_grep "^delete.bdst/extra" run2.log
check_nogrep "m\.db" run2.log "the manifest's -wal or -shm was touched"
check_eq "$(sqlite3 bdst/m.db 'pragma integrity_check')" ok "the manifest after its -wal"

# In an extra directory: the directory stays, with the manifest, said once.
mkdir -p dst/old && printf 'x\n' >dst/old/x
run_fcp --mirror --manifest dst/old/m.db -T src dst
check_rc 0 "--mirror with the manifest in an extra directory"
check_file dst/old/m.db "the manifest in an extra directory"
check_absent dst/old/x "an extra beside the manifest in an extra directory"
check_eq "$(grep -c "deletions held back in 'dst/old': it holds a file this job writes" "$T/err")" 1 \
	"said once"

# Inside a SOURCE: not copied; a source file onto one: not copied, fails.
run_fcp --manifest src/m.db --log src/d/run.log -T src new
check_rc 0 "the job's own files inside SOURCE"
check_file src/m.db
check_absent new/m.db "the manifest was copied"
check_absent new/m.db-wal
check_absent new/m.db-shm
check_absent new/d/run.log "the log was copied"
check_file new/d/b
printf 'not the log\n' >src/log.txt
run_fcp --log dst/log.txt -T src dst
check_rc 1 "a source file onto the --log file"
check_grep "will not copy over a file this job writes \(--manifest, --log, --events\): 'dst/log.txt'" "$T/err"
check_grep "src/d/b" dst/log.txt "the log was replaced by a source file"
rm src/log.txt

# Named as an operand (cd src; fastcp --log run.log * ../into/).
mkdir into
(cd src && "$FASTCP" --log run.log a d run.log ../into/ >"$T/out" 2>"$T/err")
ran_ $? fastcp "--log run.log a d run.log ../into/"
check_rc 0 "an operand that is the --log file"
check_grep "not copying 'run.log': this job writes it" "$T/err"
check_absent into/run.log "the --log file named as an operand was copied"
check_file into/d/b
exit 0
