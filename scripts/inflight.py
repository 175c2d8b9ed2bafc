#!/usr/bin/python3
"""scripts/inflight.py: the queue depth the devices see while a command runs.

Usage:
  inflight.py run LOG TAG SRC DST 'COMMAND'   run COMMAND with sh -c, sampling
                                              (LOG "-": $INFLIGHT_LOG)
  inflight.py summary LOG                     one Markdown table of LOG

run: the block device under SRC (its reads) and the one under DST's parent
(its writes) are found with findmnt, and each one's /sys/block/DEV/inflight
("reads writes" in flight at that instant) is read every 2 ms for as long
as COMMAND runs; a partition's counts are its disk's. One JSON line per run
goes to LOG: the tag, the samples, and for reads on SRC and writes on DST
the share of samples with at least one request in flight ("busy") and the
median and mean of the count over those samples. COMMAND's exit status is
the wrapper's. A loop device is a disk here: its queue is what the
filesystem above it asks of it; a buffered loop's queue also holds reads
its own page cache then serves.

summary: per tag, the medians over its runs of those figures. The first run
of each tag is left out: fastcp-bench compare runs each command once untimed
before its rounds (--warmup 1, as the benchmark scripts do).

fastcp-bench compare wraps a command so (benchmarks.sh INFLIGHT=1 does it):
  "python3 scripts/inflight.py run LOG cp {src} {dst} 'cp -a {src} {dst}'"
"""
import json
import os
import statistics
import subprocess
import sys
import threading
import time

PERIOD = 0.002


def device(path):
    """The /sys/block name of the device holding path (None if not a block
    device: tmpfs, FUSE)."""
    r = subprocess.run(["findmnt", "-n", "-o", "MAJ:MIN", "-T", path],
                       capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        return None
    majmin = r.stdout.split()[0]
    link = "/sys/dev/block/" + majmin
    if not os.path.exists(link):
        return None
    real = os.path.realpath(link)
    if os.path.exists(os.path.join(real, "partition")):
        real = os.path.dirname(real)
    return os.path.basename(real)


def sample(dev, col, out, stop):
    """Append the count of column col (0 reads, 1 writes) of dev's inflight
    to out every PERIOD until stop is set."""
    if dev is None:
        return
    path = "/sys/block/%s/inflight" % dev
    with open(path) as f:
        while not stop.is_set():
            f.seek(0)
            out.append(int(f.read().split()[col]))
            time.sleep(PERIOD)


def figures(counts):
    busy = [c for c in counts if c > 0]
    return {
        "samples": len(counts),
        "busy": len(busy) / len(counts) if counts else 0.0,
        "median": statistics.median(busy) if busy else 0,
        "mean": statistics.mean(busy) if busy else 0.0,
    }


def run(log, tag, src, dst, command):
    if log == "-":
        log = os.environ["INFLIGHT_LOG"]
    src_dev = device(src)
    dst_dev = device(os.path.dirname(os.path.abspath(dst)) or "/")
    reads, writes, stop = [], [], threading.Event()
    threads = [threading.Thread(target=sample, args=(src_dev, 0, reads, stop)),
               threading.Thread(target=sample, args=(dst_dev, 1, writes, stop))]
    for t in threads:
        t.start()
    rc = subprocess.call(["sh", "-c", command])
    stop.set()
    for t in threads:
        t.join()
    rec = {"tag": tag, "rc": rc, "src_dev": src_dev, "dst_dev": dst_dev,
           "reads": figures(reads), "writes": figures(writes)}
    with open(log, "a") as f:
        f.write(json.dumps(rec) + "\n")
    return rc


def summary(log):
    runs = {}
    for line in open(log):
        rec = json.loads(line)
        runs.setdefault(rec["tag"], []).append(rec)
    print("| command | runs | reads in flight on the source: median (mean), busy "
          "| writes in flight on DEST: median (mean), busy |")
    print("|---|---|---|---|")
    for tag, recs in runs.items():
        timed = recs[1:] or recs  # the first is the warm-up

        def med(side, key):
            return statistics.median(r[side][key] for r in timed)
        cells = []
        for side in ("reads", "writes"):
            cells.append("%g (%.2f), %d%%" % (med(side, "median"), med(side, "mean"),
                                              round(100 * med(side, "busy"))))
        print("| %s | %d | %s | %s |" % (tag, len(timed), cells[0], cells[1]))
    return 0


def main():
    a = sys.argv[1:]
    if len(a) == 6 and a[0] == "run":
        return run(*a[1:])
    if len(a) == 2 and a[0] == "summary":
        return summary(a[1])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
