#!/usr/bin/python3
"""Randomized scenario tester for fastcp (issue: find the next data-loss bug).

From a seed it makes a world (source trees, a destination state, a sentinel
tree outside DEST), runs a sequence of fastcp commands with events between
them and faults during them, and after every command checks invariants with
its own code (hashlib, os.lstat), never with fastcp's comparison. A failing
scenario is shrunk and written out as a replayable spec and a shell script.

  scenario.py run SEED...            run seeds, print failures
  scenario.py soak SECONDS [SEED]    new seeds for that long, with coverage
  scenario.py replay FILE...         replay saved specs (regressions)
  scenario.py shrink SEED|FILE       shrink a failure, print its script
  scenario.py script FILE            print the shell script of a spec
  scenario.py check FROM..TO [SECS]  make check: seeds, then regressions/
  scenario.py selftest [MUTANT...]   planted defects, each caught by its invariant

FASTCP (environment) names the binary; default build/fastcp of this tree.
SCENARIO_FS=ext4|xfs|btrfs|tmpfs: the worlds on a new loop filesystem (root);
a list (ext4,xfs,... or "pairs" for all four): each world's sources on one
and DEST on another, drawn from the seed. FAULTFS names the fault
filesystem (default build/tests/lib/faultfs); fastcp-mpi is taken from
beside FASTCP.
Python 3 standard library only. See README.md beside this file.
"""
import hashlib
import re
import json
import os
import random
import shlex
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FASTCP = os.environ.get("FASTCP", os.path.join(TOP, "build", "fastcp"))
ROOT = os.geteuid() == 0
USER_ID = 65534  # the unprivileged runs: nobody
TIMEOUT = 60
FAULTFS = os.environ.get("FAULTFS", os.path.join(TOP, "build", "tests", "lib", "faultfs"))
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]
FSKINDS = ["ext4", "xfs", "btrfs", "tmpfs"]  # SCENARIO_FS=ext4,xfs: the pairs drawn from these


def have_faultfs():
    """The FUSE fault filesystem (tests/lib/faultfs.c): as root, with /dev/fuse."""
    return ROOT and os.path.exists("/dev/fuse") and os.access(FAULTFS, os.X_OK)


def fastcp_mpi():
    """fastcp-mpi beside the fastcp under test, if it was built and mpirun is here."""
    p = os.path.join(os.path.dirname(FASTCP), "fastcp-mpi")
    ok = os.access(p, os.X_OK) and any(os.access(os.path.join(d, "mpirun"), os.X_OK)
                                       for d in os.environ.get("PATH", "/usr/bin").split(":"))
    return p if ok else None


def fastcp_bin():
    """The program under test (selftest swaps in misbehaving wrappers)."""
    return FASTCP
EMPTY = hashlib.sha256(b"").hexdigest()


