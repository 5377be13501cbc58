#!/usr/bin/env python3
"""run.py [--quick] [--write-docs] [--prefix P] [--cgp-ad PATH] [--cxx CXX]...: the
cgp-ad vs ADOL-C benchmark suite.

Builds every kernel of bench/suite (GMM at two sizes and in ADBench's packed
form, LSTM, bundle adjustment, RK4, mixture of experts, adaptive-step ODE,
Kepler orbit fit) into one program each, with each compiler (--cxx, given once
per compiler; default g++ and clang++-19 or clang++ when on PATH): the
primal, cgp-ad's gradient under its default plan, under --strategy=store-all
and under --memory-budget (the budget set at run time through
CGP_MEMORY_BUDGET to one eighth of store-all's peak tape), and ADOL-C's taping
+ reverse sweep of the same source. Then, per kernel and compiler: one check
process compares all gradients (relative 1e-8 against ADOL-C, plus central
finite differences) and stops the kernel loudly on a mismatch; then one
process per tool times it with Google Benchmark (median and minimum of --reps
repetitions) and reports peak tape bytes and peak RSS. It also times the
build of the default plan: the cgp-ad run, the compile of the generated unit
and the compile of the original kernel alone (median of --build-reps runs).
Prints a table per kernel and compiler, a summary with the targets, and the
build times; --write-docs writes the "Suite: cgp-ad vs ADOL-C" section of
docs/benchmarks.md and the plot docs/benchmarks-suite.png. --quick runs small
sizes and 3 repetitions (a smoke test; its numbers are not the suite's). Exit
status 1 if a gradient disagreed.

--clad DIR / --enzyme DIR add the peers built by bench/peers/build.sh (see
bench/peers/README.md and peers.py): with clang++ 19 only, each kernel's peer
gradient is built, checked and timed like cgp-ad's; a peer that is named but
missing is skipped with a message. Without them nothing about peers is done.
"""
import argparse, datetime, json, os, platform, shlex, shutil, statistics, subprocess, sys, time

import peers

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))

# name, source, compile definitions, kernel function, size argument (full, quick), what it is
INSTANCES = [
    ("gmm-d10-K25", "gmm", ["-DGMM_D=10", "-DGMM_K=25"], "gmm_objective", (1000, 100),
     "GMM log-likelihood with Wishart prior, d=10, K=25, N={n} points"),
    ("gmm-d64-K100", "gmm", ["-DGMM_D=64", "-DGMM_K=100"], "gmm_objective", (1000, 10),
     "GMM log-likelihood with Wishart prior, d=64, K=100, N={n} points"),
    ("lstm", "lstm", [], "lstm_loss", (1000, 50),
     "LSTM, hidden 128, input 64, {n} steps, softmax cross-entropy over 64 classes"),
    ("ba", "ba", [], "ba_objective", (10000, 1000),
     "bundle adjustment, 50 cameras, 2500 points, {n} observations"),
    ("rk4", "rk4", [], "rk4_loss", (10000, 1000),
     "RK4 integration of a 3-species Lotka-Volterra system, {n} steps of 0.002"),
    ("moe", "moe", [], "moe_loss", (1000, 100),
     "mixture of experts, top-1 (argmax) gate over 8 experts (MLP 64-128-64 each), {n} tokens"),
    ("ode-adaptive", "ode", [], "ode_loss", (20, 2),
     "adaptive-step Bogacki-Shampine 3(2) integration (a while loop, accept/reject) of a "
     "forced Van der Pol oscillator to t={n}, tol 1e-9, observed every 0.25"),
    ("gmm-packed", "gmm_packed", ["-DGMM_D=10", "-DGMM_K=25"], "gmm_packed_objective",
     (1000, 100), "GMM of gmm-d10-K25 written as ADBench publishes it (per point and component "
     "local xc and Qxc, the packed lower triangle walked column by column with a counter), "
     "d=10, K=25, N={n} points"),
    ("kepler", "kepler", [], "kepler_loss", (10000, 1000),
     "orbit fit: Kepler's equation solved by 16 Newton steps per observation, {n} "
     "observations, 7 parameters"),
]
VARIANTS = [("cgp", "--strategy=cgp"), ("storeall", "--strategy=store-all"),
            ("budget", "--memory-budget=1GiB")]
