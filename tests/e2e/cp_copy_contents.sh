#!/bin/bash
# cp's --copy-contents (issue 20), beside GNU cp: in a tree, a FIFO or a
# device is read as a file and its data (to end of file) becomes a regular
# file with its mode, owner and times; without it they are made as FIFOs
# and devices. A FIFO is fed by a writer started beside each copy.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_root "makes device nodes"
. "$TESTLIB/cp.sh"

setup() {
	mkdir -p src/sub out
	echo a >src/a
	mknod src/null c 1 3; chmod 640 src/null   # /dev/null: empty
	mkfifo src/sub/fifo; chmod 600 src/sub/fifo
	echo old >out/null
}
feed() { # feed TWIN: a writer for the FIFO, gone when it is read (or in 30 s)
	timeout 30 sh -c 'printf "through the fifo\n" >"$1"' sh "$T/$1/src/sub/fifo" &
}

for cmd in "--copy-contents src new" "--copy-contents -T src out" "--copy-contents -n -T src out"; do
	cp_twins setup
	feed gnu; feed fcp
	cp_both $cmd
	wait
	cp_same
done
cp_twins setup
feed gnu; feed fcp
cp_both --copy-contents src new
wait
check_file "$T/fcp/new/null"
check_eq "$(cat "$T/fcp/new/sub/fifo")" "through the fifo" "FIFO read"
check_eq "$(stat -c '%a %s' "$T/fcp/new/null")" "640 0" "device read"
# Without it: a FIFO and a device again.
cp_both src plain
[ -p "$T/fcp/plain/sub/fifo" ] && [ -c "$T/fcp/plain/null" ] || fail "specials made"
echo PASS