# ---------------------------------------------------------------- contents
def content(tok, size):
    """The bytes of a generated file: its token and a newline, repeated.

    The shell script makes the same bytes with `yes TOK | head -c SIZE`."""
    unit = (tok + "\n").encode()
    return (unit * (size // len(unit) + 1))[:size]


def shq(s):
    """Quote a path or word for bash, bytes that are not UTF-8 included."""
    b = os.fsencode(s) if isinstance(s, str) else s
    if b and all(32 < c < 127 and chr(c) not in "'\\\"$`!*?[]{}()<>|&;#~ " for c in b):
        return b.decode()
    if all(32 <= c < 127 and c != 39 for c in b):
        return "'" + b.decode() + "'"
    return "$'" + "".join(chr(c) if 32 <= c < 127 and chr(c) not in "'\\" else "\\x%02x" % c
                          for c in b) + "'"


# ---------------------------------------------------------------- worlds
NAMES = ["a", "b", "photo.jpg", "IMG_0001.JPG", "notes.txt", "x.tmp", "with space",
         "new\nline", os.fsdecode(b"bad\xff\xfeutf8"), "-dash", "cache", "deep"]


def old_tag(x):
    """The tag earlier versions put in the low half of a temporary name's
    prefix, of its high half alone: a user's copy of a leftover kept it,
    and was taken for fastcp's own in any directory."""
    x ^= 0x66637074
    x ^= x >> 16
    x = (x * 0x85ebca6b) & 0xffffffff
    x ^= x >> 13
    x = (x * 0xc2b2ae35) & 0xffffffff
    return x ^ (x >> 16)


# A user's names of fastcp's temporary shape: copies of a killed run's
# leftovers made elsewhere (cp -a), with the tag of where they were made
# (the old tag here: it says nothing of the directories of this world).
USER_TEMP = ".fcp-5ca1ab1e"
USER_TEMP_NAME = "%s%08x-0-" % (USER_TEMP, old_tag(0x5ca1ab1e))


def gen_world(rng):
    """A world: ops that build s1/NAME (and maybe s2/NAME), d/ and sent/."""
    w = {"name": rng.choice(["data", "DCIM", "photos"]), "ops": [],
         "user": ROOT and rng.random() < 0.15,
         "dest_tmpfs": ROOT and rng.random() < 0.2}
    w["mounts"] = ROOT and not w["user"] and rng.random() < 0.3
    ops = w["ops"]
    n = w["name"]
    tokc = [0]
    mt0 = 1600000000 * 10**9 + rng.randrange(10**9)

    def tok(length=6):
        tokc[0] += 1
        return ("t%d" % tokc[0]).ljust(length, "x")[:max(length, len("t%d" % tokc[0]))]

    # The sentinel: never written by any command.
    ops.append({"op": "dir", "p": "sent", "m": 0o755, "keep": True})
    ops.append({"op": "file", "p": "sent/keep", "tok": "sentinel", "sz": 5000, "mt": mt0, "m": 0o644})
    ops.append({"op": "dir", "p": "sent/vol", "m": 0o755})
    for i in range(3):
        ops.append({"op": "file", "p": "sent/vol/v%d" % i, "tok": "vol%d" % i, "sz": 100 + i,
                    "mt": mt0, "m": 0o644})
    ops.append({"op": "dir", "p": "s1", "m": 0o755, "keep": True})
    ops.append({"op": "dir", "p": "d", "m": 0o755, "keep": True})

    def tree(base, depth, files):
        """A random tree under base; returns the relative file paths made."""
        dirs = [""]
        ops.append({"op": "dir", "p": base, "m": 0o755})
        for i in range(rng.randint(0, 3) if depth else 0):
            dn = rng.choice(["sub", "deep", "cache", "DCIM", "2024"]) + str(i)
            if rng.random() < 0.15:
                dn = "cache"
            ops.append({"op": "dir", "p": base + "/" + dn, "m": rng.choice([0o755, 0o700, 0o750])})
            dirs.append(dn)
        made = []
        for i in range(files):
            d = rng.choice(dirs)
            nm = rng.choice(NAMES) + ("" if rng.random() < 0.5 else str(i))
            rel = (d + "/" + nm) if d else nm
            if rel in made or nm == "cache" or rel.split("/")[0] in dirs:
                continue
            r = rng.random()
            if r < 0.04:
                sz = rng.choice([1, 2, 3]) * 1024 * 1024 + rng.randrange(4096)
            elif r < 0.1:
                sz = 0
            elif r < 0.4:
                sz = rng.randrange(1, 200 * 1024)
            else:
                sz = rng.randrange(1, 3000)
            ops.append({"op": "file", "p": base + "/" + rel, "tok": tok(), "sz": sz,
                        "mt": mt0 + rng.randrange(10**12), "m": rng.choice([0o644, 0o600, 0o755])})
            made.append(rel)
        return dirs, made

    dirs, files = tree("s1/" + n, 1, rng.randint(2, 14))
    src = "s1/" + n
    # Shapes inside the source.
    if files and rng.random() < 0.4:  # hard links across directories
        f = rng.choice(files)
        d = rng.choice(dirs)
        ln = (d + "/" if d else "") + "hl" + str(rng.randrange(9))
        if ln not in files:
            ops.append({"op": "hlink", "p": src + "/" + ln, "to": src + "/" + f})
            files.append(ln)
    if rng.random() < 0.4:
        w["sparse"] = True
        ops.append({"op": "sparse", "p": src + "/sparse.img", "tok": tok(),
                    "sz": rng.choice([8, 20]) * 1024 * 1024, "at": [0, 5 * 1024 * 1024],
                    "mt": mt0, "m": 0o644})
        files.append("sparse.img")
    if rng.random() < 0.5:  # symlinks: into, out of the tree, at each other
        if files:
            ops.append({"op": "sym", "p": src + "/in.lnk", "tg": files[0].split("/")[-1]
                        if "/" not in files[0] else files[0]})
        ops.append({"op": "sym", "p": src + "/out.lnk", "tg": "../../sent/keep"})
        ops.append({"op": "sym", "p": src + "/dangling.lnk", "tg": "nowhere"})
        if rng.random() < 0.3:
            ops.append({"op": "sym", "p": src + "/loop1", "tg": "loop2"})
            ops.append({"op": "sym", "p": src + "/loop2", "tg": "loop1"})
    if rng.random() < 0.2:
        ops.append({"op": "fifo", "p": src + "/fifo", "m": 0o644})

    if files and rng.random() < 0.4:
        ops.append({"op": "xattr", "p": src + "/" + rng.choice(files), "n": "user.tag",
                    "v": rng.choice(["red", "blue", ""])})
    if files and ROOT and rng.random() < 0.35:
        ops.append({"op": "acl", "p": src + "/" + rng.choice(files), "v": "u:65534:rw"})
    # Two sources of the same name.
    if rng.random() < 0.25:
        ops.append({"op": "dir", "p": "s2", "m": 0o755, "keep": True})
        d2, f2 = tree("s2/" + n, 1, rng.randint(1, 6))
        w["two"] = True
    # Destination: fresh, or an older copy.
    if rng.random() < 0.55:
        old = "d/" + n
        ops.append({"op": "dir", "p": old, "m": 0o755})
        for dn in dirs[1:]:
            ops.append({"op": "dir", "p": old + "/" + dn, "m": 0o755})
        srcfiles = {o["p"][len(src) + 1:]: o for o in ops if o["op"] == "file" and o["p"].startswith(src + "/")}
        for rel, o in srcfiles.items():
            r = rng.random()
            if r < 0.3:  # the same
                ops.append(dict(o, p=old + "/" + rel))
            elif r < 0.5 and o["sz"] > 0:  # same size and mtime, other content
                ops.append(dict(o, p=old + "/" + rel, tok=tok(len(o["tok"]))))
            elif r < 0.7:  # an older version
                ops.append(dict(o, p=old + "/" + rel, tok=tok(), sz=max(0, o["sz"] - 7),
                                mt=o["mt"] - 10**9))
            elif r < 0.75:  # a newer one
                ops.append(dict(o, p=old + "/" + rel, tok=tok(), mt=o["mt"] + 10**9))
        for i in range(rng.randint(0, 3)):  # extras
            ops.append({"op": "file", "p": old + "/extra%d%s" % (i, rng.choice(["", ".tmp"])),
                        "tok": tok(), "sz": rng.randrange(0, 5000), "mt": mt0, "m": 0o644})
        if rng.random() < 0.3:
            ops.append({"op": "dir", "p": old + "/olddir", "m": 0o755})
            ops.append({"op": "file", "p": old + "/olddir/gone", "tok": tok(), "sz": 10,
                        "mt": mt0, "m": 0o644})
        if any(o["op"] == "sym" and o["p"] == src + "/in.lnk" for o in ops) and rng.random() < 0.5:
            # A regular file where the source has a symlink.
            ops.append({"op": "file", "p": old + "/in.lnk", "tok": tok(), "sz": 33, "mt": mt0,
                        "m": 0o644})
        if w["mounts"]:
            ops.append({"op": "dir", "p": old + "/vol", "m": 0o755})
            ops.append({"op": "bind", "p": old + "/vol", "from": "sent/vol"})
            if rng.random() < 0.5:
                ops.append({"op": "dir", "p": old + "/scratch", "m": 0o755})
                ops.append({"op": "tmpfs", "p": old + "/scratch"})
                ops.append({"op": "file", "p": old + "/scratch/t", "tok": tok(), "sz": 50,
                            "mt": mt0, "m": 0o644})
        w["older"] = True
    # A file operand that is a symlink to the file it would replace.
    if rng.random() < 0.08:
        ops.append({"op": "file", "p": "d/foo", "tok": tok(), "sz": 77, "mt": mt0, "m": 0o644})
        ops.append({"op": "sym", "p": "s1/foo", "tg": "../d/foo"})
        w["selflink"] = True
    return w


def build_world(W, w, log, ddir=None):
    """Make the world under W; log gets the same as shell lines."""
    def P(p):
        return os.path.join(W, p)
    if ddir and not w.get("dest_tmpfs"):  # DEST on another loop filesystem
        os.makedirs(P("d"), exist_ok=True)
        subprocess.run(["mount", "--bind", ddir, P("d")], check=True)
        log.append("mkdir -p d && mount --bind DIR-ON-%s d  # a directory on another filesystem"
                   % w["fs"][1].upper())
    if w.get("dest_tmpfs"):
        os.makedirs(P("d"), exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512m", "tmpfs", P("d")], check=True)
        log.append("mkdir -p d && mount -t tmpfs -o size=512m tmpfs d")
    for o in w["ops"]:
        p = P(o["p"])
        if not os.path.isdir(os.path.dirname(p)) and o["op"] not in ("xattr", "acl"):
            continue  # its directory was shrunk away
        op = o["op"]
        q = shq(o["p"])
        try:
            if op == "dir":
                os.makedirs(p, exist_ok=True)
                os.chmod(p, o["m"])
                log.append("mkdir -p %s && chmod %o %s" % (q, o["m"], q))
            elif op == "file":
                with open(p, "wb") as f:
                    f.write(content(o["tok"], o["sz"]))
                os.chmod(p, o["m"])
                os.utime(p, ns=(o["mt"], o["mt"]))
                log.append("yes %s | head -c %d >%s; chmod %o %s; touch -d @%d.%09d %s" % (
                    o["tok"], o["sz"], q, o["m"], q, o["mt"] // 10**9, o["mt"] % 10**9, q))
            elif op == "sparse":
                with open(p, "wb") as f:
                    f.truncate(o["sz"])
                    for at in o["at"]:
                        f.seek(at)
                        f.write(content(o["tok"], 65536))
                os.chmod(p, o["m"])
                os.utime(p, ns=(o["mt"], o["mt"]))
                log.append("truncate -s %d %s" % (o["sz"], q))
                for at in o["at"]:
                    log.append("yes %s | head -c 65536 | dd of=%s bs=65536 seek=%d conv=notrunc status=none"
                               % (o["tok"], q, at // 65536))
                log.append("touch -d @%d.%09d %s" % (o["mt"] // 10**9, o["mt"] % 10**9, q))
            elif op == "hlink":
                if not os.path.exists(P(o["to"])):
                    continue
                os.link(P(o["to"]), p)
                log.append("ln %s %s" % (shq(o["to"]), q))
            elif op == "sym":
                # "@W@/x": an absolute link, to x in this world
                os.symlink(o["tg"].replace("@W@", W, 1) if o["tg"].startswith("@W@/") else o["tg"], p)
                log.append("ln -s %s %s" % ('"$PWD"/' + shq(o["tg"][4:]) if o["tg"].startswith("@W@/")
                                            else shq(o["tg"]), q))
            elif op == "fifo":
                os.mkfifo(p, o["m"])
                log.append("mkfifo -m %o %s" % (o["m"], q))
            elif op == "xattr":
                if not os.path.lexists(p) or os.path.islink(p):
                    continue
                mt = os.lstat(p).st_mtime_ns
                os.setxattr(p, o["n"], o["v"].encode(), follow_symlinks=False)
                log.append("setfattr -n %s -v %s %s" % (o["n"], shq(o["v"] or '""'), q))
            elif op == "acl":
                if not os.path.isfile(p) or os.path.islink(p):
                    continue
                subprocess.run(["setfacl", "-m", o["v"], p], check=True)
                log.append("setfacl -m %s %s" % (o["v"], q))
            elif op == "bind":
                subprocess.run(["mount", "--bind", P(o["from"]), p], check=True)
                log.append("mount --bind %s %s" % (shq(o["from"]), q))
            elif op == "tmpfs":
                subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", p], check=True)
                log.append("mount -t tmpfs -o size=16m tmpfs %s" % q)
        except FileExistsError:
            continue
    if w.get("user"):
        for dp, dns, fns in os.walk(W):
            # (A symlink to a directory is in dns, never walked into.)
            for x in [dp] + [os.path.join(dp, f) for f in fns + dns
                             if f in fns or os.path.islink(os.path.join(dp, f))]:
                os.lchown(x, USER_ID, USER_ID)
        log.append("chown -hR %d:%d ." % (USER_ID, USER_ID))


# ---------------------------------------------------------------- snapshots
BIG = 1 << 26


def big_hash(p, size):
    """The content of a file of 64 MiB and more, read only where it has data:
    its size and each non-zero 64 KiB block with its offset. Where the holes
    are does not change it (a copy that filled them has the same content)."""
    h = hashlib.sha256(b"big %d" % size)
    try:
        fd = os.open(p, os.O_RDONLY)
    except OSError:
        return "?"
    try:
        off, seen = 0, set()
        while off < size:
            try:
                off = os.lseek(fd, off, os.SEEK_DATA)
            except OSError:
                break
            end = os.lseek(fd, off, os.SEEK_HOLE)
            for b in range(off >> 16, ((end - 1) >> 16) + 1):
                if b not in seen:
                    seen.add(b)
                    data = os.pread(fd, 65536, b << 16)
                    if data.strip(b"\0"):
                        h.update(b"%d:" % b + data)
            off = end
    finally:
        os.close(fd)
    return h.hexdigest()


def entry(p, st):
    e = {"t": "o", "m": stat.S_IMODE(st.st_mode), "mt": st.st_mtime_ns, "sz": st.st_size,
         "ino": (st.st_dev, st.st_ino), "nl": st.st_nlink, "blk": st.st_blocks,
         "uid": st.st_uid, "gid": st.st_gid}
    if stat.S_ISREG(st.st_mode) and st.st_size >= BIG:
        e["t"] = "f"
        e["h"] = big_hash(p, st.st_size)
    elif stat.S_ISREG(st.st_mode):
        e["t"] = "f"
        h = hashlib.sha256()
        try:
            with open(p, "rb") as f:
                for b in iter(lambda: f.read(1 << 20), b""):
                    h.update(b)
            e["h"] = h.hexdigest()
        except OSError:
            e["h"] = "?"
    elif stat.S_ISDIR(st.st_mode):
        e["t"] = "d"
    elif stat.S_ISLNK(st.st_mode):
        e["t"] = "l"
        e["tg"] = os.readlink(p)
    elif stat.S_ISFIFO(st.st_mode):
        e["t"] = "p"
    x = {}
    if e["t"] != "l":
        try:
            for n in os.listxattr(p, follow_symlinks=False):
                if n.startswith("trusted.SGI_ACL"):
                    continue
                x[n] = os.getxattr(p, n, follow_symlinks=False).hex()
        except OSError:
            pass
    e["x"] = x
    return e


def snap(root):
    """Every entry below root (root itself as ''), symlinks not followed."""
    out = {}

    def walk(p, rel):
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            return
        out[rel] = entry(p, st)
        if stat.S_ISDIR(st.st_mode):
            try:
                names = sorted(os.listdir(p))
            except OSError:
                names = []
            for nm in names:
                walk(os.path.join(p, nm), rel + "/" + nm if rel else nm)
    walk(root, "")
    return out


def snap_follow(root):
    """The tree as -L sees it: None where a link dangles, loops or cycles."""
    out = {}

    def walk(p, rel, seen):
        try:
            st = os.stat(p)
        except OSError:
            return False
        if stat.S_ISDIR(st.st_mode):
            if (st.st_dev, st.st_ino) in seen:
                return False
            seen = seen | {(st.st_dev, st.st_ino)}
        e = entry(p, st) if not os.path.islink(p) else entry(os.path.realpath(p), st)
        out[rel] = e
        if e["t"] == "d":
            for nm in sorted(os.listdir(p)):
                if not walk(os.path.join(p, nm), rel + "/" + nm if rel else nm, seen):
                    return False
        return True
    return out if walk(root, "", frozenset()) else None


def under(rel, top):
    return top == "" or rel == top or rel.startswith(top + "/")


def join(a, b):
    return b if a == "" else a if b == "" else a + "/" + b


class JobFiles:
    """The files a job writes (its manifest): never the copy's business."""

    def __contains__(self, rel):
        return rel.split("/")[-1] in ("m.db", "m.db-wal", "m.db-shm", "m.db-journal")


def fastcp_temp(name):
    """A name fastcp's own run may have made (a hidden copy, a temporary
    file): not a user's name of that shape (USER_TEMP)."""
    return name.startswith(".fcp-") and not name.startswith(USER_TEMP)


def hidden(rel):
    return any(fastcp_temp(c) for c in rel.split("/"))


# ---------------------------------------------------------------- commands
MODES = ["copy", "sync", "checksum", "mirror", "delete", "move", "n", "u", "b", "l", "s",
         "attrs", "L", "H", "dedup", "check", "checkman", "parents", "dedup_hl", "i"]
FLAG = {"copy": [], "sync": ["--sync"], "checksum": ["--checksum"], "mirror": ["--mirror"],
        "delete": ["--delete"], "move": ["--move"], "n": ["-n"], "u": ["-u"], "b": ["-b"],
        "l": ["-l"], "s": ["-s"], "attrs": ["--attributes-only"], "L": ["-L"], "H": ["-H"],
        "dedup": ["--dedup"], "check": ["--check"], "checkman": ["--check"],
        "parents": ["--parents"], "dedup_hl": ["--dedup=hardlink"], "i": ["-i"]}
# Faults during a command: SIGKILL/SIGINT after a delay ("ms") or once the
# copy reads a file at an offset ("at": faultfs holds that read), or faultfs
# between fastcp and a source ("eio" at a range, "short" reads) or DEST
# ("enospc", "norename": RENAME_NOREPLACE/EXCHANGE refused), or a DEST tmpfs
# shrunk to what it holds ("full").
FSFAULTS = ["eio", "short", "enospc", "norename", "full"]
EVENTS = ["src_add", "src_modify", "src_same_mtime", "src_delete", "dst_flip", "dst_fill_holes",
          "unreadable"]


def gen_command(rng, w, prev):
    """One command as a dict; argv() spells it."""
    if prev and rng.random() < 0.35:  # the same command again: convergence
        c = dict(prev)
        c["fault"] = None
        return c
    mode = rng.choice(MODES)
    if mode == "checkman" and not w.get("manifested") and rng.random() < 0.8:
        mode = "sync"
    if w.get("selflink") and rng.random() < 0.5:
        return {"mode": rng.choice(["l", "attrs"]), "srcs": ["s1/foo"], "dest": "d/foo",
                "T": False, "mods": [], "fault": None}
    srcs = ["s1/" + w["name"]]
    if w.get("two") and rng.random() < 0.6:
        srcs.append("s2/" + w["name"])
    elif w.get("two") and rng.random() < 0.3:
        srcs = ["s2/" + w["name"]]  # the other source alone
    place = rng.choice(["into", "into", "T", "new"]) if len(srcs) == 1 else "into"
    dest = {"into": "d/", "T": "d/" + w["name"], "new": "d/new"}[place]
    c = {"mode": mode, "srcs": srcs, "dest": dest, "T": place == "T", "mods": [], "fault": None}
    if mode == "s":
        c["srcs"] = ["@W@/" + s for s in srcs]
    if mode == "check":
        c["srcs"] = srcs[:1]
        if place == "new":
            c["dest"] = "d/"
    if mode == "parents":  # DEST must be a directory; SOURCE's path goes under it
        c["dest"], c["T"] = "d/", False
    if mode == "i":  # one answer to every question: the model need not know their order
        c["answer"] = rng.choice(["y", "n", ""])
    if mode == "checkman":
        c["dest"] = w.get("man_dest", "d")
        c["srcs"] = []
        c["T"] = False
        return c
    if mode in ("copy", "sync", "checksum", "mirror", "move") and rng.random() < 0.3:
        c["mods"].append("--verify")
    if rng.random() < 0.2:
        c["mods"] += ["-j", "1"]
    if mode in ("mirror", "delete", "copy", "sync") and rng.random() < 0.35:
        c["excl"] = rng.sample(["*.tmp", "cache/"], rng.randint(1, 2))
    if mode in ("mirror", "delete") and rng.random() < 0.3:
        c["maxdel"] = rng.randint(0, 3)
    if mode in ("copy", "sync", "checksum", "mirror") and rng.random() < 0.35:
        c["man"] = "m.db" if rng.random() < 0.5 or not c["T"] else join(dest, "m.db")
        if c["man"] == "m.db":
            w["manifested"] = True
            w["man_dest"] = dest.rstrip("/")
    if mode == "move" and rng.random() < 0.25:
        c["mods"].append(rng.choice(["-b", "-n", "-u", "--attributes-only", "--checksum",
                                     "--mirror", "--delete"]))
    if mode in ("copy", "sync", "mirror", "move", "checksum") and rng.random() < 0.3:
        r, k = rng.random(), rng.randrange(1 << 30)
        if r < 0.35:
            c["fault"] = {"sig": rng.choice(["KILL", "INT"]), "ms": rng.choice([0, 1, 2, 3, 5, 8, 12, 20, 40])}
        elif r < 0.6:
            c["fault"] = {"sig": rng.choice(["KILL", "INT"]), "at": k}
        else:
            c["fault"] = {"fs": rng.choice(FSFAULTS), "k": k}
    elif mode in ("copy", "sync", "mirror") and not w["user"] and rng.random() < 0.12:
        c["mpi"] = rng.choice([2, 3])  # fastcp-mpi on 2-3 ranks, same semantics
        if rng.random() < 0.4:
            # A rank killed (mpirun ends the others), or Ctrl-C or a
            # SIGTERM to mpirun (passed to every rank), some time after
            # the ranks have started.
            c["fault"] = {"sig": rng.choice(["KILL", "INT", "TERM"]), "ms": rng.choice([0, 20, 60, 150, 400]),
                          "mpi": True}
    return c


def argv(c, W, via=None):
    """The command line; via maps an operand to its faultfs view."""
    a = [fastcp_bin()] + FLAG[c["mode"]] + c["mods"]
    if c.get("mpi") and fastcp_mpi():
        a = MPIRUN + ["-np", str(c["mpi"]), fastcp_mpi()] + a[1:]
    for x in c.get("excl", []):
        a += ["--exclude", x]
    if "maxdel" in c:
        a += ["--max-delete", str(c["maxdel"])]
    if c.get("man"):
        a += ["--manifest", c["man"]]
    if c["mode"] == "checkman":
        a += ["--manifest", "m.db"]
    if c["T"]:
        a.append("-T")
    a += [s.replace("@W@", W) for s in c["srcs"]] + [c["dest"]]
    return [via(x) for x in a] if via else a


def recipe(rng, w):
    """Now and then a sequence that is known to matter, to begin with."""
    n = w["name"]
    cp = lambda mode, srcs, **kw: dict({"mode": mode, "srcs": srcs, "dest": "d/", "T": False,
                                        "mods": [], "fault": None}, **kw)
    r = rng.random()

    def bulk():  # enough files that a kill lands in the middle of the copy
        w["ops"].append({"op": "dir", "p": "s1/%s/bulk" % n, "m": 0o755})
        for i in range(rng.randint(30, 80)):
            w["ops"].append({"op": "file", "p": "s1/%s/bulk/f%d" % (n, i), "tok": "bulk%d" % i,
                             "sz": 20000, "mt": 1600000000 * 10**9 + i, "m": 0o644})
    if r < 0.10 and w.get("two"):
        bulk()  # a killed copy, then another source of the name
        return [{"ev": [], "cmd": cp("copy", ["s1/" + n], fault={"sig": "KILL", "ms": rng.choice([2, 4, 8, 12])},
                                     again=False)},
                {"ev": [], "cmd": cp(rng.choice(["sync", "copy"]), ["s2/" + n])}]
    if r < 0.15 and w.get("dest_tmpfs"):  # a move across filesystems, killed
        bulk()
        return [{"ev": [], "cmd": cp("move", ["s1/" + n], dest=rng.choice(["d/", "d/" + n]),
                                     fault={"sig": rng.choice(["KILL", "INT"]), "ms": rng.choice([1, 2, 4, 8, 16])})}]
    if r < 0.20:  # bit rot after a copy that kept a manifest
        w["manifested"], w["man_dest"] = True, "d"
        return [{"ev": [], "cmd": cp(rng.choice(["copy", "sync", "checksum"]), ["s1/" + n], man="m.db",
                                     mods=rng.choice([[], ["--verify"]]))},
                {"ev": [{"e": "dst_flip", "k": rng.randrange(1 << 30)}],
                 "cmd": cp("checkman", [], dest="d")}]
    if r < 0.25 and w.get("sparse"):  # holes filled behind the copy's back
        return [{"ev": [], "cmd": cp("copy", ["s1/" + n])},
                {"ev": [{"e": "dst_fill_holes", "k": rng.randrange(1 << 30)}], "cmd": cp("check", ["s1/" + n])}]
    if 0.30 <= r < 0.33 and ROOT:  # a sparse file of 1 GiB and more, killed mid-copy, resumed
        w["ops"].append({"op": "sparse", "p": "s1/%s/big.img" % n, "tok": "big", "sz": (1 << 30) + 12345,
                         "at": [0, 600 << 20], "mt": 1600000000 * 10**9, "m": 0o644})
        return [{"ev": [], "cmd": cp("sync", ["s1/" + n], mods=["--resume"], fault={
            "sig": rng.choice(["KILL", "INT"]), "at": 0, "match": "big.img", "off": 600 << 20})}]
    if r < 0.30:  # a copy checked at once (XFS ACLs, anything the check reads wrongly)
        return [{"ev": [], "cmd": cp(rng.choice(["copy", "sync", "mirror"]), ["s1/" + n])},
                {"ev": [], "cmd": cp("check", ["s1/" + n])}]
    return []


def user_temps(ru, w):
    """Now and then, a user's copies of a killed run's leftovers: a file
    and a directory in the source, a file only in an older copy. Drawn
    from a generator of their own (the rest of a seed is what it was)."""
    if ru.random() >= 0.12:
        return
    ops, src = w["ops"], "s1/" + w["name"]
    dirs = [o["p"] for o in ops if o["op"] == "dir" and o["p"].startswith(src) and
            o["p"].count("/") <= 3]
    mt = min(o["mt"] for o in ops if o["op"] == "file")
    ops.append({"op": "file", "p": ru.choice(dirs) + "/" + USER_TEMP_NAME + "1",
                "tok": "usertemp1", "sz": ru.randrange(1, 3000), "mt": mt, "m": 0o644})
    if ru.random() < 0.5:
        ops.append({"op": "dir", "p": src + "/" + USER_TEMP_NAME + "2", "m": 0o755})
        ops.append({"op": "file", "p": src + "/" + USER_TEMP_NAME + "2/in", "tok": "usertemp2",
                    "sz": 10, "mt": mt, "m": 0o644})
    if w.get("older") and ru.random() < 0.5:
        ops.append({"op": "file", "p": "d/%s/%s3" % (w["name"], USER_TEMP_NAME), "tok": "usertemp3",
                    "sz": 20, "mt": mt, "m": 0o644})


def gen_scenario(seed):
    rng = random.Random(seed)
    w = gen_world(rng)
    # --symlinks=rewrite and the absolute links it re-points: drawn from a
    # generator of their own, so that the rest of a seed is what it was.
    rx = random.Random(seed * 7919 + 17)
    src = "s1/" + w["name"] + "/"
    inside = [o["p"] for o in w["ops"] if o["op"] == "file" and o["p"].startswith(src)]
    if inside and rx.random() < 0.35:
        w["ops"].append({"op": "sym", "p": src + "abs.lnk", "tg": "@W@/" + rx.choice(inside)})
        if rx.random() < 0.3:
            w["ops"].append({"op": "sym", "p": src + "abs_root.lnk", "tg": "@W@/" + src.rstrip("/")})
    user_temps(random.Random(seed * 104729 + 5), w)
    steps = recipe(rng, w)
    prev = None
    for i in range(rng.randint(1, 6) - len(steps)):
        ev = []
        if i and rng.random() < 0.5:
            for _ in range(rng.randint(1, 2)):
                e = rng.choice(EVENTS)
                if e == "unreadable" and ROOT and not w["user"]:
                    continue
                ev.append({"e": e, "k": rng.randrange(1 << 30)})
        c = gen_command(rng, w, prev)
        again = prev is not None and c["mods"] is prev["mods"]  # the same command again
        if not again and c["mode"] in ("copy", "sync", "mirror", "delete", "checksum", "check") \
                and rx.random() < 0.25:
            c["mods"] = c["mods"] + [REWRITE]
        # The same command first with --dry-run: it changes nothing, and
        # its list names what the run then changes.
        if not again and c["fault"] is None and not c.get("mpi") and not c.get("man") \
                and c["mode"] in DRY_MODES and rx.random() < 0.2:  # (a manifest: no dry run, exit 2)
            c["dry"] = True
        prev = c
        # Checks meet what they exist to find: rot, filled holes, a change
        # that kept size and mtime.
        if c["mode"] in ("check", "checkman") and rng.random() < 0.6:
            ev.append({"e": rng.choice(["dst_flip", "dst_fill_holes", "src_same_mtime"]
                                       if c["mode"] == "check" else ["dst_flip"]),
                       "k": rng.randrange(1 << 30)})
        steps.append({"ev": ev, "cmd": c})
    # The filesystems of the sources and of DEST, where the soak has them
    # (SCENARIO_FS=ext4,xfs,...): drawn last, so the rest of a seed is the
    # same with them or without.
    w["fs"] = [rng.choice(FSKINDS), rng.choice(FSKINDS)]
    return {"seed": seed, "world": w, "steps": steps}


# ---------------------------------------------------------------- events
def regular_files(root):
    s = snap(root)
    return [r for r, e in sorted(s.items()) if e["t"] == "f" and not hidden(r)
            and "vol" not in r.split("/") and "scratch" not in r.split("/")], s


def do_event(W, w, ev, log):
    """Apply one event; returns a note, or None when it found nothing to do."""
    e, k = ev["e"], ev["k"]
    src = os.path.join(W, "s1", w["name"])
    if e.startswith("src_") or e == "unreadable":
        if not os.path.isdir(src) or os.path.islink(src):
            return None
        files, s = regular_files(src)
        if e == "src_add":
            rel = "added%d" % (k % 1000)
            p = os.path.join(src, rel)
            data = content("add%d" % k, k % 5000)
            with open(p, "wb") as f:
                f.write(data)
            if w.get("user"):
                os.chown(p, USER_ID, USER_ID)
            log.append("yes add%d | head -c %d >%s" % (k, k % 5000, shq("s1/%s/%s" % (w["name"], rel))))
            return "src_add"
        if not files:
            return None
        rel = files[k % len(files)]
        p = os.path.join(src, rel)
        q = shq("s1/%s/%s" % (w["name"], rel))
        if e == "src_delete":
            os.unlink(p)
            log.append("rm %s" % q)
        elif e == "src_modify":
            with open(p, "ab") as f:
                f.write(b"more\n")
            log.append("echo more >>%s" % q)
        elif e == "src_same_mtime":
            if s[rel]["sz"] == 0:
                return None
            flip(p, k % s[rel]["sz"], log, q)
        elif e == "unreadable":
            os.chmod(p, 0)
            log.append("chmod 000 %s" % q)
        return e
    if e in ("dst_flip", "dst_fill_holes"):
        files, s = regular_files(os.path.join(W, "d"))
        files = [r for r in files if s[r]["sz"] > 0 and not r.startswith("m.db")]
        if e == "dst_fill_holes":
            files = [r for r in files if s[r]["blk"] * 512 < s[r]["sz"] < BIG]  # 1 GiB would fill DEST
        if not files:
            return None
        rel = files[k % len(files)]
        p = os.path.join(W, "d", rel)
        q = shq("d/" + rel)
        if e == "dst_flip":
            flip(p, k % s[rel]["sz"], log, q)
        else:
            st = os.lstat(p)
            with open(p, "rb") as f:
                data = f.read()
            with open(p, "r+b") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
            log.append("t=$(stat -c %%y %s); cp --sparse=never %s /tmp/fill.$$ && dd if=/tmp/fill.$$ of=%s "
                       "conv=notrunc status=none; rm /tmp/fill.$$; touch -d \"$t\" %s" % (q, q, q, q))
        return e
    return None


def flip(p, off, log, q):
    """Flip one byte, keeping size and mtime (what the quick check sees)."""
    st = os.lstat(p)
    with open(p, "r+b") as f:
        f.seek(off)
        b = f.read(1)
        f.seek(off)
        f.write(bytes([b[0] ^ 0x20]))
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    log.append("t=$(stat -c %%y %s); printf '\\x%02x' | dd of=%s bs=1 seek=%d conv=notrunc status=none; "
               "touch -d \"$t\" %s" % (q, b[0] ^ 0x20, q, off, q))


# ---------------------------------------------------------------- the model
class Abandoned(Exception):
    """The scenario cannot go on for a reason outside fastcp (counted and
    shown in the soak's summary, never a pass of what it did not check)."""


class Unknown(Exception):
    """The model does not cover this case: only the safety invariants apply."""


def excluded(rel, e, excl):
    base = rel.split("/")[-1]
    for x in excl:
        if x == "*.tmp" and base.endswith(".tmp"):
            return True
        if x == "cache/" and base == "cache" and e["t"] == "d":
            return True
    return False


def dest_marks(W):
    """DEST's directories that fastcp marked as a copy not finished
    (user.fastcp.move: stopped, or named with failed items): rel -> value."""
    marks = {}
    for dp, dns, _ in os.walk(os.path.join(W, "d")):
        for n in dns:
            p = os.path.join(dp, n)
            try:
                marks[os.path.relpath(p, os.path.join(W, "d"))] = os.getxattr(
                    p, "user.fastcp.move", follow_symlinks=False)
            except OSError:
                pass
    return marks


def moved_marks(W):
    """DEST's directories a --move marked as holding what it took from a
    source it has not all removed yet (user.fastcp.moved), d itself too."""
    top = os.path.join(W, "d")
    out = set()
    for dp, _, _ in os.walk(top):
        try:
            os.getxattr(dp, "user.fastcp.moved", follow_symlinks=False)
        except OSError:
            continue
        rel = os.path.relpath(dp, top)
        out.add("" if rel == "." else rel)
    return out


def deletes(c):
    """Does the command delete extras (--delete, --mirror)?"""
    return c["mode"] in ("mirror", "delete") or bool({"--mirror", "--delete"} & set(c["mods"]))


def marked_copy(W, marks, rel, src, via=None, deleting=False):
    """Was DEST's directory rel, before the command, src's unfinished copy?
    The same source goes on into it then, not into rel/NAME. Read through
    the fault filesystem (via "s1": s1/x given as f1/x), a source is
    another path, not the one the mark names. Only a command that deletes
    goes on into a copy a deleting run marked ("d" after the key), and only
    such a copy is gone on into by one that deletes."""
    v = (marks or {}).get(rel)
    # DEST seen through faultfs: the mark's key (the directory's inode
    # and birth time) is not what FUSE reports, so it names another one.
    if via == "d":
        return False
    if via == "s1" and src.startswith("s1/"):
        src = "f1" + src[2:]
    return v is not None and (len(v.split(b":")[0]) == 9) == deleting and v.endswith(
        b":" + os.path.realpath(os.path.join(W, src.replace("@W@/", ""))).encode())


def placement(c, pre_dest, W=None, marks=None, via=None):
    """The destination-relative path of each SOURCE's copy (cp's rules)."""
    D = c["dest"].rstrip("/")
    rel = D[2:] if D.startswith("d/") else ""
    if c["T"]:
        return [rel for _ in c["srcs"]]
    if c["mode"] == "parents":
        return [join(rel, s) for s in c["srcs"]]
    isdir = pre_dest.get(rel, {}).get("t") == "d"
    if isdir and W and len(c["srcs"]) == 1 and \
            marked_copy(W, marks, rel, c["srcs"][0], via, deletes(c)):
        return [rel]
    if len(c["srcs"]) == 1 and not isdir and not c["dest"].endswith("/"):
        return [rel]
    return [join(rel, os.path.basename(s.rstrip("/"))) for s in c["srcs"]]


REWRITE = "--symlinks=rewrite"
DRY_MODES = ("copy", "sync", "checksum", "mirror", "delete", "move", "n", "u", "b", "parents")


def rewritten(tg, W, s, T):
    """--symlinks=rewrite: an absolute target inside SOURCE s re-pointed to
    the same place in its copy T (under d), as the man page says."""
    src = os.path.realpath(os.path.join(W, s))
    dst = os.path.normpath(os.path.join(os.path.realpath(W), "d", T))
    n = os.path.normpath(tg) if tg.startswith("/") else None
    if n and (n == src or n.startswith(src + "/")):
        return dst + n[len(src):]
    return tg


def spec_of(e, **kw):
    x = {"t": e["t"]}
    if e["t"] == "f":
        x.update(h=e["h"], m=e["m"], mt=e["mt"], sz=e["sz"])
    elif e["t"] == "l":
        x["tg"] = e["tg"]
    elif e["t"] == "p":
        x["m"] = e["m"]
    x["src_ino"] = e["ino"]
    x.update(kw)
    return x


def refilled(d, e, kept):
    """The content a quick-checked file has after --sync: kept, unless its
    holes were filled (as --check reports them, --sync copies it again).
    Between clearly kept and clearly filled, either: not checked."""
    if not d or d.get("t") != "f" or e["blk"] * 512 >= e["sz"]:
        return kept
    src, dst = e["blk"] * 512, d["blk"] * 512
    if dst <= src + (64 << 10):
        return kept
    return e["h"] if dst > 2 * src + (1 << 20) else None


def model(c, W, pre):
    """Expected DEST and SOURCE after an exit-0 run of c, from the state before.

    Returns (dest, srcs): dicts rel -> spec ({} of fields to check, or
    {"any": True}); srcs is None when the sources must be unchanged."""
    mode = c["mode"]
    mods = c["mods"]
    if mode in ("check", "checkman"):
        raise Unknown("a check")
    if mode == "move" and set(mods) - {"--verify", "-j", "1"}:
        raise Unknown("--move with a modifier")
    if pre.get("user_unreadable"):
        raise Unknown("an unreadable source")
    if REWRITE in mods and pre.get("via") and any(
            e["t"] == "l" and e["tg"].startswith("/") for t in pre["src"].values() for e in (t or {}).values()):
        raise Unknown("--symlinks=rewrite of a source seen through faultfs")
    dest = {r: spec_of(e) if e["t"] != "d" else {"t": "d"} for r, e in pre["dest"].items()}
    for r, e in pre["dest"].items():  # keep what it was: content and times
        if e["t"] == "f":
            dest[r]["src_ino"] = None
        if e["t"] == "d":
            dest[r]["src_ino"] = None
    excl = c.get("excl", [])
    targets = placement(c, pre["dest"], W, pre.get("marks"), pre.get("via"))
    srcsnaps = []
    for s in c["srcs"]:
        sp = os.path.join(W, s.replace("@W@/", ""))
        if mode == "L":
            t = snap_follow(sp)
            if t is None:
                raise Unknown("-L meets a dangling link or a loop")
        else:
            t = pre["src"][s.replace("@W@/", "")]
        srcsnaps.append(t)
    mounts = pre["mounts"]
    # -b never takes as a backup name a name this run copies to, or a
    # backup name it already took: NAME~~ then, as cp -b run in order.
    written = {join(T, r) for t, T in zip(srcsnaps, targets) for r in (t or {})}
    backups = set()
    for s, t, T in zip(c["srcs"], srcsnaps, targets):
        if not t:
            raise Unknown("a missing source")
        if t[""]["t"] != "d":
            if mode == "l" and t[""]["t"] == "l":
                tg = os.path.normpath(os.path.join(os.path.dirname(os.path.join(W, s)), t[""]["tg"]))
                if tg == os.path.normpath(os.path.join(W, "d", T)):
                    return dest, None  # -l SYMLINK FILE where SYMLINK leads to FILE: as cp, nothing
            raise Unknown("a non-directory operand")
        if T in dest and dest[T]["t"] != "d":
            raise Unknown("a directory onto a non-directory")
        for x in prefixes(T)[:-1] if mode == "parents" else []:  # its DEST is always d/
            if dest.get(x, {"t": "d"})["t"] != "d":
                raise Unknown("--parents meets a non-directory on the path")
            dest.setdefault(x, {"t": "d", "src_ino": None})  # made by --parents
        # A hidden copy an earlier run left may be taken up by --sync: its
        # files then pass the quick check as a visible copy's would.
        par = os.path.dirname(T)
        taken = T not in pre["dest"] and any(
            os.path.dirname(r) == par and fastcp_temp(os.path.basename(r)) and x["t"] == "d"
            for r, x in pre["dest"].items())
        # A copy an earlier run named unfinished (marked) is taken up by the
        # same source when it is the command's DEST (not with -T): what
        # passes the quick check stays. A copy named inside DEST is copied
        # into as any directory there.
        D = c["dest"].rstrip("/")
        adopted = len(c["srcs"]) == 1 and not c["T"] and T == (D[2:] if D.startswith("d/") else "") \
            and pre["dest"].get(T, {}).get("t") == "d" and \
            marked_copy(W, pre.get("marks"), T, s, pre.get("via"), deletes(c))
        for rel, e in sorted(t.items()):
            if any(excluded(r, t[r], excl) for r in prefixes(rel)):
                continue
            p = join(T, rel)
            old = dest.get(p)
            if old and old.get("any"):  # two sources of one name, the first unsaid
                raise Unknown("an entry the model could not say, met again")
            if e["t"] == "d":
                if old and old["t"] != "d":
                    raise Unknown("type conflict")
                dest[p] = {"t": "d", "src_ino": None}
                continue
            if old and old["t"] == "d":
                raise Unknown("type conflict")
            if old and old["t"] == "p" and e["t"] != "p":
                raise Unknown("a FIFO in the way")
            new = spec_of(e)
            if e["t"] == "l" and REWRITE in mods:
                new["tg"] = rewritten(e["tg"], W, s.replace("@W@/", ""), T)
            # --delete implies --sync (rsync always quick-checks).
            if mode in ("sync", "mirror", "delete", "move") and old and old["t"] == e["t"] == "f" \
                    and old["sz"] == e["sz"] and old["mt"] == e["mt"]:
                if mode != "move":  # a move removes the source: only its bytes are right
                    new["h"] = refilled(pre["dest"].get(p), e, old["h"])  # the quick check keeps it
            elif adopted and mode != "checksum" and old and old["t"] == e["t"] == "f" \
                    and old["sz"] == e["sz"] and old["mt"] == e["mt"]:
                new["h"] = refilled(pre["dest"].get(p), e, old["h"])
                if mode in ("dedup", "dedup_hl"):
                    new["h"] = None  # --dedup reads the file there too: kept or copied again
                elif mode not in ("copy", "H", "L", "parents"):
                    if mode in ("l", "s", "attrs") or new["h"] != old["h"]:
                        raise Unknown("a copy taken up, with -l, -s or --attributes-only, or its holes filled")
                    dest[p] = new  # kept as it is: nothing to back up, ask or compare
                    continue
            elif adopted and old and mode in ("n", "i", "u", "b", "l", "s", "attrs"):
                raise Unknown("a copy taken up, with -n, -i, -u, -b, -l, -s or --attributes-only")
            if mode in ("sync", "mirror", "delete") and e["t"] == "f" and taken:
                new["h"] = None
            if mode in ("sync", "mirror", "delete", "checksum") and e["t"] == "f" and e["nl"] > 1:
                # Names of one inode are linked again into one: which name's
                # copy they share (one the quick check kept) is the order's.
                new["h"] = None
            if (mode == "n" or mode == "i" and c.get("answer") != "y") and old:
                new = old  # -i answered no (or end of input): kept, as -n
            elif mode == "u" and old:
                if old.get("mt") is None or e["t"] != "f" or old["t"] != "f":
                    raise Unknown("-u beside a non-file")
                if old["mt"] >= e["mt"]:
                    new = old
            elif mode == "b" and old:
                b = p + "~"
                while b in written or b in backups:
                    b += "~"
                backups.add(b)
                dest[b] = dict(old)
            elif mode == "l":
                new["same_ino"] = e["ino"]
            elif mode == "s":
                new = {"t": "l", "tg": os.path.join(W, s.replace("@W@/", ""), rel), "src_ino": None}
            elif mode == "attrs":
                if e["nl"] > 1:  # its other names decide, in the order met
                    new = {"any": True}
                elif e["t"] == "f":
                    new["h"] = old["h"] if old and old["t"] == "f" else EMPTY
                elif old and old["t"] == "f":
                    new = dict(old)  # a file that is there keeps its data
                else:
                    new = {"any": True}
            dest[p] = new
    if mode in ("mirror", "delete"):
        keep = set()
        for t, T in zip(srcsnaps, targets):
            keep |= {join(T, r) for r in t}
        dels = []
        for T in set(targets):
            if T not in pre["dest"]:
                continue
            for r in sorted(dest):
                if not under(r, T) or r == T or r in keep or hidden(r) or r in pre["job"]:
                    continue
                if any(excluded(x[len(T) + 1:] if T else x, dest.get(x, {"t": "o"}), excl)
                       for x in prefixes(r) if under(x, T) and x != T):
                    continue
                if any(under(r, m) for m in mounts) or any(under(m, r) for m in mounts):
                    continue
                dels.append(r)
        if c.get("maxdel") is not None and len(dels) > c["maxdel"]:
            raise Unknown("--max-delete reached")
        for r in dels:
            dest.pop(r, None)
    if mode == "dedup_hl":
        # The names of one content share one inode, whose metadata is the
        # first copy's: which name's is the workers' order. Empty files are
        # left alone.
        byh = {}
        for r, x in dest.items():
            if x.get("src_ino") and x["t"] == "f" and x.get("h") not in (None, EMPTY):
                byh.setdefault(x["h"], set()).add(tuple(x["src_ino"]))
        for r, x in dest.items():
            if x.get("src_ino") and x["t"] == "f" and len(byh.get(x.get("h"), ())) > 1:
                x.update(m=None, mt=None, dedup=True)
    srcs = {} if mode == "move" else None  # after a move: every source gone
    if mode in ("l",) and pre["dest_tmpfs"]:
        raise Unknown("-l across filesystems")
    return dest, srcs


def prefixes(rel):
    parts = rel.split("/")
    return ["/".join(parts[:i + 1]) for i in range(len(parts))] if rel else []


def compare(expected, actual, job):
    """Differences between the model's DEST and the real one."""
    out = []
    for r in sorted(set(expected) | set(actual)):
        if hidden(r) or r in job:
            continue
        x, a = expected.get(r), actual.get(r)
        if x and x.get("any"):
            continue
        if x is None:
            out.append("unexpected %r in DEST" % r)
            continue
        if a is None:
            out.append("missing %r in DEST" % r)
            continue
        if x["t"] != a["t"]:
            out.append("%r is %s, expected %s" % (r, a["t"], x["t"]))
            continue
        for k in ("h", "tg", "m", "mt"):
            if x.get(k) is not None and x[k] != a.get(k):
                cut = None if k == "tg" else 16  # a target is read whole; a hash's head will do
                out.append("%r: %s %s, expected %s" % (r, k, str(a.get(k))[:cut], str(x[k])[:cut]))
        if x.get("same_ino") and tuple(x["same_ino"]) != tuple(a["ino"]):
            out.append("%r is not a hard link to its source" % r)
    return out


def link_groups(expected, actual, job):
    """Names of one source inode share one inode in DEST, and only they."""
    by_src = {}
    for r, x in expected.items():
        if x.get("src_ino") and x.get("t") == "f" and r in actual and not x.get("same_ino"):
            by_src.setdefault(tuple(x["src_ino"]), []).append(r)
    out = []
    for names in by_src.values():
        inos = {tuple(actual[n]["ino"]) for n in names}
        if len(inos) > 1:
            out.append("names of one source inode are separate files: %r" % names)
    seen = {}
    for names in by_src.values():
        for n in names:
            i = tuple(actual[n]["ino"])
            if i in seen and seen[i] != names[0]:
                out.append("%r and %r share an inode, their sources do not" % (n, seen[i]))
            seen.setdefault(i, names[0])
    return out


def independent_check(c, W, pre_dest):
    """Is each source equal to its copy on what the copy keeps? (for --check)"""
    diffs = []
    targets = placement(c, pre_dest, W)
    d = snap(os.path.join(W, "d"))
    for s, T in zip(c["srcs"], targets):
        t = snap(os.path.join(W, s))
        if not t:
            diffs.append("source %r is gone" % s)
        for rel, e in t.items():
            a = d.get(join(T, rel))
            if a is None:
                diffs.append("missing %r" % rel)
                continue
            if e["t"] == "l" and REWRITE in c["mods"]:
                e = dict(e, tg=rewritten(e["tg"], W, s, T))
            for k in ("t", "h", "tg", "x", "uid", "gid", "mt") + (("m",) if e["t"] != "l" else ()):
                if e.get(k) != a.get(k):
                    diffs.append("%s of %r" % (k, rel))
            if e["t"] == "f" and a["blk"] > e["blk"] + 256:
                diffs.append("holes of %r filled" % rel)
        # hard links: names of one source inode share one DEST inode, and only they
        pairs = {(tuple(e["ino"]), tuple(d[join(T, r)]["ino"])) for r, e in t.items()
                 if e["t"] == "f" and join(T, r) in d and d[join(T, r)]["t"] == "f"}
        if len({x for x, _ in pairs}) != len(pairs) or len({y for _, y in pairs}) != len(pairs):
            diffs.append("hard links differ")
        for r in d:
            if under(r, T) and r != T and (r[len(T) + 1:] if T else r) not in t \
                    and not hidden(r):  # a manifest the check is not told of is an extra
                diffs.append("extra %r" % r)
    return diffs


# ---------------------------------------------------------------- running
class Violation(Exception):
    def __init__(self, inv, msg, what="", ctx=""):
        super().__init__("%s: %s" % (inv, msg))
        self.inv = inv
        # What a shrunk scenario must still show: the invariant and the kind
        # of its first finding, without paths, numbers or hashes.
        k = re.sub(r"'[^']*'|\"[^\"]*\"|[0-9a-f]{8,}|\d+", "_", what.split(";")[0])
        self.sig = inv + ":" + k
        # What a list of known defects matches: the command's options too.
        self.long = "%s [%s] %s" % (inv, ctx, k)


def src_state(W, w):
    out = {}
    for s in ("s1/" + w["name"], "s2/" + w["name"], "s1/foo"):
        out[s] = snap(os.path.join(W, s))
    return out


def all_contents(state):
    hs = set()
    for t in state.values():
        hs |= {e["h"] for e in t.values() if e["t"] == "f"}
    return hs


def mounts_in_dest(W):
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            mp = line.split()[4].replace("\\040", " ").replace("\\012", "\n")
            d = os.path.join(W, "d")
            if mp.startswith(d + "/"):
                out.append(mp[len(d) + 1:])
    return out


def glob_quote(name):
    return re.sub(r"([][*?\\])", r"[\1]", name)


class FaultFS:
    """faultfs between fastcp and a source (s1 seen as f1) or DEST (d as fd).

    The file a fault aims at is picked by k among the source's regular files
    (deterministic on replay); "at" holds its read at an offset inside its
    first 64 KiB (data, also in a sparse file) or at fault["off"]."""

    def __init__(self, c, W, w, log, fault):
        self.W, self.log, self.fault, self.p, self.info = W, log, fault, None, {}
        kind = fault.get("fs") or "at"
        src = "s1/" + w["name"]
        self.side = "d" if kind in ("enospc", "norename") else "s1"
        if self.side == "s1" and src not in c["srcs"] \
                or self.side == "d" and w.get("mounts"):
            return  # the mounts inside DEST would not be mounts through FUSE
        files = sorted((r, e) for r, e in snap(os.path.join(W, src)).items()
                       if e["t"] == "f" and e["sz"] > 0 and not hidden(r))
        if fault.get("match"):
            files = [(r, e) for r, e in files if r.split("/")[-1] == fault["match"]]
        k = fault.get("k", fault.get("at", 0))
        opts = ["--armed=%s/armed" % W]  # removed for the same command again
        with open(os.path.join(W, "armed"), "w"):
            pass
        if self.side == "s1":
            if not files:
                return
            rel, e = files[k % len(files)]
            name = rel.split("/")[-1]
            off = fault.get("off", 4096 * (k % ((min(e["sz"], 65536) + 4095) // 4096)))
            opts.append("--match=" + glob_quote(name))
            if kind == "eio":
                opts += ["--eio-at=%d" % off, "--eio-len=4096"]
            elif kind == "short":
                n = [1, 100, 4097, 65539][k % 4]
                opts.append("--short=%d" % (n if e["sz"] // n < 20000 else 4097))
            else:
                opts += ["--hold=%s/hold" % W, "--block-at=%d" % off]
                with open(os.path.join(W, "hold"), "w"):
                    pass
            self.info = {"kind": kind, "file": src + "/" + rel, "name": name, "nl": e["nl"]}
        elif kind == "enospc":
            opts.append("--enospc-after=%d" % [0, 4096, 70000, 1 << 20][k % 4])
            self.info = {"kind": kind}
        else:
            opts.append("--no-rename-flags")
            self.info = {"kind": kind}
        self.mnt = os.path.join(W, "f1" if self.side == "s1" else "fd")
        os.makedirs(self.mnt, exist_ok=True)
        self.elog = open(os.path.join(W, "ffs.log"), "w+b")
        self.p = subprocess.Popen([FAULTFS] + opts + [os.path.join(W, self.side), self.mnt],
                                  stdout=subprocess.DEVNULL, stderr=self.elog)
        log.append("mkdir -p %s && { touch armed hold; $FAULTFS %s %s %s 2>ffs.log & sleep 1; }"
                   % (self.mnt[len(W) + 1:], " ".join(shq(o).replace(W, "\"$PWD\"") for o in opts),
                      self.side, self.mnt[len(W) + 1:]))
        for _ in range(200):
            if self.mounted():
                return
            time.sleep(0.025)
        raise RuntimeError("faultfs did not mount: %s" % self.said())

    def mounted(self):
        with open("/proc/self/mountinfo") as f:
            return any(l.split()[4] == self.mnt for l in f)

    def said(self):
        self.elog.seek(0)
        return self.elog.read().decode(errors="replace")

    def via(self, x):
        """An operand as fastcp sees it through faultfs."""
        if not self.p:
            return x
        if self.side == "s1" and x.startswith("s1/"):
            return "f1" + x[2:]
        if self.side == "d" and (x == "d" or x.startswith("d/")):
            return "fd" + x[1:]
        return x

    def release(self):
        if os.path.exists(os.path.join(self.W, "hold")):
            os.unlink(os.path.join(self.W, "hold"))

    def disarm(self):
        """The faults off; the mount stays, for the same command again."""
        if not self.p or not os.path.exists(os.path.join(self.W, "armed")):
            return
        self.release()
        os.unlink(os.path.join(self.W, "armed"))
        self.log.append("rm -f armed hold")
        self.info["said"] = self.said()
        self.info["injected"] = bool(re.search(r"^faultfs: (EIO|ENOSPC|EINVAL) ", self.info["said"], re.M))

    def close(self):
        if not self.p:
            return
        self.disarm()
        subprocess.run(["umount", self.mnt], stderr=subprocess.DEVNULL)
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            subprocess.run(["umount", "-l", self.mnt], stderr=subprocess.DEVNULL)
            self.p.kill()
            self.p.wait()
        self.elog.close()
        os.rmdir(self.mnt)
        self.log.append("umount %s" % self.mnt[len(self.W) + 1:])


def full_dest(W, w, log, on):
    """The "full" fault: a DEST tmpfs shrunk to what it holds, then given back."""
    if not w.get("dest_tmpfs"):
        return False
    d = os.path.join(W, "d")
    st = os.statvfs(d)
    size = "%dk" % ((st.f_blocks - st.f_bfree) * st.f_frsize // 1024 + 64) if on else "512m"
    subprocess.run(["mount", "-o", "remount,size=" + size, d], check=True)
    log.append("mount -o remount,size=%s d" % size)
    return True


def run_fastcp(c, W, w, log, fault, ffs=None):
    """Run c; returns (exit, stdout, stderr, the fault met or None, faultfs's
    report, the faultfs mount: disarmed, kept for the same command again)."""
    if fault and fault.get("fs") == "full":
        if full_dest(W, w, log, True):
            try:
                return run_fastcp2(c, W, w, log, fault, None) + ({"kind": "full"}, None)
            finally:
                full_dest(W, w, log, False)
        fault = dict(fault, fs="enospc")  # no DEST tmpfs: faultfs fills it
    if not ffs:
        ffs = FaultFS(c, W, w, log, fault) if fault and have_faultfs() and \
            ("at" in fault or fault.get("fs") in ("eio", "short", "enospc", "norename")) else None
    try:
        r = run_fastcp2(c, W, w, log, fault, ffs)
    except BaseException:
        if ffs:
            ffs.close()
        raise
    if ffs:
        ffs.disarm()
    return r + ((ffs.info if ffs and ffs.p else {}), ffs)


def run_fastcp2(c, W, w, log, fault, ffs):
    a = argv(c, W, ffs.via if ffs else None)
    pre = ["setpriv", "--reuid=%d" % USER_ID, "--regid=%d" % USER_ID, "--clear-groups"] \
        if w.get("user") else []
    shell = " ".join(["$FASTCP" if x == fastcp_bin() else '"$PWD"' + shq(x[len(W):])
                      if x.startswith(W + "/") else shq(x) for x in a])
    if pre:
        shell = " ".join(pre) + " " + shell
    stdin = subprocess.DEVNULL
    if c["mode"] == "i":  # the same answer to every question, then end of input
        stdin = tempfile.TemporaryFile()
        stdin.write((c["answer"] + "\n").encode() * 1000 if c["answer"] else b"")
        stdin.seek(0)
        shell = "yes %s | head -n 1000 | %s" % (c["answer"], shell) if c["answer"] else shell + " </dev/null"
    p = subprocess.Popen(pre + a, cwd=W, stdin=stdin, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    delivered = None
    if fault and "sig" in fault and "at" in fault:
        # Kill once faultfs holds the read at the point: where the copy is
        # does not depend on the machine's speed.
        held = False
        t0 = time.time()
        while ffs and ffs.p and p.poll() is None and time.time() - t0 < 20:
            if "faultfs: holding" in ffs.said():
                held = True
                break
            time.sleep(0.005)
        if held:
            p.send_signal(getattr(signal, "SIG" + fault["sig"]))
            delivered = "SIG%s at a read" % fault["sig"]
        if ffs:
            ffs.release()
        log.append("%s & p=$!; until grep -q 'faultfs: holding' ffs.log; do sleep 0.01; done; kill -%s $p; "
                   "rm hold; wait $p; echo \"exit $?\"" % (shell, fault["sig"]))
    elif fault and fault.get("mpi") and fastcp_mpi():
        delivered = mpi_signal(p, fault)
        how = "pkill -KILL -n -x fastcp-mpi" if fault["sig"] == "KILL" else "kill -%s $p" % fault["sig"]
        log.append("%s & p=$!; until pgrep -x fastcp-mpi >/dev/null; do sleep 0.01; done; sleep %.3f; %s; "
                   "wait $p; echo \"exit $?\"" % (shell, fault["ms"] / 1000.0, how))
    elif fault and "sig" in fault:
        time.sleep(fault["ms"] / 1000.0)
        if p.poll() is None:
            p.send_signal(getattr(signal, "SIG" + fault["sig"]))
            delivered = "SIG" + fault["sig"]
        log.append("%s & p=$!; sleep %.3f; kill -%s $p; wait $p; echo \"exit $?\"" % (
            shell, fault["ms"] / 1000.0, fault["sig"]))
    else:
        if fault and (ffs and ffs.p or fault["fs"] == "full"):
            delivered = fault["fs"]
        log.append("%s; echo \"exit $?\"" % shell)
    ranks = descendants(p.pid, "fastcp-mpi") if c.get("mpi") else []
    ranks_dead = lambda: not any(alive(r) for r in ranks + descendants(p.pid, "fastcp-mpi"))
    t0, since = time.time(), None
    while True:
        try:
            # (A rank killed: asked every 2 s whether mpirun waits on
            # ranks that have all ended; 10 s so is a hang.)
            out, err = p.communicate(timeout=2 if c.get("mpi") and delivered else TIMEOUT)
            break
        except subprocess.TimeoutExpired:
            dead = c.get("mpi") and (delivered or "").startswith("SIGKILL") and ranks_dead()
            since = (since or time.time()) if dead else None
            if time.time() - t0 < TIMEOUT and not (since and time.time() - since >= 10):
                continue
        tree = ps()
        if c.get("mpi") and (delivered or "").startswith("SIGKILL") and ranks_dead():
            # Every rank has ended (a zombie is not reaped by the mpirun
            # that hangs): Open MPI's own hang after a rank killed early
            # ("PMIX ERROR: UNREACHABLE"), which fastcp cannot end.
            p.kill()
            p.communicate()
            raise Abandoned("mpirun hung after its ranks had ended (a rank killed early)")
        p.kill()
        out, err = p.communicate()
        raise Violation("no-hang", "fastcp ran over %d s: %s\n%s\n  stderr: %s" % (
            TIMEOUT, shell, tree, err.decode(errors="replace")[-600:]))
    # mpirun gone, its ranks too: none may go on writing into the next step.
    t0 = time.time()
    while c.get("mpi") and any(alive(r) for r in ranks + descendants(p.pid, "fastcp-mpi")):
        if time.time() - t0 > 10:
            raise Violation("no-hang", "a rank of fastcp-mpi outlived mpirun by 10 s: %s\n%s" % (shell, ps()))
        time.sleep(0.02)
    return p.returncode, out, err, delivered


def descendants(pid, name):
    """The pids of the processes called name below pid."""
    kids, names = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as fh:
                st = fh.read()
        except OSError:
            continue
        comm = st[st.index("(") + 1:st.rindex(")")]
        ppid = int(st[st.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(d))
        names[int(d)] = comm
    out, todo = [], [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            todo.append(k)
            if names.get(k) == name:
                out.append(k)
    return out


def ps():
    """The processes of fastcp and mpirun, with their state and wait
    channel: what a hang was waiting for."""
    r = subprocess.run(["ps", "-eo", "pid,ppid,stat,wchan:24,etime,args"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    return "\n".join("  " + l for l in r.stdout.decode(errors="replace").splitlines()
                     if "fastcp" in l or "mpirun" in l or "PID" in l)[:3000]


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as fh:
            return fh.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def mpi_signal(p, fault):
    """fault's signal to a run of fastcp-mpi under mpirun p, fault["ms"]
    after its ranks have started: SIGKILL to the last rank started, or
    SIGINT/SIGTERM to mpirun. What was delivered, or None (it ended first)."""
    t0 = time.time()
    while p.poll() is None and not descendants(p.pid, "fastcp-mpi") and time.time() - t0 < 20:
        time.sleep(0.005)
    time.sleep(fault["ms"] / 1000.0)
    if p.poll() is not None:
        return None
    if fault["sig"] != "KILL":
        p.send_signal(getattr(signal, "SIG" + fault["sig"]))
        return "SIG%s to mpirun" % fault["sig"]
    ranks = descendants(p.pid, "fastcp-mpi")
    if not ranks:
        return None
    try:
        os.kill(max(ranks), signal.SIGKILL)
    except OSError:
        return None
    return "SIGKILL to a rank"


def hidden_roots(W):
    """Hidden root copies per (directory, destination name)."""
    count = {}
    for dp, dns, fns in os.walk(os.path.join(W, "d")):
        for n in dns + fns:
            if fastcp_temp(n):
                p = os.path.join(dp, n)
                if os.path.isdir(p) and not os.path.islink(p):
                    try:
                        name = os.getxattr(p, "user.fastcp.root", follow_symlinks=False)
                    except OSError:
                        name = b"?"
                    count.setdefault((dp, name), []).append(n)
        dns[:] = [x for x in dns if not fastcp_temp(x)]
    return count


def temps(W):
    out = []
    for dp, dns, fns in os.walk(os.path.join(W, "d")):
        out += [os.path.join(dp, n) for n in dns + fns if fastcp_temp(n)]
    return out


class Run:
    """One scenario in a fresh directory: build, step, check."""

    def __init__(self, sc, keep=False):
        self.sc = sc
        self.w = sc["world"]
        self.log = []
        self.keep = keep
        self.stats = {"cmds": 0, "cover": set()}

    def go(self):
        # SCENARIO_FSDIRS (kind=dir,...): the sources on the world's first
        # filesystem, DEST on its second (a directory there, bind-mounted).
        dirs = dict(x.split("=", 1) for x in os.environ.get("SCENARIO_FSDIRS", "").split(",") if x)
        fs = [k if k in dirs else sorted(dirs)[0] for k in self.w.get("fs", FSKINDS[:2])] if dirs else []
        self.ddir = tempfile.mkdtemp(prefix="fcp-scn-d.", dir=dirs[fs[1]]) if fs and fs[0] != fs[1] else None
        if fs:
            self.stats["cover"].add(("fs", "%s to %s" % (fs[0], "tmpfs" if self.w.get("dest_tmpfs") else fs[1])))
        W = tempfile.mkdtemp(prefix="fcp-scn.", dir=dirs[fs[0]] if fs else os.environ.get("SCENARIO_DIR", "/tmp"))
        os.chmod(W, 0o755)
        self.W = W
        try:
            build_world(W, self.w, self.log, self.ddir)
            self.recorded = {}
            self.partly_recorded = set()
            self.ever = all_contents(src_state(W, self.w)) | all_contents({"": snap(os.path.join(W, "sent"))})
            self.dest_all = set()  # every content DEST ever held (backups keep old ones)
            self.moved = set()  # contents a --move took out of SOURCE: in DEST only
            self.note_dest()
            self.sent = snap(os.path.join(W, "sent"))
            for i, st in enumerate(self.sc["steps"]):
                self.events = []
                for ev in st["ev"]:
                    n = do_event(W, self.w, ev, self.log)
                    if n:
                        self.stats["cover"].add(("event", n))
                        self.events.append(n)
                    if n == "unreadable":
                        self.unreadable = True
                self.ever |= all_contents(src_state(W, self.w))
                self.note_dest()
                self.step(i, st["cmd"])
            return None
        except Violation as v:
            return v
        except Abandoned as x:
            self.stats["cover"].add(("abandoned", str(x)))
            self.stats["abandoned"] = str(x)
            return None
        except Exception as x:  # the tester's own bug: a failure too, never a pass
            import traceback
            return Violation("tester-error", "%s\n%s" % (x, traceback.format_exc()), type(x).__name__)
        finally:
            if not self.keep:
                self.cleanup()

    def cleanup(self):
        W = self.W
        with open("/proc/self/mountinfo") as f:
            mps = [l.split()[4] for l in f if l.split()[4].startswith(W + "/") or l.split()[4] == W]
        for mp in sorted(mps, key=len, reverse=True):
            subprocess.run(["umount", "-l", mp], stderr=subprocess.DEVNULL)
        subprocess.run(["chmod", "-R", "u+rwx", W], stderr=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", W] + ([self.ddir] if self.ddir else []))

    def note_dest(self):
        for r, e in snap(os.path.join(self.W, "d")).items():
            if e["t"] == "f":
                self.dest_all.add(e["h"])

    def state(self):
        W = self.W
        return {"dest": snap(os.path.join(W, "d")), "src": src_state(W, self.w),
                "mounts": mounts_in_dest(W), "dest_tmpfs": bool(self.w.get("dest_tmpfs") or self.ddir),
                "user_unreadable": getattr(self, "unreadable", False),
                "job": JobFiles(), "temps": set(temps(W)), "marks": dest_marks(W),
                "moved_marks": moved_marks(W)}

    def step(self, i, c):
        W = self.W
        pre = self.state()
        self.stats["cmds"] += 1
        cov = c["mode"] + "".join(" " + m for m in c["mods"] if m != "1") + \
            (" --exclude" if c.get("excl") else "") + (" --max-delete" if "maxdel" in c else "") + \
            (" --manifest" if c.get("man") else "") + (" 2 sources" if len(c["srcs"]) > 1 else "") + \
            (" answering %r" % c["answer"] if "answer" in c else "") + \
            (" on %d MPI ranks" % c["mpi"] if c.get("mpi") and fastcp_mpi() else "")
        self.stats["cover"].add(("option", cov))
        self.ctx = cov
        fault = c.get("fault")
        dry = self.dry_run(i, c, pre) if c.get("dry") else None
        rc, out, err, delivered, self.faulted, ffs = run_fastcp(c, W, self.w, self.log, fault)
        pre["via"] = ffs.side if ffs else None  # the operands as given: through faultfs
        if delivered:
            self.stats["cover"].add(("fault", delivered + (" (met)" if self.faulted.get("injected") else "")))
        for e in self.events or ["-"]:
            self.stats["cover"].add(("combo", c["mode"], e, delivered or "-"))
        self.where = "step %d (%s), exit %d" % (i + 1, " ".join(argv(c, W)[1:]), rc)
        self.err = err
        self.out = out
        post = self.state()
        post["via"] = pre["via"]  # the model of a second run through the same mount
        self.ctx = cov + (" under " + delivered if delivered and "fs" in fault else "")
        self.delivered = delivered
        self.check(c, pre, post, rc, err)
        if dry:
            self.dry_truth(dry, pre, post, rc)
        self.delivered = None
        self.faulted = {}
        if not (delivered and rc != 0 and c.get("again", True)) and ffs:
            ffs.close()
        if delivered and rc != 0 and c.get("again", True):
            # A run killed after its last step (the copy named, its markers
            # gone) has finished: the same command again is a second run
            # (cp's placement may put it inside the first copy).
            done = self.finished(c, pre, post, delivered)
            # Convergence: the same command again, without the fault (through
            # the same faultfs mount, disarmed), reaches the model.
            try:
                rc2, out, err, _, _, _ = run_fastcp(dict(c, fault=None), W, self.w, self.log, None, ffs)
            finally:
                if ffs:
                    ffs.close()
            self.where = "step %d again after %s (%s), exit %d" % (
                i + 1, delivered, " ".join(argv(c, W)[1:]), rc2)
            post2 = self.state()
            self.err = err  # a finding names what the run it is about said
            self.ctx = cov + " again after " + delivered
            if done:
                self.ctx += " (finished)"
                self.check(c, post, post2, rc2, err)
            elif c["mode"] == "move":
                # The model of the re-run: the first run's sources, all moved.
                self.check(c, pre, post2, rc2, err, converge=True)
            elif c["mode"] != "b":
                self.check(c, pre, post2, rc2, err, converge=True)
        self.note_dest()

    def dry_run(self, i, c, pre):
        """c with --dry-run, before c itself: nothing may change, not even a
        time. Returns its exit status and the paths its lines name."""
        dc = dict(c, mods=c["mods"] + ["--dry-run"])
        rc, out, err, _, _, _ = run_fastcp(dc, self.W, self.w, self.log, None)
        self.where = "step %d, first with --dry-run (%s), exit %d" % (i + 1, " ".join(argv(dc, self.W)[1:]), rc)
        self.err, self.out = err, out
        now = self.state()
        for k in ("dest", "src", "temps", "marks"):
            if now[k] != pre[k]:
                a, b = pre[k], now[k]
                what = sorted(r for r in set(a) | set(b) if a.get(r) != b.get(r))[:5] \
                    if isinstance(a, dict) else sorted(set(a) ^ set(b))[:5]
                self.fail("dry-run-truth", "--dry-run changed %s: %r" % (k, what))
        named = {}
        for line in out.split(b"\n"):
            verb = line.split(b" '", 1)[0]
            for q in re.findall(rb"'([^'\\]*)'", line):
                named.setdefault(q, set()).add(verb)
        return {"rc": rc, "named": named, "argv": " ".join(argv(dc, self.W)[1:]), "out": out,
                "move": c["mode"] == "move", "srcs": [x.replace("@W@/", "") for x in c["srcs"]]}

    def dry_truth(self, dry, pre, post, rc):
        """What the run changed in DEST was named by its dry run, what the
        dry run said it would delete is gone, and both end alike."""
        named = dry["named"]
        said = lambda r: ("d/" + r).encode("utf-8", "surrogateescape") in named
        plain = lambda r: all(ch.isprintable() and ch not in "'\\" for ch in r)
        if dry["rc"] != rc and not (rc == 1 and dry["rc"] == 0 and self.err.strip()):
            self.fail("dry-run-truth", "the dry run (%s) exit %d, the run %d" % (dry["argv"], dry["rc"], rc))
        for r in sorted(set(pre["dest"]) | set(post["dest"])):
            a, b = pre["dest"].get(r), post["dest"].get(r)
            if hidden(r) or r in pre["job"] or not plain(r) or any(under(r, m) for m in pre["mounts"]):
                continue
            changed = (a is None) != (b is None) or (a and b and (
                a["t"] != b["t"] or a.get("h") != b.get("h") or a.get("tg") != b.get("tg")))
            if not changed or said(r) or any(said(x) for x in prefixes(r)[:-1]):
                continue
            base = re.sub(r"(\.~\d+~|~+)$", "", r)
            if a is None and base != r and said(base):
                continue  # a backup of a name said
            self.fail("dry-run-truth", "the run changed %r, its dry run (%s) did not say so" % (r, dry["argv"]))
        m = re.search(rb"would take (\d+) entr", dry["out"])
        if dry["move"]:  # what left the sources, the dry run counted (a failure keeps more)
            gone = sum(1 for s in dry["srcs"] for r, e in (pre["src"].get(s) or {}).items()
                       if e["t"] != "d" and r not in (post["src"].get(s) or {}))
            said_n = int(m.group(1)) if m else 0
            if gone > said_n or (rc == 0 and gone != said_n):
                self.fail("dry-run-truth", "the move took %d entries out of SOURCE, its dry run (%s) said %s"
                          % (gone, dry["argv"], m.group(1).decode() if m else "none"))
        elif m:
            self.fail("dry-run-truth", "a dry run of no move (%s) says entries would leave SOURCE" % dry["argv"])
        for q, verbs in named.items():
            r = q.decode("utf-8", "surrogateescape")
            if verbs == {b"delete"} and r.startswith("d/") and r[2:] in post["dest"] \
                    and pre["dest"].get(r[2:]) == post["dest"][r[2:]]:
                self.fail("dry-run-truth", "its dry run said delete %r, the run kept it" % r)

    def finished(self, c, pre, post, delivered):
        """Did a run stopped by a signal finish first: DEST as the model
        says, no temporary name, no marker of fastcp's left on it?"""
        # (A kill at a held read is by construction before the end.)
        if not delivered.startswith("SIG") or " at a read" in delivered or c["mode"] == "move" \
                or post["temps"]:
            return False
        # Markers on this command's copies only: an earlier step's copy
        # with a failed item keeps its own for a later run to take up.
        tops = placement(c, pre["dest"], self.W, pre.get("marks"), pre.get("via"))
        for t in set(tops):
            top = os.path.join(self.W, "d", t) if t else os.path.join(self.W, "d")
            for dp, dns, _ in os.walk(top):
                for x in [dp] + [os.path.join(dp, n) for n in dns]:
                    try:
                        if x != os.path.join(self.W, "d") and any(
                                a.startswith("user.fastcp.")
                                for a in os.listxattr(x, follow_symlinks=False)):
                            return False
                    except OSError:
                        return False
        try:
            self.check(c, pre, post, 0, b"")
        except Violation:
            return False
        return True

    def fail(self, inv, msg):
        raise Violation(inv, "%s: %s\n  stderr: %s" % (self.where, msg,
                                                      self.err.decode(errors="replace")[:600]), msg,
                        self.ctx)

    def check(self, c, pre, post, rc, err, converge=False):
        W = self.W
        # I1 sentinel: nothing outside DEST and the sources ever changes.
        now = snap(os.path.join(W, "sent"))
        if now != self.sent:
            what = sorted(r for r in set(now) | set(self.sent) if now.get(r) != self.sent.get(r))
            self.fail("sentinel", "outside DEST, %s changed (%s)" % (
                "the origin of the bind mount in DEST" if all(r.startswith("vol") for r in what)
                else "the sentinel", ", ".join(what[:5])))
        # I2 sources: unchanged by anything but --move; after --move no byte lost.
        if c["mode"] != "move":
            for s in pre["src"]:
                a, b = pre["src"][s], post["src"][s]
                for r in set(a) | set(b):
                    x, y = a.get(r), b.get(r)
                    if (x is None) != (y is None) or x and any(x.get(k) != y.get(k) for k in ("t", "h", "tg", "m", "mt")):
                        self.fail("source-unchanged", "source entry %r changed" % (s + "/" + r))
        have = all_contents(post["src"]) | {e["h"] for e in post["dest"].values() if e["t"] == "f"}
        if c["mode"] == "move":
            lost = sorted("%s/%s" % (s, r) for s, t in pre["src"].items() for r, e in t.items()
                          if e["t"] == "f" and e["h"] not in have)
            if lost:
                self.fail("no-byte-lost", "after --move the content of %s exists nowhere"
                          % ", ".join(map(repr, lost[:4])))
            # What an earlier --move took is in DEST only: a --move after
            # it (the same command run again to finish it) keeps it.
            # (Events between commands may have changed DEST: only what
            # was there before this one counts.)
            before = all_contents(pre["src"]) | {e["h"] for e in pre["dest"].values() if e["t"] == "f"}
            gone = sorted((self.moved & before) - have)
            if gone:
                self.fail("no-byte-lost", "after --move, %d content(s) an earlier --move had moved "
                          "into DEST exist nowhere" % len(gone))
            self.moved |= all_contents(pre["src"]) - all_contents(post["src"])
        else:
            # A move not finished marks its copy: no command deletes what
            # it took from there (the mark says it may be the only copy).
            # (A file copied over it replaces it: cp's rule, not a delete.)
            at = {}
            for r, e in pre["dest"].items():
                if e["t"] == "f" and e["h"] in self.moved and any(
                        under(r, m) for m in pre.get("moved_marks", ())):
                    at.setdefault(e["h"], []).append(r)
            gone = sorted(h for h, rs in at.items()
                          if h not in have and not any(r in post["dest"] for r in rs))
            if gone:
                self.fail("no-byte-lost", "%d content(s) a --move not finished had moved into its "
                          "marked copy exist nowhere" % len(gone))
        # (Another command may have been asked to delete them.)
        self.moved &= have
        # I11 a fault faultfs says it met is reported: a read that fails at a
        # range and a DEST that is full cannot be copied around, so exit 0
        # would be a lie; and the failure names the file, or the cause.
        f = {} if converge else getattr(self, "faulted", {})
        # (A fault is by name: a file with other names can be read through
        # them, so its EIO need not fail the copy.)
        shm = f.get("injected") and all(
            l.endswith("-shm") for l in f["said"].splitlines() if l.startswith("faultfs: E"))
        if shm and c.get("man"):
            # Only SQLite's shared-memory index met it: pages of a mapping
            # the kernel writes back and nobody reads from storage (it is
            # rebuilt from the WAL). Nothing to report then, but the
            # manifest must be whole: every file of the copy recorded.
            self.manifest_whole(c, post, rc)
        elif f.get("injected") and f["kind"] in ("eio", "enospc") and f.get("nl", 1) == 1:
            if rc == 0:
                said = [l for l in f["said"].splitlines() if l.startswith("faultfs: E")]
                self.fail("fault-reported", "faultfs said %r, but exit 0" % said[0])
            named = f["name"] if f["kind"] == "eio" else "No space left"
            if re.fullmatch(r"[ -~]+", named) and named + ("'" if f["kind"] == "eio" else "") not in err.decode(errors="replace"):
                self.fail("failure-named", "faultfs failed %s, and stderr does not say %r"
                          % (f.get("file", "a write"), named))
        # I4 a refusal changes nothing.
        if rc == 2:
            strip = lambda d: {r: e for r, e in d.items() if r not in pre["job"]}
            if strip(pre["dest"]) != strip(post["dest"]) or pre["src"] != post["src"]:
                self.fail("refusal-changes-nothing", "exit 2 but DEST or a source changed")
            return
        # I10 exit 1 names its failures.
        # (Not a signal sent to mpirun: it ends the job with exit 1 and
        # says nothing, also where the ranks had finished or had not yet
        # begun; what the copy left is checked all the same.)
        if rc == 1 and c["mode"] not in ("check", "checkman") and not err.strip() and \
                not (getattr(self, "delivered", None) or "").endswith(" to mpirun"):
            self.fail("failure-named", "exit 1 with nothing on stderr")
        # I7 at most one hidden copy per destination name.
        for (dp, name), l in hidden_roots(W).items():
            if len(l) > 1:
                self.fail("one-hidden-copy", "%d hidden copies of %r in %r" % (len(l), name, dp))
        # I9 no partial file under a final name.
        for r, e in post["dest"].items():
            if e["t"] == "f" and not hidden(r) and r not in pre["job"] and e["h"] not in self.ever \
                    and e["h"] not in self.dest_all and e["h"] != EMPTY \
                    and not any(under(r, m) for m in pre["mounts"]):
                self.fail("no-partial-file", "%r holds bytes of no version of any source" % r)
        if c["mode"] == "check":
            diffs = independent_check(c, W, pre["dest"])
            if rc == 0 and diffs:
                self.fail("check-truth", "--check exit 0, but: %s" % "; ".join(diffs[:5]))
            # (One that could not read something says so and exits 1: right.)
            if rc == 1 and not diffs and not pre["mounts"] and b"cannot read" not in err:
                self.fail("check-truth", "--check exit 1 on a copy found equal: %s"
                          % out_lines(self.out).replace("\n", "; "))
            return
        if c["mode"] == "checkman":
            if rc == 0:
                rec = self.recorded.get("m.db", {})
                if not rec and "m.db" not in self.partly_recorded:
                    self.fail("manifest-truth", "--check --manifest exit 0, but no manifest run recorded anything there")
                for r, h in rec.items():
                    e = post["dest"].get(r)
                    if not e or e["t"] != "f" or e["h"] != h:
                        self.fail("manifest-truth", "exit 0, but recorded %r changed or is gone" % r)
            return
        if rc == 1 and c.get("man"):
            # Failed items: what it copied is recorded, what not is unknown.
            self.partly_recorded.add(c["man"])
        if rc != 0:
            return
        # I8 no temporary after a successful run: none it made, and after the
        # same command again (convergence) none at all.
        # (One an earlier command left, of another source, say a faultfs
        # view, is named and kept by design: the same command owes only its own.)
        t = [x for x in temps(W) if x not in pre["temps"]]
        if t:
            self.fail("no-temp-after-success", "exit 0 left %s" % ", ".join(map(repr, t[:3])))
        # The job's own files stay.
        if c.get("man"):
            if not os.path.exists(os.path.join(W, c["man"])):
                self.fail("job-files-kept", "the manifest %r is gone" % c["man"])
            self.record_manifest(c, post)
        # I3 exit 0 => DEST is what the model says.
        try:
            exp, srcs = model(c, W, pre)
        except Unknown as u:
            self.stats["cover"].add(("unmodelled", str(u)))
            return
        self.stats["cover"].add(("modelled", c["mode"]))
        diffs = compare(exp, post["dest"], pre["job"])
        if c["mode"] not in ("n", "u", "b", "attrs", "L", "s", "l", "dedup_hl") \
                and not (c["mode"] == "i" and c["answer"] != "y"):  # kept names split groups, as -n
            diffs += link_groups(exp, post["dest"], pre["job"])
        if c["mode"] == "dedup_hl":
            # I12 --dedup=hardlink: the copies of one non-empty content share an inode.
            byh = {}
            for r, x in exp.items():
                if x.get("src_ino") and x["t"] == "f" and x.get("h") not in (None, EMPTY) and r in post["dest"]:
                    byh.setdefault(x["h"], []).append(r)
            for h, names in sorted(byh.items()):
                if len({tuple(post["dest"][r]["ino"]) for r in names}) > 1:
                    self.fail("dedup-links", "copies of one content are separate files: %r" % sorted(names)[:4])
        if srcs is not None:
            for s in c["srcs"]:
                if post["src"][s]:
                    diffs.append("source %r still has %d entries after --move exit 0" % (s, len(post["src"][s])))
        if diffs:
            self.fail("model" if not converge else "convergence", "; ".join(diffs[:6]))

    def manifest_whole(self, c, post, rc):
        """The manifest of c passes SQLite's integrity check and has a row
        for every regular file under the DEST operand whose content is a
        source's (the files of the copy; not the manifest's own)."""
        try:
            db = sqlite3.connect("file:%s?mode=ro" % os.path.join(self.W, c["man"]), uri=True)
            db.text_factory = bytes
            ok = db.execute("PRAGMA integrity_check").fetchone()[0]
            paths = {os.fsdecode(r[0]) for r in db.execute("SELECT path FROM files")}
            db.close()
        except sqlite3.Error as e:
            self.fail("fault-reported", "a fault on the manifest's -shm, exit %d, and the manifest "
                      "cannot be read: %s" % (rc, e))
        if ok != b"ok":
            self.fail("fault-reported", "a fault on the manifest's -shm, and the manifest is damaged: %r" % ok)
        D = c["dest"].rstrip("/")
        base = D[2:] + "/" if D.startswith("d/") else ""
        own = os.path.basename(c["man"])
        srch = all_contents(post["src"])
        excl = c.get("excl", [])
        # (A file an --exclude keeps out of the copy is no file of it.)
        out = lambda r: any(excluded(x, post["dest"].get(base + x, {"t": "f"}), excl)
                            for x in prefixes(r[len(base):]))
        miss = sorted(r for r, e in post["dest"].items() if e["t"] == "f" and r.startswith(base)
                      and e["h"] in srch and not out(r)
                      and not r[len(base):].startswith(own) and r[len(base):] not in paths
                      and "/" + r not in paths)
        if miss and rc == 0:
            self.fail("fault-reported", "a fault on the manifest's -shm, exit 0, and the manifest "
                      "lacks %s" % ", ".join(map(repr, miss[:4])))

    def record_manifest(self, c, post):
        """What the manifest says it recorded, with the bytes DEST held then.

        A file the quick check kept (same size and mtime, other bytes) is
        recorded with its source's hash, what it should hold: its record
        then carries the same hash as that source's record, and the bytes
        it stands for are the source's (the tester cannot compute XXH128;
        equal hashes of different bytes do not happen)."""
        try:
            db = sqlite3.connect("file:%s?mode=ro" % os.path.join(self.W, c["man"]), uri=True)
            # Paths are bytes (names need not be UTF-8): decoded as os does.
            db.text_factory = bytes
            rows = [(r[0], os.fsdecode(r[1]), r[2])
                    for r in db.execute("SELECT side, path, xxh128 FROM files")]
            db.close()
        except sqlite3.Error:
            return
        by_hash = {}
        for side, p, x in rows:
            if side == 1 and x and p.startswith(self.W + "/"):
                try:
                    by_hash.setdefault(x, entry(p, os.lstat(p)).get("h"))
                except OSError:
                    pass
        D = c["dest"].rstrip("/")
        base = D[2:] if D.startswith("d/") else ""
        for side, p, x in rows:
            if side != 1 and not p.startswith("/"):
                p = join(base, p)  # recorded relative to the DEST operand
                e = post["dest"].get(p)
                if e and e["t"] == "f":
                    self.recorded.setdefault(c["man"], {})[p] = by_hash.get(x) or e["h"]


def out_lines(b):
    return b.decode(errors="replace")[:400]


# ---------------------------------------------------------------- shrinking
def fails(sc, inv, tries=2):
    for _ in range(tries):
        v = Run(sc).go()
        if v is not None and v.sig == inv:
            return True
        if not any(s["cmd"].get("fault") for s in sc["steps"]):
            return False
    return False


def shrink(sc, inv, say=print):
    """Drop commands, events and world ops while the same invariant fails."""
    sc = json.loads(json.dumps(sc))
    changed = True
    while changed:
        changed = False
        # Commands, the last first.
        for i in reversed(range(len(sc["steps"]))):
            if len(sc["steps"]) == 1:
                break
            t = dict(sc, steps=sc["steps"][:i] + sc["steps"][i + 1:])
            if fails(t, inv):
                sc, changed = t, True
                say("  dropped command %d" % (i + 1))
        for i, st in enumerate(sc["steps"]):
            for j in reversed(range(len(st["ev"]))):
                steps = json.loads(json.dumps(sc["steps"]))
                del steps[i]["ev"][j]
                t = dict(sc, steps=steps)
                if fails(t, inv):
                    sc, changed = t, True
            for k in ("mods", "excl"):
                if st["cmd"].get(k):
                    steps = json.loads(json.dumps(sc["steps"]))
                    steps[i]["cmd"][k] = []
                    t = dict(sc, steps=steps)
                    if fails(t, inv):
                        sc, changed = t, True
        # World ops, in chunks and then one by one.
        ops = sc["world"]["ops"]
        n = max(1, len(ops) // 4)
        while n >= 1:
            i = 0
            while i < len(sc["world"]["ops"]):
                ops = sc["world"]["ops"]
                t = dict(sc, world=dict(sc["world"], ops=ops[:i] + ops[i + n:]))
                if ops[i:i + n] and not any(o.get("keep") for o in ops[i:i + n]) and fails(t, inv):
                    sc, changed = t, True
                else:
                    i += n
            n //= 2
        for k in ("user", "dest_tmpfs"):
            if sc["world"].get(k):
                t = dict(sc, world=dict(sc["world"], **{k: False}))
                if fails(t, inv):
                    sc, changed = t, True
    return sc


def script(sc):
    """A bash script that makes the world and runs the commands."""
    r = Run(sc, keep=True)
    v = r.go()
    r.cleanup()
    head = ["#!/bin/bash", "# Reproduces scenario seed %s%s" % (sc.get("seed"), " (shrunk)" if sc.get("shrunk") else ""),
            "# Invariant broken: %s" % ("\n#   ".join(str(v).splitlines()) if v else "none (passes on this build)"),
            ': "${FASTCP:=%s}"' % FASTCP, "W=$(mktemp -d /tmp/fcp-repro.XXXXXX); cd \"$W\" || exit 1",
            "chmod 755 .", "set -x"]
    return "\n".join(head + r.log) + "\n"


# ---------------------------------------------------------------- main
def run_seed(seed, verbose=False):
    sc = gen_scenario(seed)
    r = Run(sc)
    v = r.go()
    return sc, v, r.stats


def in_namespace():
    """As root, run in a private mount namespace: a crash leaves no mount."""
    if ROOT and os.environ.get("SCENARIO_NS") != "1":
        os.environ["SCENARIO_NS"] = "1"
        os.execvp("unshare", ["unshare", "-m", "--propagation", "private", sys.executable] + sys.argv)


def loop_fs(kind):
    """As root: the scenarios' work directories on a new loop filesystem
    (SCENARIO_FS=ext4|xfs|btrfs|tmpfs), gone with the mount namespace."""
    mp = tempfile.mkdtemp(prefix="fcp-scn-%s." % kind)
    if kind == "tmpfs":
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1g", "tmpfs", mp], check=True)
        return mp
    img = mp + ".img"
    with open(img, "wb") as f:
        f.truncate(1 << 30)
    mkfs = {"ext4": ["mkfs.ext4", "-q", "-F"], "xfs": ["mkfs.xfs", "-q", "-f"],
            "btrfs": ["mkfs.btrfs", "-q", "-f"]}[kind]
    subprocess.run(mkfs + [img], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["mount", "-o", "loop", img, mp], check=True)
    os.unlink(img)  # the loop device holds it; it goes with the last mount
    os.environ["SCENARIO_DIR"] = mp
    return mp


def main(args):
    if not args:
        print(__doc__)
        return 2
    in_namespace()
    fs = os.environ.get("SCENARIO_FS", "")
    if fs and fs != "tmp":
        if not ROOT:
            print("scenario: SCENARIO_FS=%s needs root" % fs)
            return 77
        kinds = FSKINDS if fs == "pairs" else fs.split(",")
        mps = [loop_fs(k) for k in kinds]
        os.environ["SCENARIO_DIR"] = mps[0]
        if len(kinds) > 1:  # each world draws the sources' and DEST's from these
            os.environ["SCENARIO_FSDIRS"] = ",".join("%s=%s" % km for km in zip(kinds, mps))
        try:
            return main2(args)
        finally:
            for mp in mps:
                subprocess.run(["umount", "-l", mp])
                os.rmdir(mp)
    return main2(args)


def main2(args):
    if not os.access(FASTCP, os.X_OK):
        print("scenario: no fastcp at %s (make first)" % FASTCP)
        return 1
    cmd = args[0]
    if cmd == "check":
        return check_seeds(args[1:])
    if cmd == "selftest":
        import selftest
        return selftest.main(sys.modules[__name__], args[1:])
    if cmd == "run":
        bad = 0
        for s in args[1:]:
            sc, v, st = run_seed(int(s))
            if v:
                bad += 1
                print("seed %s: FAIL %s" % (s, v))
            else:
                print("seed %s: %s (%d commands)" % (s, "abandoned: " + st["abandoned"]
                                                      if st.get("abandoned") else "ok", st["cmds"]))
        return 1 if bad else 0
    if cmd == "soak":
        return soak(float(args[1]), int(args[2]) if len(args) > 2 else None)
    if cmd == "replay":
        bad = 0
        for f in args[1:]:
            with open(f) as fh:
                sc = json.load(fh)
            v = Run(sc).go()
            if v and sc.get("expect") and not v.inv == sc["expect"]:
                pass
            print("%s: %s" % (f, "FAIL %s" % v if v else "ok"))
            bad += v is not None
        return 1 if bad else 0
    if cmd == "shrink":
        a = args[1]
        if os.path.exists(a):
            with open(a) as fh:
                sc = json.load(fh)
        else:
            sc = gen_scenario(int(a))
        v = Run(sc).go()
        if not v:
            print("no failure to shrink")
            return 0
        print("shrinking: %s" % v, file=sys.stderr)
        small = shrink(sc, v.sig, say=lambda m: print(m, file=sys.stderr))
        small["shrunk"] = True
        small["inv"] = v.inv
        out = args[2] if len(args) > 2 else None
        if out:
            with open(out, "w") as fh:
                json.dump(small, fh, indent=1, ensure_ascii=True)
                fh.write("\n")
        print(script(small))
        return 0
    if cmd == "script":
        with open(args[1]) as fh:
            print(script(json.load(fh)))
        return 0
    print(__doc__)
    return 2


def load_known(path):
    """Known defects: lines 'REGEX<TAB>what', matched against Violation.long."""
    out = []
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    rx, _, what = line.rstrip("\n").partition("\t")
                    out.append((re.compile(rx), what.strip()))
    return out


def known_as(v, known):
    for rx, what in known:
        if rx.search(v.long):
            return what
    return None


def check_seeds(args):
    """make check: seeds FROM..TO within SECONDS, then every regression.

    A failure listed in known-defects is printed as KNOWN and does not fail
    the run (a defect already filed, not yet fixed on this branch)."""
    here = os.path.dirname(os.path.abspath(__file__))
    known = load_known(os.path.join(here, "known-defects"))
    first, last = (int(x) for x in args[0].split(".."))
    seconds = float(args[1]) if len(args) > 1 else 120
    t0 = time.time()
    bad = ran = nk = 0
    for seed in range(first, last + 1):
        if time.time() - t0 > seconds:
            break
        sc, v, st = run_seed(seed)
        ran += 1
        if st.get("abandoned"):
            print("seed %d: abandoned: %s" % (seed, st["abandoned"]))
        if v:
            k = known_as(v, known)
            if k:
                nk += 1
                print("seed %d: KNOWN (%s): %s" % (seed, k, str(v).splitlines()[0]))
            else:
                bad += 1
                print("seed %d: FAIL %s" % (seed, v))
                print("  reproduce: %s shrink %d" % (sys.argv[0], seed))
    regs = sorted(f for f in os.listdir(os.path.join(here, "regressions")) if f.endswith(".json"))
    for f in regs:
        with open(os.path.join(here, "regressions", f)) as fh:
            v = Run(json.load(fh)).go()
        print("regression %s: %s" % (f, "FAIL %s" % v if v else "ok"))
        bad += v is not None
    # Pending ones show a defect not fixed here: they should still fail, on
    # their invariant; one that passes tells that its fix is in (rename it).
    for f in sorted(f for f in os.listdir(os.path.join(here, "regressions")) if f.endswith(".pending")):
        with open(os.path.join(here, "regressions", f)) as fh:
            sc = json.load(fh)
        v = Run(sc).go()
        timed = any((s["cmd"].get("fault") or {}).get("ms") is not None for s in sc["steps"])
        print("pending %s: %s" % (f, "still fails (%s)" % v.inv if v else
                                  "passes this time (its kill is timed: run it a few times)" if timed else
                                  "PASSES now: its fix is in, rename it to .json"))
    print("scenario: %d seeds (%d..%d) in %.0f s, %d known defects met, %d regressions, %d failures"
          % (ran, first, first + ran - 1, time.time() - t0, nk, len(regs), bad))
    return 1 if bad else 0


def soak(seconds, seed=None):
    """New seeds for SECONDS: rates, coverage, and what was found."""
    here = os.path.dirname(os.path.abspath(__file__))
    known = load_known(os.path.join(here, "known-defects"))
    seed = seed if seed is not None else int(time.time())
    first = seed
    t0 = time.time()
    n = cmds = 0
    cover = set()
    found, met = {}, {}
    gave_up = []
    while time.time() - t0 < seconds:
        sc, v, st = run_seed(seed)
        n += 1
        cmds += st["cmds"]
        if st.get("abandoned"):
            gave_up.append(seed)
        cover |= st["cover"]
        if v:
            k = known_as(v, known)
            if k:
                met.setdefault(k, []).append(seed)
            else:
                found.setdefault(v.sig, []).append(seed)
                print("seed %d: FAIL %s" % (seed, str(v).splitlines()[0]), flush=True)
        seed += 1
    dt = time.time() - t0
    print("soak: %d seeds (%d..%d) in %.0f s: %.2f seeds/s, %.2f commands/s"
          % (n, first, seed - 1, dt, n / dt, cmds / dt))
    for kind in ("option", "event", "fault", "fs", "modelled", "unmodelled", "abandoned"):
        xs = sorted(x for k, x in ((c[0], c[1]) for c in cover if len(c) == 2) if k == kind)
        print("  %s (%d): %s" % (kind, len(xs), ", ".join(xs)))
    modes = sorted({c[1] for c in cover if c[0] == "combo"})
    print("  options x events x faults (%d combinations met):" % len([c for c in cover if c[0] == "combo"]))
    for m in modes:
        evs = sorted({c[2] for c in cover if c[0] == "combo" and c[1] == m} - {"-"})
        fs = sorted({c[3] for c in cover if c[0] == "combo" and c[1] == m} - {"-"})
        print("    %-9s after %s; faults %s" % (m, ", ".join(evs) or "no event", ", ".join(fs) or "none"))
    if gave_up:
        print("  ABANDONED (outside fastcp, see above): %d seeds, e.g. %s"
              % (len(gave_up), " ".join(map(str, gave_up[:8]))))
    for what, seeds in sorted(met.items()):
        print("  KNOWN %s: %d seeds, e.g. %s" % (what, len(seeds), " ".join(map(str, seeds[:8]))))
    for sig, seeds in sorted(found.items()):
        print("  FOUND %s: seeds %s" % (sig, " ".join(map(str, seeds[:20]))))
    return 1 if found else 0


if __name__ == "__main__":
    # Started with SIGINT ignored (in the background of a script, nohup),
    # every fastcp run here would inherit it, and fastcp keeps a signal
    # ignored at its start ignored: the SIGINT faults stand for a user's ^C.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(main(sys.argv[1:]))
