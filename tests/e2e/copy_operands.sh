#!/bin/bash
# Operands a shell script can get wrong: an empty SOURCE or DEST (an unset
# variable) is bad usage and touches nothing, the current directory least of
# all; two sources with the same name behave as in GNU cp, the same way every
# run (the first file wins and the second is refused; two directories are
# merged, the second's entries over the first's); the same source named twice
# is copied once with a warning; options after the operands are options.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
need_treecmp
need_cmd cp

mkdir -p src/sub
printf 'a\n' >src/a
printf 'b\n' >src/sub/b
chmod 0700 src
touch -d "$T_TIME1" src/sub src

# ---- an empty operand: exit 2, nothing touched ----
mkdir cwd cwd/inner
printf 'mine\n' >cwd/a
chmod 0751 cwd
[ "$(id -u)" = 0 ] && chown 65534:65534 cwd
touch -d "$T_TIME2" cwd/inner cwd
snap() { (cd "$1" && stat -c '%n %a %u %g %Y %s' . ./* && cat a); }
snap cwd >"$T/cwd.before"
for args in '../src ""' '../src/a ""' '"" x' '../src/a "" x' '-T ../src ""'; do
	cd cwd && eval "run_fcp $args" && cd "$T" || fail "cd"
	check_rc 2 "fastcp $args"
	check_grep "empty (source|destination) operand" "$T/err" "fastcp $args: no clear message"
	check_nogrep "busy" "$T/err"
	snap cwd >"$T/cwd.after"
	diff "$T/cwd.before" "$T/cwd.after" || fail "fastcp $args changed the current directory"
done
check_absent cwd/x
check_absent cwd/sub

# ---- two files with the same name: the first is copied, the second refused ----
mkdir -p a b
printf 'A\n' >a/f
printf 'B\n' >b/f
for round in 1 2 3 4 5; do
	rm -rf c && mkdir c
	run_fcp a/f b/f c
	check_rc 1 "a/f b/f c (round $round)"
	check_eq "$(cat c/f)" A "c/f after a/f b/f c (round $round)"
	check_grep "^fastcp: will not overwrite just-created 'c/f' with 'b/f'$" "$T/err"
	check_grep "^fastcp: 1 item failed$" "$T/err" "summary is not '1 item failed'"
	check_no_temp c
done
# What was there before is replaced by the first, as cp does.
rm -rf c && mkdir c && printf 'old\n' >c/f
run_fcp a/f b/f c
check_rc 1 "a/f b/f c onto an existing c/f"
check_eq "$(cat c/f)" A "c/f after a/f b/f c onto an existing c/f"

# ---- two directories with the same name: merged as cp merges them ----
mkdir -p d1/x/s d2/x/s
printf '1\n' >d1/x/one
printf '1\n' >d1/x/both
printf '1\n' >d1/x/s/f
printf '2\n' >d2/x/both
printf '2\n' >d2/x/two
printf '2\n' >d2/x/s/f
printf '2\n' >d2/x/s/g
# Hard links between the two: one under the same name in both, one not.
printf 'h\n' >d1/x/h && ln d1/x/h d2/x/h
printf 'k\n' >d1/x/k && ln d1/x/k d2/x/k2
chmod 0700 d1/x && chmod 0755 d2/x
touch -d "$T_TIME1" d1/x/both d1/x && touch -d "$T_TIME2" d2/x/both d2/x/s d2/x
mkdir want && cp -a d1/x d2/x want || fail "cp -a d1/x d2/x want"
for round in 1 2 3 4 5; do
	rm -rf got && mkdir got
	run_fcp d1/x d2/x got
	check_rc 0 "d1/x d2/x got (round $round)"
	check_tree want/x got/x
	check_nogrep "finished copy|left as" "$T/err"
	check_no_temp got
done

# Rounds run on new worker threads: a ring made by a thread of the first
# round must not be used by another thread in the second (io_uring's
# single-issuer rings answer EEXIST, and fastcp aborted). Enough batched
# files in both rounds that several workers take batches in each.
for d in m1 m2; do
	for i in $(seq 1 40); do
		mkdir -p $d/x/s$i
		for f in 1 2 3 4 5 6 7 8; do printf '%s\n' "$d$i$f" >$d/x/s$i/f$f; done
	done
done
mkdir mwant && cp -a m1/x m2/x mwant || fail "cp -a m1/x m2/x mwant"
for round in 1 2 3; do
	rm -rf mgot && mkdir mgot
	run_fcp -j 4 m1/x m2/x mgot
	check_rc 0 "-j 4 m1/x m2/x mgot (round $round)"
	check_tree mwant/x mgot/x
done

# A file and a directory of the same name: the second is refused.
mkdir -p q r/x
printf 'file\n' >q/x
printf 'in\n' >r/x/in
rm -rf o && mkdir o
run_fcp q/x r/x o
check_rc 1 "file then directory of the same name"
check_file o/x
check_no_temp o
rm -rf o && mkdir o
run_fcp r/x q/x o
check_rc 1 "directory then file of the same name"
check_file o/x/in
check_no_temp o

# ---- the same source named twice: copied once, with a warning ----
mkdir -p d/e same
printf 'f\n' >d/e/f
printf 'g\n' >d/g
ln -s . here
for spelling in 'd d/' 'd ./d' 'd here/d' 'd/ d' 'd d d'; do
	rm -rf o && mkdir o
	eval "run_fcp $spelling o"
	check_rc 0 "fastcp $spelling o"
	check_grep "^fastcp: warning: source directory '[^']*' specified more than once$" "$T/err"
	check_tree d o/d
	check_eq "$(ls -A o)" d "entries of o after fastcp $spelling o"
	check_no_temp o
done
printf 'x\n' >same/f
for spelling in 'same/f ./same/f' 'same/f here/same/f'; do
	rm -rf o && mkdir o
	eval "run_fcp $spelling o"
	check_rc 0 "fastcp $spelling o"
	check_grep "^fastcp: warning: source file '[^']*' specified more than once$" "$T/err"
	check_eq "$(ls -A o)" f "entries of o after fastcp $spelling o"
	check_eq "$(cat o/f)" x "o/f after fastcp $spelling o"
done
# Two names of one file in different directories are two sources, as in cp.
mkdir -p hl1 hl2
printf 'H\n' >hl1/f
ln hl1/f hl2/f
rm -rf o && mkdir o
run_fcp hl1/f hl2/f o
check_rc 1 "hl1/f hl2/f o"
check_grep "will not overwrite just-created 'o/f' with 'hl2/f'" "$T/err"
check_eq "$(cat o/f)" H "o/f after hl1/f hl2/f o"

# ---- options after the operands, and "--" ----
run_fcp src/a after -v
check_rc 0 "option after the operands"
check_file after
check_grep "^fastcp: copied " "$T/err" "-v after the operands did not print the summary"
check_absent ./-v
run_fcp src/a after2 --bogus
check_rc 2 "unknown option after the operands"
check_absent after2
run_fcp -- src/a -v
check_rc 0 "a dash operand after --"
check_file ./-v

# ---- numbers out of range ----
for n in 4294967297 -1 0 1025 1x '' ' 2' 0x10; do
	run_fcp -j "$n" src/a num
	check_rc 2 "-j '$n'"
	check_absent num
done

# ---- DEST with a trailing slash that is not a directory ----
run_fcp src/a newdir/
check_rc 1 "a file to newdir/"
check_grep "^fastcp: cannot create regular file 'newdir/': Not a directory$" "$T/err"
check_absent newdir
run_fcp -T src/a newdir/
check_rc 1 "-T a file to newdir/"
check_absent newdir
printf 'e\n' >existing
run_fcp src/a existing/
check_rc 1 "a file to existing/"
check_eq "$(cat existing)" e "existing/ was written"
run_fcp src newdir2/
check_rc 0 "a directory to newdir2/"
check_tree src newdir2

# ---- no doubled slashes in messages ----
mkdir -p o3/src
printf 'obstacle\n' >o3/src/sub
run_fcp src o3/
check_rc 1 "a directory onto a file"
check_grep "'o3/src/sub'" "$T/err" "message does not name o3/src/sub"
check_nogrep "//" "$T/err" "doubled slash in a message"
mkdir -p o4/src/sub/b
run_fcp src/ o4//
check_rc 1 "a file onto a directory"
check_grep "sub/b'" "$T/err" "message does not name sub/b"
check_nogrep "//" "$T/err" "doubled slash in a message"

check_no_temp "$T"
echo "operands handled as cp handles them"