MODES = ["primal", "cgp", "store-all", "budget", "adolc", "fd"]
LABELS = {"primal": "primal", "cgp": "cgp-ad, default plan", "store-all": "cgp-ad, store-all",
          "budget": "cgp-ad, budget 1/8 store-all", "adolc": "ADOL-C (tape + reverse)",
          "fd": "central finite differences"}


def sh(cmd, env=None, check=True):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if check and r.returncode != 0:
        sys.stderr.write(f"command failed ({r.returncode}): {shlex.join(cmd)}\n{r.stdout}{r.stderr}")
        sys.exit(2)
    return r


PATTERN_KERNELS = ["gmm-packed"]  # the tape target: default plan >= 4x less tape than store-all


def compilers(args):
    """The compilers to build with: every --cxx given, else g++ and (when on PATH)
    clang++-19 or clang++."""
    if args.cxx:
        return args.cxx
    found = [shutil.which(c) and c for c in ("clang++-19", "clang++")]
    return ["g++"] + [c for c in found if c][:1]


def cxx_label(cxx):
    """A compiler's short name: in headings, results and build folder names."""
    return os.path.basename(cxx)


def cflags(inst, args, prefix):
    return ["-std=c++17"] + args.cxxflags.split() + ["-I", os.path.join(prefix, "include"),
                                                     "-I", here] + inst[2]


def tool_cmd(inst, option, cgp_ad, prefix, gen):
    """cgp-ad on a kernel's source, its output in the folder gen."""
    return [cgp_ad, option, os.path.join(here, f"{inst[1]}.cpp"), "-o", gen, "--", "-std=c++17",
            "-I", os.path.join(prefix, "include"), "-I", here] + inst[2]


def build(inst, cxx, args, cgp_ad, prefix, out):
    name, src, defs, fn, _, _ = inst
    os.makedirs(out, exist_ok=True)
    flags = cflags(inst, args, prefix)
    objs = []
    for variant, option in VARIANTS:
        gen = os.path.join(out, variant)
        sh(tool_cmd(inst, option, cgp_ad, prefix, gen))
        obj = os.path.join(out, f"{variant}.o")
        sh([cxx] + flags + [f"-D{fn}={fn}_{variant}", f"-D{fn}_grad={fn}_{variant}_grad",
                            "-c", os.path.join(gen, f"{src}.cgp.cpp"), "-o", obj])
        objs.append(obj)
    for what, path in (("primal", f"{src}.cpp"), ("main", f"main_{src}.cpp")):
        obj = os.path.join(out, f"{what}.o")
        sh([cxx] + flags + ["-c", os.path.join(here, path), "-o", obj])
        objs.append(obj)
    exe = os.path.join(out, "run")
    sh([cxx] + objs + ["-o", exe, "-L", os.path.join(prefix, "lib"), "-lcgp_rt", "-ladolc",
                       "-lbenchmark", "-lpthread", "-lm"])
    return exe


def timed(cmd):
    """Wall seconds of one command (which must succeed)."""
    start = time.perf_counter()
    sh(cmd)
    return time.perf_counter() - start


def build_times(inst, cxx, args, cgp_ad, prefix, out):
    """The build of the default plan, in wall seconds, median of args.build_reps
    runs of each step (after build() has warmed the file cache): the cgp-ad
    run, the compile (-c, the same flags) of the generated unit, which holds
    the kernel and its gradient, and the compile of the original kernel alone."""
    src, flags = inst[1], cflags(inst, args, prefix)
    work = os.path.join(out, "buildtime")
    os.makedirs(work, exist_ok=True)
    gen = os.path.join(work, "gen")
    runs = {"tool_s": [], "generated_s": [], "original_s": []}
    for _ in range(args.build_reps):
        # A fresh output folder: an unchanged input's stamp would let cgp-ad exit
        # before parsing (an incremental rebuild, not a build).
        shutil.rmtree(gen, ignore_errors=True)
        runs["tool_s"].append(timed(tool_cmd(inst, "--strategy=cgp", cgp_ad, prefix, gen)))
        runs["generated_s"].append(timed([cxx] + flags + [
            "-c", os.path.join(gen, f"{src}.cgp.cpp"), "-o", os.path.join(work, "generated.o")]))
        runs["original_s"].append(timed([cxx] + flags + [
            "-c", os.path.join(here, f"{src}.cpp"), "-o", os.path.join(work, "original.o")]))
    t = {k: statistics.median(v) for k, v in runs.items()}
    t["ratio"] = (t["tool_s"] + t["generated_s"]) / t["original_s"]
    t["runs"] = runs
    return t


