#!/bin/bash
# The man pages render without a warning from man or groff (an unknown
# request, a table wider than the page, a broken font change) and lexgrog
# reads their NAME line, which apropos and whatis need. A missing .TP once
# rendered --retries inside --dedup's paragraph and no tool warned: the
# tagged entries checked below must each begin a line of their own.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
need_cmd man lexgrog
pages=$(cd "$top_" && ls man/*.1)
[ -n "$pages" ] || fail "no man pages under $top_/man"
for p in $pages; do
	# 80 columns, as a terminal and man's own default for a pipe
	MANWIDTH=80 man --warnings=w -l "$top_/$p" >"$T/out" 2>"$T/err"
	check_eq "$?" 0 "man -l $p exit status"
	[ ! -s "$T/err" ] || { cat "$T/err"; fail "$p renders with warnings"; }
	[ -s "$T/out" ] || fail "$p renders to nothing"
	lexgrog "$top_/$p" >"$T/lex" 2>&1 || { cat "$T/lex"; fail "lexgrog cannot read $p"; }
	check_grep "^$top_/$p: \"[a-z-]+ - .+\"\$" "$T/lex" "lexgrog's NAME line of $p"
done
# the entries, up to the table of equivalent options (whose rows look alike)
MANWIDTH=80 man -l "$top_/man/fastcp.1" 2>/dev/null | sed "/Equivalent options/q" >"$T/fastcp"
for tag in '--dedup\[=HOW\]' '--retries N' '--retry-wait SECONDS' '-x' '-v, --verbose' '-j, --threads N'; do
	grep -qE -- "^       $tag( {2,}.*)?\$" "$T/fastcp" || fail "fastcp(1): no entry of its own for '$tag'"
done
# -x's entry is about -x: what -v does is said once, in its own entry
awk '/^       -x( |$)/ { p = 1; print; next } p && /^       [^ ]/ { exit } p' "$T/fastcp" >"$T/x"
check_nogrep "(^| )-v" "$T/x" "fastcp(1)'s -x entry speaks of -v"
echo "man pages: ok"
