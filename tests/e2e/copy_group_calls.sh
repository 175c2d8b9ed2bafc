#!/bin/bash
# Not root, copying files of another user whose group we are not in: the
# full chown fails (EPERM), and the group-only chown that follows could
# only fail too. The groups are read once per job, so that one is not
# tried: one chown per file, not two (counted with strace). Where we are
# in the group, the group-only chown still runs (copy_group_nonroot.sh).
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_root "the source must belong to another user, and the copy is run as nobody"
need_cmd setpriv strace

N=20
mkdir -p s
for i in $(seq 1 $N); do printf '%s\n' "$i" >"s/f$i"; done
chown -R 0:0 s
chmod -R go+rX s
chmod 755 "$T"

for path in "" --no-io-uring; do
	rm -rf dst && mkdir dst && chown 65534:65534 dst
	check strace -f -c -o "$T/trace" -e trace=chown,fchown,fchownat,lchown \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$FASTCP" -j1 $path s dst/c
	cat "$T/trace"
	n=$(awk '$NF ~ /chown/ { s += $4 } END { print s + 0 }' "$T/trace")
	note "${path:-io_uring}: $n chown calls for $N files and 1 directory"
	[ "$n" -le $((N + 1)) ] || fail "${path:-io_uring}: $n chown calls for $N files and 1 directory"
	check_eq "$(cat dst/c/f1)" 1 "copied file"
done
echo "a group we are not in is not asked for"