def run_mode(exe, out, mode, n, args, env, tag=None):
    """Times one mode of exe; its files are named after tag (default: the mode)."""
    tag = tag or mode
    js, st = os.path.join(out, f"{tag}.gbench.json"), os.path.join(out, f"{tag}.stats.json")
    cmd = [exe, f"--mode={mode}", f"--n={n}", f"--ref={os.path.join(out, 'ref.bin')}",
           f"--stats={st}", f"--reps={args.slow_reps if mode in ('adolc', 'fd') else args.reps}",
           f"--benchmark_out={js}",
           "--benchmark_out_format=json", f"--benchmark_min_time={args.min_time}",
           "--benchmark_enable_random_interleaving=true"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=out)
    stats = json.load(open(st)) if os.path.exists(st) and os.path.getsize(st) else {}
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        return None, stats
    times = {}
    for b in json.load(open(js))["benchmarks"]:
        if b.get("run_type") == "aggregate":
            assert b["time_unit"] == "ms"
            which = "self" if b["run_name"].split("/")[1] == mode else "primal"
            times.setdefault(which, {})[b["aggregate_name"]] = b["cpu_time"]
            times[which]["real_" + b["aggregate_name"]] = b["real_time"]
    return times, stats


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def mib(b):
    return f"{b / 2**20:.2f}" if b < 10 * 2**20 else f"{b / 2**20:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, 3 repetitions")
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--cgp-ad", help="the cgp-ad to use (default: from PATH, else PREFIX/bin)")
    ap.add_argument("--prefix", help="cgp-ad's install prefix (include/cgp, lib/libcgp_rt.a); "
                    "default: CGP_PREFIX, else the folder above cgp-ad's bin/")
    ap.add_argument("--cxx", action="append", help="a compiler to build and time every kernel "
                    "with; give it once per compiler (default: g++ and, when on PATH, "
                    "clang++-19 or clang++)")
    ap.add_argument("--cxxflags", default="-O2")
    ap.add_argument("--reps", type=int, help="repetitions per measurement (11; quick: 3)")
    ap.add_argument("--slow-reps", type=int, help="repetitions of ADOL-C and finite "
                    "differences (5; quick: 3)")
    ap.add_argument("--min-time", type=float, help="seconds per repetition at least "
                    "(Google Benchmark's min_time; 0.3, quick: 0.05)")
    ap.add_argument("--build-reps", type=int, help="runs of each timed build step, whose "
                    "median is reported (3; quick: 1)")
    ap.add_argument("--plot-only", nargs=2, metavar=("RESULTS_JSON", "PNG"), help=argparse.SUPPRESS)
    ap.add_argument("--only", help="comma-separated kernel names (default: all)")
    ap.add_argument("--build-dir", default=os.path.join(root, "build", "bench", "suite"))
    ap.add_argument("--clad", metavar="DIR", help="also time Clad: its install folder from "
                    "bench/peers/build.sh (lib/clad.so, include/), e.g. build/bench/peers/clad")
    ap.add_argument("--enzyme", metavar="DIR", help="also time Enzyme: the folder holding "
                    "ClangEnzyme-19.so (or its Enzyme/), e.g. build/bench/peers/enzyme")
    ap.add_argument("--write-peers-docs", action="store_true", help="write only the Peers "
                    "section of docs/benchmarks.md (--write-docs writes it too)")
    args = ap.parse_args()
    if args.plot_only:
        plot(json.load(open(args.plot_only[0])), args.plot_only[1])
        return 0
    args.reps = args.reps or (3 if args.quick else 11)
    args.slow_reps = args.slow_reps or (3 if args.quick else 5)
    args.min_time = args.min_time if args.min_time is not None else (0.05 if args.quick else 0.3)
    args.build_reps = args.build_reps or (1 if args.quick else 3)

    prefix = args.prefix or os.environ.get("CGP_PREFIX")
    # --cgp-ad, else the prefix's own, else the one on PATH.
    cgp_ad = args.cgp_ad or (os.path.join(prefix, "bin", "cgp-ad") if prefix else
                             shutil.which("cgp-ad"))
    if cgp_ad and not prefix:
        prefix = os.path.dirname(os.path.dirname(os.path.realpath(cgp_ad)))
    if not cgp_ad or not os.path.exists(cgp_ad) or not os.path.exists(
            os.path.join(prefix, "include", "cgp", "runtime.h")):
        sys.exit("run.py: no cgp-ad: put it on PATH, or give --cgp-ad and/or --prefix "
                 "(an install prefix with bin/cgp-ad, include/cgp, lib/libcgp_rt.a)")
    cgp_ad = os.path.abspath(cgp_ad)
    prefix = args.prefix = os.path.abspath(prefix)

    args.load_before = open("/proc/loadavg").read().split()[0]
    instances = [i for i in INSTANCES if not args.only or i[0] in args.only.split(",")]
    args.compilers = compilers(args)
    args.peers = peers.find(args)
    results, failed = [], []
    for inst in instances:
        for cxx in args.compilers:
            results.append(run_kernel(inst, cxx, args, cgp_ad, prefix, failed))

    os.makedirs(args.build_dir, exist_ok=True)
    json.dump([{**r, "inst": r["inst"][0]} for r in results],
              open(os.path.join(args.build_dir, "results.json"), "w"), indent=1)
    args.load_after = open("/proc/loadavg").read().split()[0]
    tables, summary = render(results)
    build_table = render_build_times(results)
    print(tables)
    print(summary)
    print()
    print(build_table)
    peer_table = peers.render(results, args) if args.peers else ""
    if peer_table:
        print()
        print(peer_table)
    if failed:
        print("FAILED: " + ", ".join(failed))
    if args.write_docs:
        write_docs(args, results, tables, summary, build_table)
    if peer_table and (args.write_docs or args.write_peers_docs):
        peers.write_docs(args, peer_table)
    return 1 if failed else 0


