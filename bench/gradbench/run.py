#!/usr/bin/env python3
"""Run cgp-ad on GradBench's C++ evals and check it against GradBench's own tools.

For each eval this script runs cgp-ad on bench/gradbench/tools/<eval>.cpp,
compiles the generated unit (g++ -O3, optionally clang++ too), builds
GradBench's finite-difference tool and, where there is one, its hand-written
"manual" tool, writes a small input of its own making, runs every tool on it
and compares their outputs. It prints one row per eval: whether cgp-ad
differentiates it (or the first line of its error), the largest relative
error against finite differences and against the manual tool, and the median
gradient / primal time ratio of each tool, from the evaluate timings that
GradBench's function_main prints. It is the harness behind README.md, kept
stdlib-only so that it runs wherever python3 does.
"""

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "tools")

# eval -> (primal function name, derivative function name). particle and
# saddle have no primal function in GradBench; their cgp-ad tools provide
# the "fr" variant only (see tools/particle.cpp).
FUNCTIONS = {
    "gmm": ("objective", "jacobian"),
    "ba": ("objective", "jacobian"),
    "ht": ("objective", "jacobian"),
    "lstm": ("objective", "jacobian"),
    "ode": ("primal", "gradient"),
    "det": ("primal", "gradient"),
    "llsq": ("primal", "gradient"),
    "lse": ("primal", "gradient"),
    "kmeans": ("cost", "dir"),
    "particle": (None, "fr"),
    "saddle": (None, "fr"),
}
EVALS = list(FUNCTIONS)

TOLERANCE = 1e-5  # on |a - b| / max(1, |b|)


# ---------------------------------------------------------------- inputs
# Small inputs, written from each eval's Input from_json, so that finite
# differences stay fast. Fixed seeds: the same input on every run.


def normal_rows(rng, rows, cols, scale=1.0):
    return [[rng.gauss(0, scale) for _ in range(cols)] for _ in range(rows)]


def uniform_rows(rng, rows, cols, lo=0.0, hi=1.0):
    return [[rng.uniform(lo, hi) for _ in range(cols)] for _ in range(rows)]


def gen_gmm(rng, d=3, k=4, n=20):
    return {
        "d": d, "k": k, "n": n,
        "alpha": [rng.gauss(0, 1) for _ in range(k)],
        "mu": normal_rows(rng, k, d),
        "q": normal_rows(rng, k, d, 0.5),
        "l": normal_rows(rng, k, d * (d - 1) // 2, 0.5),
        "x": normal_rows(rng, n, d),
        "gamma": 1.0, "m": 0,
    }


def gen_ba(rng):
    # One camera, point, weight and feature, which GradBench's from_json
    # replicates over n cameras, m points and p observations.
    cam = ([rng.uniform(-1, 1) for _ in range(3)]            # rotation
           + [rng.uniform(-5, 5) for _ in range(2)] + [-20.0]  # centre
           + [rng.uniform(300, 500)]                          # focal length
           + [rng.uniform(-10, 10) for _ in range(2)]         # principal pt
           + [rng.uniform(0, 0.1), rng.uniform(0, 0.01)])     # distortion
    return {
        "n": 3, "m": 5, "p": 10,
        "cam": cam,
        "x": [rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(0, 3)],
        "w": rng.uniform(0.2, 1.0),
        "feat": [rng.uniform(-100, 100), rng.uniform(-100, 100)],
    }


def mat_mul4(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)]
            for i in range(4)]


