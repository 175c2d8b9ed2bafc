#!/bin/sh
# The tables of issue 19 (verify, check, manifest, dedup), as root: cold,
# a fresh XFS loopback filesystem for the destination of every run, the
# sources on an XFS loopback filesystem of their own.
#   verify-W-sK  fastcp against fastcp --verify (the read-back's cost), on
#                large (4 x 512 MiB at scale 1) and mixed (1.15 GB at scale 1,
#                the size of scripts/benchmarks.sh's mixed)
#   check-W-sK   fastcp --check against diff -r over an up-to-date copy
#                (prepared by cp -a, untimed), on small and mixed
#   manifest-sK  fastcp against fastcp --manifest on small
#   breakeven-T  4 x 128 MiB unique files and the dupes tree at the write
#                limits T = 30M, 100M and none: cp -a, fastcp, fastcp
#                --verify and fastcp --dedup=reflink (when built)
#   sh scripts/bench-trust.sh [RESULTS_DIR]
# Environment: ROUNDS=3, TABLES="verify check manifest breakeven",
# SCALES="1" (the scales K of the verify, check and manifest tables),
# BENCH_TRUST_DIR=/tmp/fcp-bench-trust (where the source filesystem is).
set -eu
. "$(dirname "$0")/bench-common.sh"
rounds=${ROUNDS:-3}
tables=${TABLES:-verify check manifest breakeven}
scales=${SCALES:-1}
base=${BENCH_TRUST_DIR:-/tmp/fcp-bench-trust}
mkdir -p "$out" "$base/src" "$base/work"
out=$(cd "$out" && pwd)

mounted=
cleanup() {
	[ -z "$mounted" ] || umount_image "$base/src" || true
	rm -rf "$bin"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if ! mountpoint -q "$base/src"; then
	[ -f "$base/src.img" ] || { truncate -s 16G "$base/src.img"; mkfs.xfs -q -f -m reflink=1 "$base/src.img"; }
	mount_image "$base/src.img" "$base/src" "$source_loop"
	mounted=1
fi
tree() { # KIND SCALE: made once, under another name first (never half a tree)
	d=$base/src/$1-$2
	if [ ! -d "$d" ]; then
		rm -rf "$d.tmp"
		$B gen "$1" "$d.tmp" --seed 1 --scale "$2" >/dev/null
		mv "$d.tmp" "$d"
	fi
	echo "$d"
}
rc=0
table() { # NAME SRC [compare options] -- COMMANDS...
	name=$1 src=$2
	shift 2
	$B compare --rounds "$rounds" --cold --fresh-fs xfs --work-dir "$base/work" \
		--json "$out/$name.json" "$@" >"$out/$name.md" 2>"$out/$name.err" || rc=1
	echo "$name: $(grep -c '^| [0-9]' "$out/$name.md") rows, $out/$name.md"
}
has() { case " $tables " in *" $1 "*) return 0 ;; esac; return 1; }
at_scale() { awk "BEGIN { print $1 * $2 }"; } # the gen scale of a workload at scale K
# A manifest outside the copy (the copy is compared with the source), new
# for every run.
man=$base/work/manifest.db

for k in $scales; do
	if has verify; then
		for w in "large 1" "mixed 0.1"; do
			set -- $w
			src=$(tree "$1" "$(at_scale "$2" "$k")")
			table "verify-$1-s$k" "$src" "$src" -- "$F {src} {dst}" "$F --verify {src} {dst}"
		done
	fi
	if has check; then
		for w in "small 1" "mixed 0.1"; do
			set -- $w
			src=$(tree "$1" "$(at_scale "$2" "$k")")
			table "check-$1-s$k" "$src" --prepare 'cp -a {src}/. {dst}' "$src" -- \
				"$F --check -T {src} {dst}" "diff -r {src} {dst}"
		done
	fi
	if has manifest; then
		src=$(tree small "$k")
		table "manifest-s$k" "$src" "$src" -- "$F {src} {dst}" "rm -f $man*; $F --manifest $man {src} {dst}"
	fi
done
if has breakeven; then
	dedup=
	"$F" --help | grep -q -- --dedup && dedup="$F --dedup=reflink {src} {dst}"
	for limit in 30M 100M none; do
		lim=
		[ $limit = none ] || lim="--write-limit $limit"
		for w in "large 0.25" "dupes 1"; do
			src=$(tree $w)
			# shellcheck disable=SC2086
			table "breakeven-${w%% *}-$limit" "$src" $lim "$src" -- "cp -a {src} {dst}" \
				"$F {src} {dst}" "$F --verify {src} {dst}" ${dedup:+"$dedup"}
		done
	done
fi
exit $rc
