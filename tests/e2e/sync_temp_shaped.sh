#!/bin/bash
# A name of fastcp's temporary shape (.fcp-<hex>-<n>-<n>) proves nothing
# about who made it:
#   - --sync without --delete never removes a DEST file for its name: the
#     user's file keeps its bytes (it is only named as a possible leftover);
#   - a SOURCE file of that shape is the copy's own name: never removed,
#     never named as a leftover, not copied again when unchanged;
#   - beside the roots (the directory above DEST's copy) nothing is removed,
#     not even by --mirror;
#   - --mirror, which removes every name the source lacks, removes a
#     file of that shape the source lacks as any other extra (not called a
#     leftover: only a name with fastcp's tag is one), and keeps the
#     source's;
#   - --check says temp-shaped entries only DEST has (file or directory) as
#     extras in DEST, exit 1; with only the source's own, exit 0.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp

mkdir src
echo x >src/x
echo "source's own" >src/.fcp-0123456789abcdef-2-2
run_fcp -T src dst
check_rc 0 "first copy"
check_eq "$(cat dst/.fcp-0123456789abcdef-2-2)" "source's own" "the source's temp-shaped file copied"
echo "my notes" >dst/.fcp-fedcba9876543210-1-3
echo "beside" >.fcp-aaaaaaaaaaaaaaaa-1-1
ino=$(stat -c %i dst/.fcp-0123456789abcdef-2-2)

for i in 1 2; do
	run_fcp --sync -T src dst
	check_rc 0 "--sync $i"
	check_eq "$(cat dst/.fcp-fedcba9876543210-1-3 2>&1)" "my notes" \
		"--sync $i removed a user's file for its name"
	check_eq "$(cat .fcp-aaaaaaaaaaaaaaaa-1-1 2>&1)" "beside" "--sync $i removed a file beside DEST"
	check_eq "$(cat dst/.fcp-0123456789abcdef-2-2 2>&1)" "source's own" \
		"--sync $i: the source's file"
	check_eq "$(stat -c %i dst/.fcp-0123456789abcdef-2-2)" "$ino" \
		"--sync $i copied the source's unchanged temp-shaped file again"
	check_nogrep "removed" "$T/err" "--sync $i removed something"
	check_nogrep "0123456789abcdef-2-2" "$T/err" "--sync $i: the source's name called a leftover"
	check_grep "'dst/\.fcp-fedcba9876543210-1-3' has the name of a temporary file" "$T/err"
done

# --check: an extra file and an extra directory of the shape are extras.
run_fcp --check -T src dst
check_rc 1 "--check with a temp-shaped extra file"
check_grep "^extra in DEST: 'dst/\.fcp-fedcba9876543210-1-3'$" "$T/out"
check_nogrep "0123456789abcdef-2-2" "$T/all" "--check: the source's own name called a difference"
mkdir dst/.fcp-0123456789abcdef-0-0
touch -r src dst
run_fcp --check -T src dst
check_rc 1 "--check with a temp-shaped extra directory"
check_grep "^extra in DEST: 'dst/\.fcp-0123456789abcdef-0-0'$" "$T/out"
check_grep "^extra in DEST: 'dst/\.fcp-fedcba9876543210-1-3'$" "$T/out"
rmdir dst/.fcp-0123456789abcdef-0-0

# --mirror: a name the source lacks goes, as any other; the source's stays.
run_fcp --mirror -T src dst
check_rc 0 "--mirror"
check_absent dst/.fcp-fedcba9876543210-1-3 "--mirror kept a name the source lacks"
check_nogrep "fcp-fedcba9876543210-1-3" "$T/err" "--mirror called a user's file a leftover"
check_eq "$(cat dst/.fcp-0123456789abcdef-2-2 2>&1)" "source's own" "--mirror: the source's file"
check_eq "$(cat .fcp-aaaaaaaaaaaaaaaa-1-1 2>&1)" "beside" "--mirror removed a file beside DEST"
touch -r src dst
run_fcp --check -T src dst
check_rc 0 "--check of an exact copy holding the source's temp-shaped name"
# A killed run's own temporary file carries its tag (the prefix's low half
# made from its high half): the same command, plain, removes it and leaves
# no .fcp-* beside its copy; the user's file of that shape stays. The copy
# runs at 4 MiB/s and is killed once its temporary file is there.
mkdir ks && head -c 40M /dev/urandom >ks/big && echo s >ks/small
mkdir kd && echo "user's" >kd/.fcp-fedcba9876543210-1-3
"$FASTCP" --bwlimit 4M -j 1 -T ks kd 2>/dev/null &
pid=$!
for ((i = 0; i < 1500; i++)); do
	tmp=$(find kd -maxdepth 1 -name '.fcp-*' ! -name '.fcp-fedcba9876543210-1-3' -print -quit)
	[ -n "$tmp" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.02
done
[ -n "$tmp" ] || { kill -KILL "$pid"; fail "the killed copy's temporary file never appeared"; }
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
check_file "$tmp" "the killed run's temporary file"
run_fcp -T ks kd
check_rc 0 "the same command after a kill"
check_absent "$tmp" "the killed run's own temporary file after the same command"
check_grep "removed '$tmp'" "$T/err"
check_eq "$(cat kd/.fcp-fedcba9876543210-1-3 2>&1)" "user's" "the user's temp-shaped file"
check cmp ks/big kd/big
check cmp ks/small kd/small
echo "temp-shaped names are never removed for their shape alone"