def rigid(rng, angle, shift):
    """A 4 x 4 rotation (about a random axis) plus translation, row-major."""
    ax = [rng.gauss(0, 1) for _ in range(3)]
    nrm = math.sqrt(sum(v * v for v in ax))
    x, y, z = (v / nrm for v in ax)
    t = rng.uniform(-angle, angle)
    c, s = math.cos(t), math.sin(t)
    r = [[c + x * x * (1 - c), x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
         [y * x * (1 - c) + z * s, c + y * y * (1 - c), y * z * (1 - c) - x * s],
         [z * x * (1 - c) - y * s, z * y * (1 - c) + x * s, c + z * z * (1 - c)]]
    tr = [rng.uniform(-shift, shift) for _ in range(3)]
    return [r[0] + [tr[0]], r[1] + [tr[1]], r[2] + [tr[2]], [0.0, 0.0, 0.0, 1.0]]


def rigid_inverse(m):
    rt = [[m[j][i] for j in range(3)] for i in range(3)]
    t = [-sum(rt[i][k] * m[k][3] for k in range(3)) for i in range(3)]
    return [rt[0] + [t[0]], rt[1] + [t[1]], rt[2] + [t[2]], [0.0, 0.0, 0.0, 1.0]]


def gen_ht(rng):
    # A synthetic hand: 22 bones (to_pose_params reads 25 pose columns, that
    # is 22 bones + 3): a root, five fingers of four bones, a forearm.
    nbones, nverts, ntri, ncorr = 22, 30, 20, 8
    parents = [-1]
    for f in range(5):
        parents += [0, 1 + 4 * f, 2 + 4 * f, 3 + 4 * f]
    parents.append(0)
    rel = [rigid(rng, 0.5, 1.0) for _ in range(nbones)]
    absolute = []
    for i in range(nbones):
        absolute.append(rel[i] if parents[i] < 0
                        else mat_mul4(absolute[parents[i]], rel[i]))
    weights = []
    for _ in range(nverts):
        w = [0.0] * nbones
        for b in rng.sample(range(nbones), 3):
            w[b] = rng.uniform(0.1, 1.0)
        tot = sum(w)
        weights.append([v / tot for v in w])
    return {
        "theta": [rng.uniform(-0.3, 0.3) for _ in range(26)],
        "us": uniform_rows(rng, ncorr, 2, 0.1, 0.45),
        "data": {
            "correspondences": [rng.randrange(ntri) for _ in range(ncorr)],
            "points": uniform_rows(rng, ncorr, 3, -2, 2),
            "model": {
                "bone_names": ["bone%d" % i for i in range(nbones)],
                "parents": parents,
                "is_mirrored": False,
                "base_positions": [[rng.uniform(-2, 2) for _ in range(3)] + [1.0]
                                   for _ in range(nverts)],
                "weights": weights,
                "triangles": [rng.sample(range(nverts), 3) for _ in range(ntri)],
                "base_relatives": rel,
                "inverse_base_absolutes": [rigid_inverse(a) for a in absolute],
            },
        },
    }


def gen_lstm(rng):
    l, b, c = 2, 4, 5  # layers, character bits, characters
    return {
        "main_params": uniform_rows(rng, 2 * l, 4 * b),
        "extra_params": uniform_rows(rng, 3, b),
        "state": uniform_rows(rng, 2 * l, b),
        "sequence": [[float(rng.random() < 0.5) for _ in range(b)]
                     for _ in range(c)],
    }


def gen_ode(rng):
    return {"x": [rng.random() for _ in range(8)], "s": 10}


def gen_det(rng):
    ell = 5
    return {"A": [rng.random() for _ in range(ell * ell)], "ell": ell}


def gen_llsq(rng, m=8, n=64):
    return {"x": [rng.random() for _ in range(m)], "n": n}


def gen_lse(rng, n=64):
    return {"x": [rng.random() for _ in range(n)]}


def gen_kmeans(rng, k=4, n=50, d=3):
    return {"points": uniform_rows(rng, n, d), "centroids": uniform_rows(rng, k, d)}


def gen_particle(rng):
    return {"w": 0.0}


def gen_saddle(rng):
    return {"start": [1.0, 1.0]}


GENERATORS = {name: globals()["gen_" + name] for name in EVALS}

# --large: the timed runs take the sizes of GradBench's default inputs for
# the evals whose inputs this script can write at those sizes (ba's come
# from a data file, ht's and lstm's from the hand and text models).
LARGE = {
    "gmm": lambda rng: gen_gmm(rng, d=10, k=25, n=1000),
    "llsq": lambda rng: gen_llsq(rng, m=128, n=4096),
    "lse": lambda rng: gen_lse(rng, n=160000),
    "kmeans": lambda rng: gen_kmeans(rng, k=100, n=1000, d=8),
}


# ---------------------------------------------------------------- building


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


def first_error(text):
    for line in text.splitlines():
        if ": error: " in line or line.startswith("error:"):
            return line.strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[0].strip() if lines else "(no message)"


def stale(target, sources):
    if not os.path.exists(target):
        return True
    t = os.path.getmtime(target)
    return any(os.path.getmtime(s) > t for s in sources if os.path.exists(s))


def compile_exe(cxx, sources, exe, includes, libs, log, deps=()):
    """Build exe unless it is newer than its sources; return an error or None."""
    if not stale(exe, list(sources) + list(deps)):
        return None
    cmd = (["nice", cxx, "-std=c++17", "-O3", "-Wno-unknown-pragmas"]
           + ["-I" + i for i in includes] + list(sources) + ["-o", exe] + libs)
    p = run(cmd)
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + p.stdout + p.stderr)
    if p.returncode != 0:
        if os.path.exists(exe):
            os.remove(exe)
        return first_error(p.stderr)
    return None