def run_kernel(inst, cxx, args, cgp_ad, prefix, failed):
    """Builds one kernel with one compiler (in a folder of its own), times its
    build, checks its gradients and times each tool; returns its result (and
    appends what failed to failed)."""
    name, n, cc = inst[0], inst[4][1 if args.quick else 0], cxx_label(cxx)
    out = os.path.join(args.build_dir, cc, name)
    print(f"== {name} ({cc}): building", flush=True)
    exe = build(inst, cxx, args, cgp_ad, prefix, out)
    print(f"== {name} ({cc}): timing the build of the default plan", flush=True)
    result = {"inst": inst, "cxx": cc, "n": n, "build": build_times(inst, cxx, args, cgp_ad,
                                                                    prefix, out)}
    env = dict(os.environ)
    env.pop("CGP_MEMORY_BUDGET", None)
    env.pop("CGP_STATS", None)
    print(f"== {name} ({cc}): checking the gradients (n={n})", flush=True)
    st = os.path.join(out, "check.stats.json")
    r = subprocess.run([exe, "--mode=check", f"--n={n}", f"--ref={os.path.join(out, 'ref.bin')}",
                        f"--stats={st}"], capture_output=True, text=True, env=env, cwd=out)
    sys.stderr.write(r.stderr)
    result["check"] = check = \
        json.load(open(st)) if os.path.exists(st) and os.path.getsize(st) else {}
    result["modes"] = modes = {}
    if r.returncode != 0 or not check.get("ok"):
        print(f"!!!!!! {name} ({cc}): GRADIENTS DISAGREE (see above); not timed", flush=True)
        failed.append(f"{name} ({cc})")
        return result
    for mode in MODES:
        if mode == "fd" and check.get("fd_full_error", -1) < 0:
            continue
        menv = dict(env)
        if mode == "budget":
            menv["CGP_MEMORY_BUDGET"] = str(check["budget"])
        print(f"== {name} ({cc}): timing {mode}", flush=True)
        times, stats = run_mode(exe, out, mode, n, args, menv)
        if times is None:
            print(f"!!!!!! {name} ({cc}): {mode} FAILED its check against ADOL-C; not timed",
                  flush=True)
            failed.append(f"{name}/{mode} ({cc})")
            continue
        t, p = times["self"], times.get("primal", times["self"])
        modes[mode] = {"median_ms": t["median"], "min_ms": t["min"], "cv": t["cv"],
                       "real_median_ms": t["real_median"], "primal_median_ms": p["median"],
                       "ratio": t["median"] / p["median"], "ratio_min": t["min"] / p["min"],
                       **stats}
    for peer in args.peers:
        m = peers.run(peer, inst, cxx, args, cflags(inst, args, prefix), prefix, out, n, env,
                      result, run_mode)
        if m:
            modes[peer.name] = m
    return result


