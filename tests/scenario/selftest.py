"""The tester tested: each invariant catches a planted defect.

Each mutant is a wrapper script standing in for fastcp: it runs the real
binary and then misbehaves in one way (deletes a source file, corrupts a
byte, exits 0 after a failure, ...). A small fixed scenario is run twice:
with the real fastcp it must pass (so the finding is the mutant's), and with
the wrapper it must fail on the named invariant. Run by
`scenario.py selftest [NAME...]` and tests/e2e/scenario_selftest.sh.
"""
import os
import stat
import tempfile

MT = 1600000000 * 10**9 + 123456789


def world(older=False, user=False):
    ops = [{"op": "dir", "p": p, "m": 0o755, "keep": True} for p in ("sent", "s1", "d")]
    ops += [{"op": "file", "p": "sent/keep", "tok": "sentinel", "sz": 500, "mt": MT, "m": 0o644},
            {"op": "dir", "p": "s1/data", "m": 0o755},
            {"op": "dir", "p": "s1/data/sub", "m": 0o750},
            {"op": "file", "p": "s1/data/a", "tok": "alpha", "sz": 3000, "mt": MT, "m": 0o644},
            {"op": "file", "p": "s1/data/sub/c", "tok": "gamma", "sz": 70000, "mt": MT + 5, "m": 0o600},
            {"op": "hlink", "p": "s1/data/sub/h", "to": "s1/data/a"},
            {"op": "sym", "p": "s1/data/l", "tg": "sub/c"}]
    if older:
        ops += [{"op": "dir", "p": "d/data", "m": 0o755},
                {"op": "file", "p": "d/data/a", "tok": "old", "sz": 100, "mt": MT - 10**9, "m": 0o644},
                {"op": "file", "p": "d/data/extra", "tok": "extra", "sz": 10, "mt": MT, "m": 0o644}]
    return {"name": "data", "ops": ops, "user": user, "dest_tmpfs": False, "mounts": False}


def cmd(mode, **kw):
    c = {"mode": mode, "srcs": ["s1/data"], "dest": "d/", "T": False, "mods": [], "fault": None}
    c.update(kw)
    return c


def steps(*cs, ev=None):
    return [{"ev": (ev or {}).get(i, []), "cmd": c} for i, c in enumerate(cs)]


FLIP = [{"e": "dst_flip", "k": 7}]