# ---------------------------------------------------------------- running


def run_tool(exe, input_file, function, timeout):
    """Run a GradBench tool; return (output JSON, evaluate nanoseconds) or raise."""
    p = run([exe, input_file, function], timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("%s %s: exit %d: %s" % (os.path.basename(exe), function,
                                                   p.returncode, first_error(p.stderr + p.stdout)))
    lines = p.stdout.splitlines()
    output = json.loads(lines[0])
    times = []
    for line in lines[1:]:
        rec = json.loads(line)
        if rec.get("name") == "evaluate":
            times.append(rec["nanoseconds"])
    return output, times


def flatten(value):
    if isinstance(value, dict):
        out = []
        for key in sorted(value):
            out += flatten(value[key])
        return out
    if isinstance(value, list):
        out = []
        for v in value:
            out += flatten(v)
        return out
    return [float(value)]


def max_rel_err(got, want):
    a, b = flatten(got), flatten(want)
    if len(a) != len(b):
        return None, "%d values vs %d" % (len(a), len(b))
    err = 0.0
    for x, y in zip(a, b):
        if math.isnan(x) or math.isnan(y):
            return float("nan"), None
        err = max(err, abs(x - y) / max(1.0, abs(y)))
    return err, None


def fmt_err(err, note):
    if note:
        return "shape: " + note
    if err is None:
        return "-"
    mark = "ok" if err <= TOLERANCE else "WRONG"
    return "%.1e %s" % (err, mark)


def timing(exe, input_file, prim_fn, grad_fn, runs, timeout, data=None):
    """Median gradient / primal time ratio, and the median gradient time,
    on `data` (default: the input file's)."""
    if data is None:
        with open(input_file) as f:
            data = json.load(f)
    data = dict(data, min_runs=runs)
    timed = input_file.replace(".json", ".timed.json")
    with open(timed, "w") as f:
        json.dump(data, f)
    _, g = run_tool(exe, timed, grad_fn, timeout)
    gmed = statistics.median(g)
    if prim_fn is None:
        return None, gmed
    _, p = run_tool(exe, timed, prim_fn, timeout)
    return gmed / max(1.0, statistics.median(p)), gmed


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gradbench", required=True, help="a GradBench checkout")
    ap.add_argument("--cgp-ad", default="cgp-ad", help="the cgp-ad executable")
    ap.add_argument("--prefix", help="where cgp-ad's include/ and lib/ live "
                    "(default: the folder above the tool's bin/)")
    ap.add_argument("--workdir", default=os.path.join(
        os.environ.get("TMPDIR", "/tmp"), "cgp-gradbench"),
        help="build and scratch folder (default: $TMPDIR/cgp-gradbench)")
    ap.add_argument("--clang", action="store_true",
                    help="also build cgp-ad's output with clang++ and time it")
    ap.add_argument("--runs", type=int, default=10,
                    help="min_runs for the timings (default 10)")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds allowed to one tool run")
    ap.add_argument("--strategy", help="passed to cgp-ad as --strategy=...")
    ap.add_argument("--large", action="store_true",
                    help="time gmm, llsq, lse and kmeans on GradBench's default sizes "
                    "(not the finite-difference tool, which would take minutes)")
    ap.add_argument("evals", nargs="*", help="evals to run (default: all 11)")
    args = ap.parse_args()

    tool = shutil.which(args.cgp_ad) or args.cgp_ad
    if not os.path.exists(tool):
        sys.exit("run.py: cgp-ad not found: %s" % args.cgp_ad)
    tool = os.path.abspath(tool)
    prefix = os.path.abspath(args.prefix or os.path.dirname(os.path.dirname(tool)))
    gb = os.path.abspath(args.gradbench)
    gb_cpp = os.path.join(gb, "cpp")
    if not os.path.exists(os.path.join(gb_cpp, "gradbench", "main.hpp")):
        sys.exit("run.py: no cpp/gradbench/main.hpp under %s" % gb)
    evals = args.evals or EVALS
    for e in evals:
        if e not in FUNCTIONS:
            sys.exit("run.py: unknown eval %s (known: %s)" % (e, " ".join(EVALS)))

    work = os.path.abspath(args.workdir)
    shim = os.path.join(work, "shim")
    gen = os.path.join(work, "generated")
    for d in (work, shim, gen):
        os.makedirs(d, exist_ok=True)
    # GradBench's headers include "json.hpp", nlohmann's single header; the
    # system copy lives at <nlohmann/json.hpp>.
    shim_hdr = os.path.join(shim, "json.hpp")
    if not os.path.exists(shim_hdr):
        with open(shim_hdr, "w") as f:
            f.write("// Points GradBench's \"json.hpp\" at the system's nlohmann json.\n"
                    "#pragma once\n#include <nlohmann/json.hpp>\n")

    includes = [gb_cpp, shim, os.path.join(prefix, "include")]
    cgp_libs = ["-L" + os.path.join(prefix, "lib"), "-lcgp_rt", "-lm"]
    gb_deps = [os.path.join(gb_cpp, "gradbench", "main.hpp")]

    print("cgp-ad: %s" % tool, flush=True)
    print("GradBench: %s   work: %s   runs: %d" % (gb, work, args.runs), flush=True)
    rows, notes, results = [], [], {}
    for name in evals:
        prim_fn, grad_fn = FUNCTIONS[name]
        res = {"eval": name}
        results[name] = res
        t0 = time.time()
        input_file = os.path.join(work, name + ".json")
        with open(input_file, "w") as f:
            json.dump(GENERATORS[name](random.Random(31337)), f)

        # 1. cgp-ad on the tool source.
        src = os.path.join(TOOLS, name + ".cpp")
        cmd = [tool, src, "-o", gen]
        if args.strategy:
            cmd.append("--strategy=" + args.strategy)
        cmd += ["--", "-std=c++17"] + ["-I" + i for i in includes]
        p = run(cmd)
        with open(os.path.join(work, name + ".cgp-ad.log"), "w") as f:
            f.write(" ".join(cmd) + "\n" + p.stdout + p.stderr)
        if p.returncode != 0:
            res["differentiates"] = False
            res["error"] = first_error(p.stderr) if p.returncode != -11 else \
                "cgp-ad crashed (signal 11)"
            if p.returncode < 0 or p.returncode > 2:
                res["error"] = "cgp-ad exit %d: %s" % (p.returncode, res["error"])
        else:
            res["differentiates"] = True

        # 2. The executables: cgp-ad's (g++, clang++), finite, manual.
        exes = {}
        unit = os.path.join(gen, name + ".cgp.cpp")
        if res["differentiates"]:
            compilers = [("cgp", "g++")] + ([("cgp-clang", "clang++")] if args.clang else [])
            for key, cxx in compilers:
                exe = os.path.join(work, "%s-%s" % (name, key))
                err = compile_exe(cxx, [unit], exe, includes, cgp_libs,
                                  exe + ".log", gb_deps)
                if err:
                    res[key + "_build"] = err
                    notes.append("%s: %s build of cgp-ad's output failed: %s" % (name, cxx, err))
                else:
                    exes[key] = exe
        for kind in ("finite", "manual"):
            tsrc = os.path.join(gb, "tools", kind, name + ".cpp")
            if not os.path.exists(tsrc):
                continue
            exe = os.path.join(work, "%s-%s" % (name, kind))
            err = compile_exe("g++", [tsrc], exe,
                              [os.path.join(gb, "tools", kind)] + includes[:2],
                              ["-lm"], exe + ".log", gb_deps)
            if err:
                notes.append("%s: GradBench's %s tool did not build: %s" % (name, kind, err))
            else:
                exes[kind] = exe

        # 3. Outputs, compared with finite differences and the manual tool.
        outputs = {}
        for key, exe in exes.items():
            try:
                outputs[key], _ = run_tool(exe, input_file, grad_fn, args.timeout)
            except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
                notes.append("%s: %s" % (name, e))
                res[key + "_run"] = str(e)
        for ref in ("finite", "manual"):
            if "cgp" in outputs and ref in outputs:
                err, note = max_rel_err(outputs["cgp"], outputs[ref])
                res["err_vs_" + ref] = err
                res["err_vs_" + ref + "_note"] = note
        if "cgp-clang" in outputs and "cgp" in outputs:
            err, _ = max_rel_err(outputs["cgp-clang"], outputs["cgp"])
            res["clang_vs_gcc"] = err
            if err is None or not err <= TOLERANCE:
                notes.append("%s: clang++ and g++ builds of cgp-ad's output disagree (%s)"
                             % (name, err))

        # 4. Timings: gradient / primal medians, each tool on its own primal.
        large = LARGE[name](random.Random(31337)) if args.large and name in LARGE else None
        res["timed_large"] = large is not None
        for key, exe in exes.items():
            if key not in outputs or (large is not None and key == "finite"):
                continue
            try:
                ratio, gns = timing(exe, input_file, prim_fn, grad_fn, args.runs,
                                    args.timeout, large)
                res["ratio_" + key] = ratio
                res["grad_ns_" + key] = gns
            except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
                notes.append("%s: timing %s: %s" % (name, key, e))
        res["seconds"] = time.time() - t0
        rows.append(res)
        print("  %-9s done in %.0f s" % (name, res["seconds"]), file=sys.stderr)

    # The table.
    def ratio(r, key):
        v = r.get("ratio_" + key)
        if v is not None:
            return "%.1f" % v
        g = r.get("grad_ns_" + key)
        return ("%.0f us" % (g / 1e3)) if g is not None else "-"

    cols = ["eval", "differentiates", "vs finite", "vs manual",
            "cgp g/p"] + (["cgp clang g/p"] if args.clang else []) + \
           ["finite g/p", "manual g/p"]
    table, footnotes = [], []
    for i, r in enumerate(rows):
        if r["differentiates"]:
            d = "yes"
        else:
            d = "no [%d]" % (i + 1)
            footnotes.append("[%d] %s: %s" % (i + 1, r["eval"], r["error"]))
        line = [r["eval"] + (" (default size)" if r.get("timed_large") else ""), d,
                fmt_err(r.get("err_vs_finite"), r.get("err_vs_finite_note")),
                fmt_err(r.get("err_vs_manual"), r.get("err_vs_manual_note")),
                ratio(r, "cgp")]
        if args.clang:
            line.append(ratio(r, "cgp-clang"))
        line += [ratio(r, "finite"), ratio(r, "manual")]
        table.append(line)
    widths = [max(len(c), *(len(t[j]) for t in table)) for j, c in enumerate(cols)]
    print()
    print("| " + " | ".join(c.ljust(w) for c, w in zip(cols, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for t in table:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(t, widths)) + " |")
    print()
    print("vs finite / vs manual: largest |cgp - ref| / max(1, |ref|) over the "
          "output (ok below %g); g/p: median gradient / primal evaluate time "
          "(particle, saddle: median time of the fr function, no primal); "
          "(default size): timed on GradBench's default sizes (--large), the "
          "finite-difference tool not timed." % TOLERANCE)
    print("differentiates: %d of %d" % (sum(r["differentiates"] for r in rows), len(rows)))
    for n in footnotes + notes:
        print(n)
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    wrong = [r["eval"] for r in rows
             if r.get("err_vs_finite") is not None and not r["err_vs_finite"] <= TOLERANCE]
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
