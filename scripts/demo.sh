#!/bin/sh
# make demo: build a sample tree (every kind of entry fastcp must keep) and
# copy it, then show that the copy is exact and how fast it went.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
work="$top/build/demo"
src="$work/sample" dst="$work/copy"
rm -rf "$work"
mkdir -p "$src/docs/deep/er" "$src/data" "$src/links"
i=0
while [ $i -lt 2000 ]; do
	d="$src/docs/$((i % 20))"
	mkdir -p "$d"
	head -c $(( (i * 7919) % 20000 + 1 )) /dev/urandom > "$d/file$i.txt"
	i=$((i + 1))
done
head -c 64000000 /dev/urandom > "$src/data/large.bin"
truncate -s 100M "$src/data/sparse.img"
printf 'data in the middle of a hole' | dd of="$src/data/sparse.img" bs=1 seek=50000000 conv=notrunc 2>/dev/null
echo "two names, one inode" > "$src/docs/deep/er/original"
ln "$src/docs/deep/er/original" "$src/links/hardlink"
ln -s ../docs/deep/er/original "$src/links/relative"
ln -s "$src/data" "$src/links/absolute-inside"
ln -s /etc/hostname "$src/links/outside"
ln -s does-not-exist "$src/links/dangling"
mkfifo "$src/links/fifo"
chmod 0750 "$src/docs/deep"; chmod 4755 "$src/data/large.bin"
setfattr -n user.origin -v demo "$src/data/large.bin" 2>/dev/null || true
setfacl -m u:nobody:r "$src/docs/deep/er/original" 2>/dev/null || true
touch -d '2001-02-03 04:05:06.123456789' "$src/docs/deep/er"

# Say which path small files take: the io_uring batches, or why not.
"$top/build/fastcp" --version --verbose | sed -n 's/^small files: /small files go through: /p'
echo "sample tree: $(find "$src" | wc -l) entries, $(du -sh --apparent-size "$src" | cut -f1) ($(du -sh "$src" | cut -f1) on disk) in $src"
echo "\$ fastcp --stats --symlinks=rewrite $src $dst"
"$top/build/fastcp" --stats --symlinks=rewrite "$src" "$dst" 2>&1
echo "checking the copy with the project's tree comparison (content, mode, owner, times, xattrs, links, holes):"
# The rewritten link is the one intended difference.
if "$top/build/tests/lib/treecmp" "$src" "$dst" > "$work/diff.txt"; then
	echo "  identical"
elif ! grep -v 'links/absolute-inside' "$work/diff.txt" | grep -q .; then
	echo "  identical, except links/absolute-inside, re-pointed into the copy by --symlinks=rewrite"
else
	echo "  DIFFERENCES:"; cat "$work/diff.txt"; exit 1
fi
echo "sparse file: $(du -k "$src/data/sparse.img" | cut -f1) KiB on disk in the source, $(du -k "$dst/data/sparse.img" | cut -f1) KiB in the copy"
echo "links/absolute-inside now points to: $(readlink "$dst/links/absolute-inside")"
