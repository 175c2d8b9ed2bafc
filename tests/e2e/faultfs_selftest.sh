#!/bin/bash
# faultfs (tests/lib/faultfs.c) does what each option says, so that the tests
# built on it test fastcp, not the fault filesystem: EIO at an offset with
# the bytes before it served (or at a range only), faults only while armed, short reads reaching the reader, delays, a
# destination that fills up (ENOSPC, EDQUOT), renames with flags refused,
# reads and opens held until the test lets them go, faults limited to
# --match, and a plain passthrough otherwise.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_cmd dd cmp perl

mkdir -p b
head -c 300000 /dev/urandom >b/data
head -c 300000 /dev/urandom >b/other
ln b/data b/data_link

# renameat2(AT_FDCWD, FROM, AT_FDCWD, TO, FLAGS) by number; prints errno name.
rename2() {
	local nr
	case $(uname -m) in x86_64) nr=316 ;; aarch64) nr=276 ;; *) skip "renameat2 number unknown on $(uname -m)" ;; esac
	perl -e 'use Errno; my $r = syscall('"$nr"', -100, $ARGV[0], -100, $ARGV[1], $ARGV[2]+0);
		print $r == 0 ? "OK\n" : ((grep { $!{$_} } keys %!)[0] . "\n")' "$@"
}

# Plain passthrough: content, hard links (inode numbers), rename flags work.
faultfs_mount b m0
check cmp m0/data b/data
check_eq "$(stat -c %i m0/data)" "$(stat -c %i m0/data_link)" "hard link inode numbers"
echo x >m0/r1 && echo y >m0/r2
check_eq "$(rename2 m0/r1 m0/r2 2)" OK "RENAME_EXCHANGE without --no-rename-flags"
check_eq "$(cat b/r1)" y "exchange happened in the backing directory"

# --eio-at: the bytes before the offset are served, then EIO.
faultfs_mount b m1 --eio-at=100000 --match='data*'
dd if=m1/data of=got bs=64k 2>dd.err && fail "dd read past --eio-at without an error"
check_grep "Input/output error" dd.err
check_eq "$(stat -c %s got)" 100000 "bytes served before the EIO offset"
check cmp got <(head -c 100000 b/data)
check cmp m1/other b/other   # --match: other files are not faulted

# --eio-len: only that range fails (a bad sector), the bytes after it are
# served; each injected EIO is said in the log.
faultfs_mount b m12 --eio-at=65536 --eio-len=4096 --match=data
check_not dd if=m12/data of=/dev/null bs=64k status=none 2>/dev/null
check cmp <(dd if=m12/data bs=4k skip=17 status=none) <(tail -c +69633 b/data)
check_grep "^faultfs: EIO for the read of /data at 65536" "$T/faultfs.log"

# --armed: the faults apply only while the file exists; without it the
# same mount is a plain passthrough.
touch armed
faultfs_mount b m13 --eio-at=0 --no-rename-flags --armed="$T/armed"
check_not cat m13/data >/dev/null 2>&1
rm armed
check cmp m13/data b/data
echo x >m13/a1 && echo y >m13/a2
check_eq "$(rename2 m13/a1 m13/a2 2)" OK "RENAME_EXCHANGE once disarmed"

# --eio-first=2: the first two reads of matching files fail, then they
# are served (other files never fail nor count).
faultfs_mount b m9 --eio-first=2 --match='data*'
check cmp m9/other b/other
check_not cat m9/data >/dev/null 2>&1
check_not cat m9/data >/dev/null 2>&1
check cmp m9/data b/data

# --eio-at=0: the first read fails.
faultfs_mount b m2 --eio-at=0
check_not cat m2/data >/dev/null 2>&1

# --short: every read returns at most N bytes, and the content is intact.
faultfs_mount b m3 --short=1000
dd if=m3/data of=got bs=64k 2>dd.err || fail "dd through --short failed"
check_grep "^0\+300 records in" dd.err "reads were not short"
check cmp got b/data

# --eof-at: reads end there, the size stays (a file that shrank).
faultfs_mount b m8 --eof-at=5000
check_eq "$(stat -c %s m8/data)" 300000 "size under --eof-at"
check_eq "$(cat m8/data | wc -c)" 5000 "bytes read under --eof-at"

# --delay-ms: a read of a matching file takes at least that long.
faultfs_mount b m4 --delay-ms=300 --match=data
t0=$(date +%s%N); check cmp m4/data b/data; t1=$(date +%s%N)
[ $(((t1 - t0) / 1000000)) -ge 300 ] || fail "--delay-ms=300 read took $(((t1 - t0) / 1000000)) ms"

# --enospc-after / --edquot-after: writes fail once the budget is spent.
faultfs_mount b m5 --enospc-after=100000
dd if=/dev/zero of=m5/w bs=64k count=10 2>dd.err && fail "write past --enospc-after succeeded"
check_grep "No space left on device" dd.err
check_eq "$(stat -c %s b/w)" 100000 "bytes written before ENOSPC"
faultfs_mount b m6 --edquot-after=1000
dd if=/dev/zero of=m6/q bs=4k count=1 2>dd.err && fail "write past --edquot-after succeeded"
check_grep "Disk quota exceeded" dd.err

# --no-rename-flags: RENAME_NOREPLACE (1) and RENAME_EXCHANGE (2) fail with
# EINVAL; a plain rename still works.
faultfs_mount b m7 --no-rename-flags
check_eq "$(rename2 m7/r1 m7/new 1)" EINVAL "RENAME_NOREPLACE with --no-rename-flags"
check_eq "$(rename2 m7/r1 m7/r2 2)" EINVAL "RENAME_EXCHANGE with --no-rename-flags"
check mv m7/r1 m7/new
check_file b/new

# --hold with --block-at: a read reaching the offset waits, said in the
# log, while the hold file exists (the bytes before it are served); other
# files are not held; once the file is gone the read goes on, intact.
touch hold
faultfs_mount b m10 --match=data --block-at=100000 --hold="$T/hold"
dd if=m10/data of=got bs=64k 2>dd.err &
p=$!
faultfs_held "read of /data at 100000"
check timeout 10 cmp m10/other b/other
kill -0 "$p" 2>/dev/null || fail "a read at --block-at did not wait"
check_eq "$(stat -c %s got)" 100000 "bytes served before the --block-at offset"
rm hold
wait "$p" || fail "dd after the hold went: $(cat dd.err)"
check cmp got b/data

# --block-open: an open waits so. With -s (one thread), a request behind a
# held one waits unanswered, and a fatal signal ends its caller at once.
touch hold
faultfs_mount b m11 --match=data --block-open --hold="$T/hold" -s
cat m11/data >got &
p=$!
faultfs_held "open of /data"
cat m11/other >/dev/null &
q=$!
for ((i = 0; i < 20; i++)); do kill -0 "$q" 2>/dev/null || break; sleep 0.05; done
kill -0 "$q" 2>/dev/null || fail "a request behind a held one was answered (-s)"
# (stderr away: no "Killed" line from the shell)
{ kill -KILL "$q" && timeout 5 tail --pid="$q" -f /dev/null; } 2>/dev/null ||
	fail "SIGKILL did not end a request waiting behind a held one"
check_eq "$(stat -c %s got)" 0 "bytes read before the open was let go"
rm hold
wait "$p" || fail "cat after the hold went"
check cmp got b/data
echo "faultfs options work"
