#!/usr/bin/python3
"""scripts/layers.py: the floors of lib/ and the rules between them.

Usage: scripts/layers.py [--graph] [--top DIR] [--objects DIR]

DIR of --top: the project (default: the one this script is in).

Each file of lib/ stands on one floor: the folder it is in (lib/core/x.c is
on "core"); a file in no floor's folder breaks a rule. A file may use (include a header of, or call a function defined
in) its own floor and the floors its floor's line in FLOORS names; nothing
else. Uses are read two ways, because either alone can be fooled: the
#include "..." lines of the sources, and the symbols each object file of
DIR (default build/lib) takes from another (nm), which also catches a call
made through a prototype written out by hand. The policy floor decides and
never writes: its objects may take none of the calls in WRITES.

Prints each use that breaks a rule (file, what it uses, the two floors) and
exits 1 if there is one; with --graph, first the uses between floors with
their counts and any cycle between floors.
"""
import os
import re
import subprocess
import sys

# Bottom to top; each floor may use itself and these.
FLOORS = {
    "base": [],
    "core": ["base"],
    "engine": ["base", "core"],
    "dest": ["base", "core"],
    "policy": ["base", "core", "engine", "dest"],
    "tree": ["base", "core", "engine", "dest", "policy"],
    "dist": ["base", "core", "engine", "dest", "policy", "tree"],
    "face": ["base", "core", "engine", "dest", "policy", "tree", "dist"],
}

# What "writes" means for the policy floor: the calls that change a
# filesystem, from libc and from lib/base/sys.c's boundary.
WRITES = re.compile(
    r"^(fcp_sys_)?(write|pwrite|pwritev|writev|rename|renameat2?|unlink|"
    r"unlinkat|mkdir|mkdirat|linkat|symlinkat|fchmod|fchmodat|fchown|"
    r"fchownat|utimensat|futimens|fsetxattr|lsetxattr|fremovexattr|"
    r"lremovexattr|fallocate|ftruncate|copy_file_range|ioctl)$")


def floor_of(rel):
    """rel: a path under lib/; its floor is its folder ("?" for none)."""
    parts = rel.split("/")
    return parts[0] if len(parts) > 1 and parts[0] in FLOORS else "?"


def sources(top):
    out = []
    for d, _, files in os.walk(os.path.join(top, "lib")):
        for f in files:
            if f.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(d, f),
                                           os.path.join(top, "lib")))
    return sorted(out)


def resolve(rel, inc, known):
    """The file under lib/ that #include "inc" in lib/rel names, or None
    (config.h, the public header, a system header)."""
    here = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
    if here in known:
        return here
    if inc in known:
        return inc
    same = [k for k in known if os.path.basename(k) == os.path.basename(inc)
            and "/" in inc and k.endswith(inc)]
    return same[0] if len(same) == 1 else None


# The quoted includes that name no file of lib/: the build's probe and the
# public header. Any other one is named as a fault, so that a header the
# checker cannot place is never taken for a system header and let through.
OUTSIDE = {"config.h", "fastcp.h"}


def include_uses(top, files):
    known = set(files)
    uses, unknown = [], []
    for rel in files:
        for line in open(os.path.join(top, "lib", rel), errors="replace"):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if m:
                to = resolve(rel, m.group(1), known)
                if to and to != rel:
                    uses.append((rel, to, "includes " + m.group(1)))
                elif not to and m.group(1) not in OUTSIDE:
                    unknown.append(f"lib/{rel}: includes {m.group(1)}, "
                                   "which is no file of lib/")
    return uses, unknown


def nm(path, *flags):
    r = subprocess.run(["nm", *flags, path], capture_output=True, text=True)
    return r.stdout.splitlines() if r.returncode == 0 else []


def symbol_uses(top, objdir):
    """(source, defining source, 'calls SYM') for each symbol an object takes
    from another object of lib/, and the policy check's raw list."""
    objs = {}
    for d, _, fs in os.walk(objdir):
        for f in fs:
            src = os.path.relpath(os.path.join(d, f), objdir)[:-2] + ".c"
            # An object whose source is gone (moved or removed) is not read:
            # a build from before lib/ had floors still holds them.
            if f.endswith(".o") and os.path.exists(os.path.join(top, "lib", src)):
                objs[src] = os.path.join(d, f)
    defined = {}
    for src, o in objs.items():
        for line in nm(o, "--defined-only", "-g"):
            parts = line.split()
            if len(parts) == 3:
                defined[parts[2]] = src
    uses, taken = [], {}
    for src, o in objs.items():
        taken[src] = [l.split()[-1] for l in nm(o, "-u")]
        for sym in taken[src]:
            if sym in defined and defined[sym] != src:
                uses.append((src, defined[sym], "calls " + sym))
    return uses, taken


def cycles(edges):
    """Floors on a cycle of uses (each floor that reaches itself)."""
    reach = {a: set(bs) for a, bs in edges.items()}
    changed = True
    while changed:
        changed = False
        for a in reach:
            more = set()
            for b in reach[a]:
                more |= reach.get(b, set())
            if not more <= reach[a]:
                reach[a] |= more
                changed = True
    return sorted(a for a in reach if a in reach[a])


def main():
    args = sys.argv[1:]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    objdir = os.path.join(top, "build", "lib")
    graph = False
    while args:
        a = args.pop(0)
        if a == "--graph":
            graph = True
        elif a == "--top" and args:
            top = os.path.abspath(args.pop(0))
            objdir = os.path.join(top, "build", "lib")
        elif a == "--objects" and args:
            objdir = args.pop(0)
        else:
            sys.exit(__doc__)
    files = sources(top)
    uses, unknown = include_uses(top, files)
    taken = {}
    if os.path.isdir(objdir):
        more, taken = symbol_uses(top, objdir)
        uses += more
    else:
        print(f"layers: no objects in {objdir}: includes only (build first)")

    bad, edges, counts = list(unknown), {}, {}
    for f in files:
        if floor_of(f) == "?":
            bad.append(f"lib/{f}: in no floor's folder (lib/FLOOR/: {', '.join(FLOORS)})")
    for src, to, how in uses:
        a, b = floor_of(src), floor_of(to)
        if a == b:
            continue
        edges.setdefault(a, set()).add(b)
        counts[(a, b)] = counts.get((a, b), 0) + 1
        if a == "?" or b == "?" or b not in FLOORS.get(a, []):
            bad.append(f"lib/{src}: {how} (lib/{to}): {a} -> {b}")
    for src, syms in taken.items():
        if floor_of(src) == "policy":
            for sym in syms:
                if WRITES.match(sym):
                    bad.append(f"lib/{src}: calls {sym}: policy never writes")

    if graph:
        print("uses between floors (includes and calls):")
        for (a, b), n in sorted(counts.items()):
            ok = "" if b in FLOORS.get(a, []) else "   <- breaks a rule"
            print(f"  {a:>6} -> {b:<6} {n:4}{ok}", flush=True)
        loop = cycles(edges)
        print("floors on a cycle: " + (", ".join(loop) if loop else "none"))
    for line in sorted(set(bad)):
        print(line)
    print(f"layers: {len(set(bad))} uses break the rules" if bad
          else "layers: every use follows the rules")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