# name: (what the wrapper does after the real run, scenario, invariant)
MUTANTS = {
    "deletes-source": (
        'rm -f s1/data/a', world(), steps(cmd("copy")), "source-unchanged"),
    "move-drops-copy": (
        'case " $* " in *" --move "*) rm -f d/data/sub/c ;; esac', world(),
        steps(cmd("move")), "no-byte-lost"),
    "corrupts-byte": (
        'f=d/data/sub/c; [ -f $f ] && { t=$(stat -c %y $f); printf Z | dd of=$f bs=1 seek=9 conv=notrunc status=none; touch -d "$t" $f; }',
        world(), steps(cmd("copy")), "no-partial-file"),
    "truncates": (
        '[ -f d/data/sub/c ] && truncate -s 4096 d/data/sub/c', world(), steps(cmd("sync")),
        "no-partial-file"),
    "skips-file-exit-0": (
        'rm -f d/data/sub/c; exit 0', world(older=True), steps(cmd("sync")), "model"),
    "keeps-stale-file": (
        # bytes DEST held before (so no-partial-file cannot tell), under another name
        'f=d/data/sub/c; if [ -f $f ]; then t=$(stat -c %y $f); cat d/data/extra >$f; touch -d "$t" $f; fi',
        world(older=True), steps(cmd("checksum")), "model"),
    "deletes-nothing": (
        # --mirror that forgets to delete the extra, and says all is well
        '[ -e d/data/extra ] || { yes extra | head -c 10 >d/data/extra; }', world(older=True),
        steps(cmd("mirror")), "model"),
    "writes-sentinel": (
        'echo x >>sent/keep', world(), steps(cmd("copy")), "sentinel"),
    "check-lies": (
        'case " $* " in *" --check "*) exit 0 ;; esac', world(),
        steps(cmd("copy"), cmd("check"), ev={1: FLIP}), "check-truth"),
    "manifest-check-lies": (
        'case " $* " in *" --check "*) exit 0 ;; esac', world(),
        # The first check records the hashes a plain copy did not; the
        # second must find the flipped byte.
        steps(cmd("copy", man="m.db"), dict(cmd("checkman"), srcs=[], dest="d"),
              dict(cmd("checkman"), srcs=[], dest="d"), ev={2: FLIP}),
        "manifest-truth"),
    "leaves-temp": (
        '[ $rc = 0 ] && [ -d d/data ] && : >d/data/.fcp-0123456789abcdef-0-0', world(),
        steps(cmd("copy")), "no-temp-after-success"),
    "silent-failure": (
        'exit 1', world(), steps(cmd("copy")), "failure-named"),
    "refuses-after-writing": (
        'exit 2', world(), steps(cmd("copy")), "refusal-changes-nothing"),
    "two-hidden-copies": (
        'for x in 1 2; do mkdir -p d/.fcp-000000000000000$x-0-0; '
        'setfattr -n user.fastcp.root -v data d/.fcp-000000000000000$x-0-0; done',
        world(), steps(cmd("copy")), "one-hidden-copy"),
    "deletes-manifest": (
        'rm -f d/data/m.db', world(older=True),
        steps(cmd("sync", man="d/data/m.db", dest="d/data", T=True)), "job-files-kept"),
    "rerun-does-not-converge": (
        # killed in its first run (before the real one starts); the same
        # command again then leaves a file out and says all is well
        ('if [ ! -e .killed-once ]; then : >.killed-once; exec sleep 5; fi', 'rm -f d/data/sub/c; exit 0'),
        world(), steps(cmd("copy", fault={"sig": "KILL", "ms": 300})), "convergence"),
    # Faults (faultfs between fastcp and s1 or DEST: its operands are f1/, fd/).
    "eio-exit-0": (
        # a read that failed at a range, and the copy says all is well
        'case " $* " in *" f1/"*) exit 0 ;; esac', world(),
        steps(cmd("copy", fault={"fs": "eio", "k": 1, "match": "c"})), "fault-reported"),
    "eio-unnamed": (
        ('exec 3>&2 2>/dev/null', 'case " $* " in *" f1/"*) [ $rc = 0 ] || echo "fastcp: a copy failed" >&3 ;; esac'),
        world(), steps(cmd("copy", fault={"fs": "eio", "k": 1, "match": "c"})), "failure-named"),
    "enospc-exit-0": (
        'case " $* " in *" fd/"*) exit 0 ;; esac', world(),
        steps(cmd("copy", fault={"fs": "enospc", "k": 0})), "fault-reported"),
    "eio-partial-file": (
        # the failed file's first bytes left under its final name
        'case " $* " in *" f1/"*) [ $rc = 0 ] || head -c 100 s1/data/sub/c >d/data/sub/c ;; esac', world(),
        steps(cmd("copy", fault={"fs": "eio", "k": 1, "match": "c"})), "no-partial-file"),
    "short-read-rerun-lies": (
        # fails under short reads; the same command without them then drops a file
        ('[ -e .ran ] && again=1; : >.ran',
         '[ -n "$again" ] && { rm -f d/data/sub/c; exit 0; }; echo "fastcp: failed" >&2; exit 1'),
        world(), steps(cmd("copy", fault={"fs": "short", "k": 0})), "convergence"),
    "norename-rerun-lies": (
        ('[ -e .ran ] && again=1; : >.ran',
         '[ -n "$again" ] && { rm -f d/data/sub/c; exit 0; }; echo "fastcp: failed" >&2; exit 1'),
        world(), steps(cmd("copy", fault={"fs": "norename", "k": 0})), "convergence"),
    "killed-at-read-rerun-lies": (
        # SIGKILL once faultfs holds the read of sub/c at 8 KiB; the re-run drops it
        # (the kill ends this wrapper; the copy under it is let go and ends)
        ('[ -e .ran ] && again=1; : >.ran', '[ -n "$again" ] && { rm -f d/data/sub/c; exit 0; }'), world(),
        steps(cmd("copy", fault={"sig": "KILL", "at": 2, "match": "c"})), "convergence"),
    # Options.
    "parents-flattens": (
        'case " $* " in *" --parents "*) [ -d d/s1/data ] && mv d/s1/data d/data && rmdir d/s1 ;; esac',
        world(), steps(cmd("parents")), "model"),
    "interactive-ignores-no": (
        'case " $* " in *" -i "*) cp -p s1/data/a d/data/a ;; esac', world(older=True),
        steps(cmd("i", answer="n")), "model"),
    "dedup-hardlink-splits": (
        'if [ -f d/data/dup ]; then cp -p d/data/dup d/data/dup.x && mv d/data/dup.x d/data/dup; fi',
        dict(world(), ops=world()["ops"] + [
            {"op": "file", "p": "s1/data/dup", "tok": "alpha", "sz": 3000, "mt": MT + 9, "m": 0o600}]),
        steps(cmd("dedup_hl")), "dedup-links"),
    "splits-hard-links": (
        'if [ -f d/data/sub/h ]; then cp -p d/data/sub/h d/data/sub/h.x && mv d/data/sub/h.x d/data/sub/h; fi',
        world(), steps(cmd("copy")), "model"),
}