def render(results):
    out = []
    for r in results:
        name, _, _, _, _, what = r["inst"]
        c, m = r["check"], r["modes"]
        out.append(f"### {name} ({r['cxx']})\n\n{what.format(n=r['n'])} "
                   f"(`bench/suite/{r['inst'][1]}.cpp`, {c.get('parameters', '?')} parameters, "
                   f"n = {r['n']}, built with {r['cxx']}).\n")
        if not m:
            out.append("**Not timed: the gradients disagreed.**\n")
            continue
        out.append("| tool / plan | median CPU (ms) | min CPU (ms) | cv | gradient / primal "
                   "(median; min) | vs ADOL-C | peak tape (MiB) | peak RSS (MiB) | "
                   "RSS over data (MiB) |")
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        a = m.get("adolc", {}).get("ratio")
        for mode in MODES + peers.NAMES:
            if mode not in m:
                continue
            x = m[mode]
            if "error" in x:
                out.append(f"| {peers.LABELS[mode]} | {x['error']} |" + " |" * 7)
                continue
            ratio = "1" if mode == "primal" else f"{x['ratio']:.2f}; {x['ratio_min']:.2f}"
            vs = "" if mode in ("primal", "adolc") or not a else f"{a / x['ratio']:.1f}x faster"
            if mode == "primal" or mode in peers.NAMES:
                tape = "-"
            elif mode == "fd":
                tape = "0"
            else:
                tape = mib(x["tape_bytes"])
                if mode == "adolc" and not x.get("adolc_in_core", True):
                    tape += " (file)"
            rss = x["peak_rss_kb"] / 1024
            over = (x["peak_rss_kb"] - x["base_rss_kb"]) / 1024
            label = LABELS.get(mode) or peers.LABELS[mode]
            out.append(f"| {label} | {x['median_ms']:.3f} | {x['min_ms']:.3f} | "
                       f"{100 * x['cv']:.0f}% | {ratio} | "
                       f"{vs} | {tape} | {rss:.0f} | {over:.0f} |")
        errs = c.get("rel_error_vs_adolc", {})
        out.append(
            f"\nChecked before timing: cgp-ad vs ADOL-C, largest relative difference "
            f"{max(errs.values()) if errs else float('nan'):.1e} (tolerance 1e-8); cgp-ad's three "
            f"plans {'give the same bits' if c.get('same_bits') else 'DO NOT give the same bits'}; "
            f"directional central difference vs ADOL-C {c.get('fd_direction_error', float('nan')):.1e}"
            + (f"; full central differences {c['fd_full_error']:.1e}" if c.get("fd_full_error", -1) >= 0
               else "") +
            f". Budget {c.get('budget', 0)} B: {c.get('budget_replays', 0)} replayed iterations.\n")
    return "\n".join(out), render_summary(results)


def timed_fully(r):
    return all(k in r["modes"] for k in ("primal", "cgp", "store-all", "adolc"))


