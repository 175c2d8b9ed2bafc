#!/bin/bash
# The bash completion offers fastcp's and fastcp-bench's options as their
# --help lists them (so a new option is completed without a change here),
# the words of the options that take one, and fastcp-bench's modes and
# workload kinds; the zsh completion is valid zsh where zsh is installed.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh" || exit 1
t_init
need_fastcp
comp=$top_/completions/fastcp.bash
[ -f "$comp" ] || fail "no bash completion: $comp"

# complete WORD... : what the completion offers for the last word
complete_words() {
	PATH=$(dirname "$FASTCP"):$PATH bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_fastcp_complete "$1" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"' complete "$comp" "$@"
}

complete_words fastcp --sy >out
check_grep "^--sync$" out
check_grep "^--symlinks=$" out
# every long option of --help is offered
"$FASTCP" --help | grep -E '^ +-' | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u >want
complete_words fastcp -- | sed 's/=$//' | sort -u >got
missing=$(comm -23 want got)
[ -z "$missing" ] || fail "options of --help not completed: $missing"
complete_words fastcp --symlinks=f >out
check_eq "$(cat out)" "--symlinks=follow" "value of --symlinks="
complete_words fastcp --reflink a | sort >out
check_eq "$(cat out)" "always
auto" "value of --reflink WORD"
complete_words fastcp-bench co >out
check_eq "$(cat out)" "compare" "fastcp-bench mode"
complete_words fastcp-bench compare --source-l >out
check_eq "$(cat out)" "--source-latency" "fastcp-bench compare option"
complete_words fastcp-bench gen du >out
check_eq "$(cat out)" "dupes" "fastcp-bench gen kind"
mkdir dir && touch dir/file
(cd "$T" && complete_words fastcp dir/f) >out
check_eq "$(cat out)" "dir/file" "file names"

if command -v zsh >/dev/null; then
	zsh -n "$top_/completions/_fastcp" || fail "_fastcp is not valid zsh"
else
	note "zsh not installed: the zsh completion's syntax is not checked"
fi
echo PASS