def wrapper(dirname, name, real, snippet):
    pre, post = snippet if isinstance(snippet, tuple) else ("", snippet)
    pre, post = pre.replace("@REAL@", real), post.replace("@REAL@", real)
    p = os.path.join(dirname, name)
    with open(p, "w") as f:
        f.write("#!/bin/bash\n# fastcp with a planted defect: %s\n%s\n\"%s\" \"$@\"\nrc=$?\n%s\nexit $rc\n"
                % (name, pre, real, post))
    os.chmod(p, 0o755)
    return p


def main(mod, names):
    real = mod.FASTCP
    bad = 0
    if not mod.have_faultfs():  # say so: the faults' mutants need it
        print("skip the faults' mutants: no faultfs here (root, /dev/fuse and build/tests/lib/faultfs)")
        names = names or [n for n in MUTANTS if "fault': {" not in repr(MUTANTS[n][2])]
    with tempfile.TemporaryDirectory(prefix="fcp-mutants.") as tmp:
        for name, (snippet, w, st, inv) in MUTANTS.items():
            if names and name not in names:
                continue
            sc = {"seed": "selftest-" + name, "world": w, "steps": st}
            mod.FASTCP = real
            v = mod.Run(sc).go()
            if v is not None:
                print("FAIL %s: the real fastcp already fails the scenario: %s" % (name, v))
                bad += 1
                continue
            mod.FASTCP = wrapper(tmp, name, real, snippet)
            v = mod.Run(sc).go()
            mod.FASTCP = real
            if v is None:
                print("FAIL %s: the planted defect went unnoticed (want %s)" % (name, inv))
                bad += 1
            elif v.inv != inv:
                print("FAIL %s: caught by %s, want %s: %s" % (name, v.inv, inv, str(v).splitlines()[0]))
                bad += 1
            else:
                print("ok   %s: caught by %s: %s" % (name, v.inv, str(v).splitlines()[0]))
    print("selftest: %d mutants, %d not caught as expected" % (
        len([n for n in MUTANTS if not names or n in names]), bad))
    return 1 if bad else 0
