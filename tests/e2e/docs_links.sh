#!/bin/bash
# The documents a person reads hold together: every relative link of the
# README, BENCHMARKS*.md and docs/ leads to a file or directory that
# exists, and no code comment cites a benchmark measurement by an ordinal
# ("the eleventh measurement") that no file is named by: it cites the page
# under docs/benchmarks/ instead, which must exist.
. "${TESTLIB:-$(dirname "$0")/../lib}/lib.sh"; t_init
cd "$top_" || fail "no $top_"
docs=$(ls README.md BENCHMARKS.md BENCHMARKS-NOTES.md 2>/dev/null; find docs -name '*.md' | sort)
[ -n "$docs" ] || fail "no documents"
bad=
for f in $docs; do
	# [text](target), without a scheme or a pure anchor
	for l in $(grep -oE '\]\([^)# ]+' "$f" | sed 's/^](//' | grep -vE '^[a-z]+:'); do
		[ -e "$(dirname "$f")/$l" ] || bad="$bad
  $f: $l"
	done
done
[ -z "$bad" ] || fail "links to nothing:$bad"
ord='(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)[[:space:]*]+(\*[[:space:]]*)?measurement'
! grep -rnEi "$ord" lib src tests/unit tests/lib scripts include 2>/dev/null ||
	fail "a comment cites a measurement by its ordinal; cite its page under docs/benchmarks/"
for p in $(grep -rhoE 'docs/benchmarks/[0-9]{4}-[0-9]{2}-[0-9]{2}-[a-z0-9-]+\.md' lib src scripts tests/unit | sort -u); do
	[ -f "$p" ] || fail "a comment cites $p, which does not exist"
done
# the long notes are a short index now
[ "$(wc -l <BENCHMARKS-NOTES.md)" -le 60 ] || fail "BENCHMARKS-NOTES.md is long again: put a measurement on a page of its own"
echo "document links: ok"