def render_summary(results):
    """One row per kernel: gradient/primal under the default plan with each
    compiler, then the first compiler's comparisons; then the targets."""
    ccs = list(dict.fromkeys(r["cxx"] for r in results))
    by = {(r["inst"][0], r["cxx"]): r for r in results if timed_fully(r)}
    names = list(dict.fromkeys(r["inst"][0] for r in results))
    first = ccs[0] if ccs else "?"
    # Peer columns (--clad, --enzyme) only when a peer ran.
    peer_cols = [(p, cc) for p in peers.NAMES for cc in ccs
                 if any(p in r["modes"] and r["cxx"] == cc for r in results)]
    lines = ["| kernel | " + " | ".join(f"default plan: gradient / primal, {cc} (median; min)"
                                        for cc in ccs) +
             f" | ADOL-C / cgp-ad time ({first}) | store-all tape / default tape ({first}) | "
             f"default time / store-all time ({first}; median; min) | cgp-ad tape / ADOL-C tape "
             f"({first}) |" + "".join(f" {peers.TITLES[p]}: gradient / primal, {cc} (median; "
                                      "min) |" for p, cc in peer_cols),
             "| --- " * (len(ccs) + 5 + len(peer_cols)) + "|"]
    for name in names:
        cells = []
        for cc in ccs:
            m = by[(name, cc)]["modes"] if (name, cc) in by else None
            cells.append(f"{m['cgp']['ratio']:.2f}; {m['cgp']['ratio_min']:.2f}" if m else "-")
        if (name, first) in by:
            m = by[(name, first)]["modes"]
            cells += [f"{m['adolc']['ratio'] / m['cgp']['ratio']:.1f}x",
                      f"{m['store-all']['tape_bytes'] / max(m['cgp']['tape_bytes'], 1):.2f}x",
                      f"{m['cgp']['ratio'] / m['store-all']['ratio']:.2f}x; "
                      f"{m['cgp']['ratio_min'] / m['store-all']['ratio_min']:.2f}x",
                      f"{100 * m['cgp']['tape_bytes'] / max(m['adolc']['tape_bytes'], 1):.1f}%"]
        else:
            cells += ["-"] * 4
        for p, cc in peer_cols:
            x = by[(name, cc)]["modes"].get(p) if (name, cc) in by else None
            cells.append("-" if x is None else peers.short(x) if "error" in x else
                         f"{x['ratio']:.2f}; {x['ratio_min']:.2f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if not by:
        return "\n".join(lines)
    lines.append("")
    # Issue 23's targets: gradient/primal median <= 2.5 and none above 3.5, with each compiler.
    for cc in ccs:
        ratios = [(r["modes"]["cgp"]["ratio"], n) for (n, c), r in by.items() if c == cc]
        if not ratios:
            continue
        med, worst = statistics.median(x for x, _ in ratios), max(ratios)
        missing = [n for n in names if (n, cc) not in by]
        lines.append(
            f"- {cc}: median gradient/primal under the default plan {med:.2f} (target at most "
            f"2.5: {'met' if med <= 2.5 else 'NOT met'}); largest {worst[0]:.2f} ({worst[1]}; "
            f"target none above 3.5: {'met' if worst[0] <= 3.5 else 'NOT met'})" +
            (f"; not timed: {', '.join(missing)}" if missing else "") + ".")
    speeds = {cc: [(r["modes"]["adolc"]["ratio"] / r["modes"]["cgp"]["ratio"], n)
                   for (n, c), r in by.items() if c == cc] for cc in ccs}
    lines.append("- cgp-ad at least 5x faster than ADOL-C on every kernel: " + "; ".join(
        f"{cc} {'met' if min(v)[0] >= 5 else 'NOT met'} (lowest {min(v)[0]:.1f}x, {min(v)[1]})"
        for cc, v in speeds.items() if v) + ".")
    tapes = [(n, cc, r["modes"]["store-all"]["tape_bytes"] / max(r["modes"]["cgp"]["tape_bytes"], 1))
             for (n, cc), r in by.items() if n in PATTERN_KERNELS]
    if tapes:
        ok = all(x >= 4 for _, _, x in tapes)
        lines.append("- Default plan tape at least 4x less than store-all on the pattern kernels "
                     f"({', '.join(PATTERN_KERNELS)}): {'met' if ok else 'NOT met'} (" +
                     "; ".join(f"{n}, {cc}: {x:.2f}x less" for n, cc, x in tapes) + ").")
    else:
        lines.append("- Default plan tape at least 4x less than store-all on the pattern kernels "
                     f"({', '.join(PATTERN_KERNELS)}): not measured in this run.")
    return "\n".join(lines)


def render_build_times(results):
    """The build-time table (default plan) and its target: (cgp-ad run + generated
    unit compile) / original compile, median over the suite, at most 3 with each
    compiler."""
    lines = ["| kernel | compiler | cgp-ad run (s) | generated unit compile (s) | "
             "original compile (s) | (cgp-ad + generated) / original |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in results:
        b = r["build"]
        lines.append(f"| {r['inst'][0]} | {r['cxx']} | {b['tool_s']:.2f} | {b['generated_s']:.2f} "
                     f"| {b['original_s']:.2f} | {b['ratio']:.2f}x |")
    lines.append("")
    for cc in dict.fromkeys(r["cxx"] for r in results):
        rs = [r for r in results if r["cxx"] == cc]
        med = statistics.median(r["build"]["ratio"] for r in rs)
        worst = max(rs, key=lambda r: r["build"]["ratio"])
        lines.append(f"- {cc}: median over the suite of (cgp-ad run + generated unit compile) / "
                     f"original compile {med:.2f}x (target at most 3x: "
                     f"{'met' if med <= 3 else 'NOT met'}); largest "
                     f"{worst['build']['ratio']:.2f}x ({worst['inst'][0]}).")
    return "\n".join(lines)


def plot(results, path):
    try:
        import matplotlib
    except ImportError:  # e.g. a pyenv python3 without the system's python3-matplotlib
        data = path + ".json"
        json.dump([{**r, "inst": r["inst"] if isinstance(r["inst"], str) else r["inst"][0]}
                   for r in results], open(data, "w"))
        try:
            for py in ("/usr/bin/python3", "/bin/python3"):
                if os.path.exists(py) and os.path.realpath(py) != os.path.realpath(sys.executable):
                    r = subprocess.run([py, os.path.abspath(__file__), "--plot-only", data, path])
                    if r.returncode == 0:
                        return
            print("run.py: no matplotlib; the plot was not drawn", file=sys.stderr)
        finally:
            os.remove(data)
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # The first compiler's results for every tool; the default plan's ratio with
    # the other compilers as extra bars on the left panel (tapes do not depend on
    # the compiler).
    inst = lambda r: r["inst"] if isinstance(r["inst"], str) else r["inst"][0]
    ccs = list(dict.fromkeys(r.get("cxx", "g++") for r in results))
    rs = [r for r in results if r.get("cxx", "g++") == ccs[0] and "primal" in r["modes"]]
    names = [inst(r) for r in rs]
    other = {(inst(r), r["cxx"]): r for r in results if r.get("cxx", "g++") != ccs[0]}
    tools = [("cgp", f"cgp-ad default ({ccs[0]})", None), ("store-all", "cgp-ad store-all", None),
             ("budget", "cgp-ad budget 1/8", None), ("adolc", "ADOL-C", None)]
    tools[1:1] = [("cgp", f"cgp-ad default ({cc})", cc) for cc in ccs[1:]]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 4.8))
    w = 0.8 / len(tools)
    for i, (mode, label, cc) in enumerate(tools):
        xs = [j + (i - (len(tools) - 1) / 2) * w for j in range(len(rs))]
        src = rs if cc is None else [other.get((n, cc), {"modes": {}}) for n in names]
        ratio = [r["modes"][mode]["ratio"] if mode in r["modes"] else 0 for r in src]
        ax1.bar(xs, ratio, w, label=label, color=f"C{i}")
        if cc is None:
            tape = [r["modes"][mode]["tape_bytes"] / 2**20 if mode in r["modes"] else 0
                    for r in rs]
            ax2.bar(xs, tape, w, label=label, color=f"C{i}")
    for ax, title in ((ax1, "gradient time / primal time (median)"),
                      (ax2, f"peak tape (MiB; ADOL-C: its tapestats; {ccs[0]})")):
        ax.set_yscale("log")
        ax.set_xticks(range(len(rs)))
        ax.set_xticklabels(names, rotation=20)
        ax.set_title(title)
        ax.grid(axis="y", which="both", alpha=0.3)
    ax1.axhline(2.5, color="gray", ls="--", lw=0.8)
    ax1.legend(fontsize=8)
    fig.suptitle("cgp-ad vs ADOL-C (bench/suite)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def write_docs(args, results, tables, summary, build_table):
    versions = "; ".join(f"{cxx_label(c)}: {sh([c, '--version']).stdout.splitlines()[0]}"
                         for c in args.compilers)
    cmd = "python3 bench/suite/run.py" + (" --quick" if args.quick else "") + " --write-docs" + \
          "".join(f" --cxx {c}" for c in args.cxx or []) + \
          f" --reps {args.reps} --slow-reps {args.slow_reps} --min-time {args.min_time}" + \
          f" --build-reps {args.build_reps}"
    setup = (
        f"Machine: {platform.machine()}, {cpu_model()}, {os.cpu_count()} cores (shared with other "
        f"work: read ratios, not absolute times). Compilers ({versions}), flags "
        f"`-std=c++17 {args.cxxflags}` for every part. ADOL-C {adolc_version()}, Google Benchmark "
        f"{gbench_version()}. Date: {datetime.date.today()}. Command: `{cmd}` (median and minimum "
        f"of {args.reps} repetitions, {args.slow_reps} for ADOL-C and finite differences, each at "
        f"least {args.min_time} s; load average {args.load_before} at the start, "
        f"{args.load_after} at the end).")
    section = (
        "## Suite: cgp-ad vs ADOL-C, with g++ and clang++\n\n" + setup + "\n\n"
        "*Gradient / primal* is the gradient's CPU time over the primal's, both timed in the same "
        "process with their repetitions interleaved, so that a ratio compares times taken under "
        "the same load. *Tape* is one call's peak (`CGP_STATS=1`'s `peak_tape_bytes`). Every "
        "gradient is checked against ADOL-C's (relative 1e-8) and central finite differences "
        "before it is timed. Per-kernel tables (times, peak memory, the budget plan, ADOL-C): "
        "[benchmarks-suite.md](benchmarks-suite.md).\n\n"
        + summary + "\n\n![gradient/primal and tape per kernel and tool]"
        "(benchmarks-suite.png)\n\n"
        "### Build time\n\n"
        "The default plan's build, wall time, median of " + str(args.build_reps) + " runs of "
        "each step: the cgp-ad run, the compile (`-c`, the same flags) of the generated unit "
        "`<kernel>.cgp.cpp`, and the compile of the original `<kernel>.cpp` alone. The "
        "generated unit holds the kernel as well as its gradient, so (cgp-ad run + generated "
        "unit compile) / original compile is the build time of the kernel and its gradient "
        "over the kernel's alone.\n\n" + build_table + "\n")
    details = (
        "<!-- benchmarks-suite.md - written by bench/suite/run.py --write-docs; do not edit. -->\n"
        "# Suite: every kernel, every tool\n\n" + setup + "\n\n"
        "Each kernel is one source file in cgp-ad's supported subset, written in terms of a "
        "`real` type; ADOL-C differentiates the same source with `real = adouble` "
        "(`trace_on` with Taylor values kept, `trace_off`, `fos_reverse`, every call: the "
        "kernels branch on active values, so a tape cannot be reused). ADOL-C's buffers are "
        "sized from a first tape so that the tape stays in memory; its tape bytes are "
        "`tapestats`' operations (1 B), locations (4 B), values and Taylor values (8 B). "
        "Times are CPU times. Every process also times the primal, its repetitions randomly "
        "interleaved with the gradient's; *gradient / primal* divides by that primal, and *vs "
        "ADOL-C* compares these ratios. The *primal* row is the primal's own process. "
        "The budget plan is built with `--memory-budget` and run with `CGP_MEMORY_BUDGET` set "
        "to one eighth of store-all's peak tape. Every process times one tool (peak RSS is that "
        "tool's, including the kernel's data).\n\n" + tables + "\n")
    open(os.path.join(root, "docs", "benchmarks-suite.md"), "w").write(details)
    path = os.path.join(root, "docs", "benchmarks.md")
    text = open(path).read()
    start = text.find("## Suite: cgp-ad vs ADOL-C")
    if start < 0:
        start = text.find("## Suite:")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end:] if end >= 0 else "")
    else:
        # before any hand-written notes about the suite, else at the end
        notes = text.find("## Suite notes")
        if notes >= 0:
            text = text[:notes] + section + "\n" + text[notes:]
        else:
            text = text.rstrip("\n") + "\n\n" + section
    open(path, "w").write(text)
    plot(results, os.path.join(root, "docs", "benchmarks-suite.png"))


def adolc_version():
    r = sh(["dpkg-query", "-W", "-f", "${Version}", "libadolc-dev"], check=False)
    return r.stdout.strip() or "?"


def gbench_version():
    r = sh(["dpkg-query", "-W", "-f", "${Version}", "libbenchmark-dev"], check=False)
    return r.stdout.strip() or "?"


if __name__ == "__main__":
    sys.exit(main())
