#!/usr/bin/env python3
"""run.py [--quick] [--write-docs] [--prefix P] [--cgp-ad PATH] [--cxx CXX]: the
cgp-ad vs ADOL-C benchmark suite.

Builds every kernel of bench/suite (GMM at two sizes, LSTM, bundle adjustment,
RK4, mixture of experts, adaptive-step ODE) into one program each: the primal,
cgp-ad's gradient under its default plan, under --strategy=store-all and under
--memory-budget (the budget set at run time through CGP_MEMORY_BUDGET to one
eighth of store-all's peak tape), and ADOL-C's taping + reverse sweep of the
same source. Then, per kernel: one check process compares all gradients
(relative 1e-8 against ADOL-C, plus central finite differences) and stops the
kernel loudly on a mismatch; then one process per tool times it with Google
Benchmark (median and minimum of --reps repetitions) and reports peak tape
bytes and peak RSS. Prints a table per kernel; --write-docs writes the "Suite:
cgp-ad vs ADOL-C" section of docs/benchmarks.md and the plot
docs/benchmarks-suite.png. --quick runs small sizes and 3 repetitions (a smoke
test; its numbers are not the suite's). Exit status 1 if a gradient disagreed.
"""
import argparse, datetime, json, os, platform, shlex, shutil, statistics, subprocess, sys

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


def build(inst, args, cgp_ad, prefix, out):
    name, src, defs, fn, _, _ = inst
    os.makedirs(out, exist_ok=True)
    cflags = ["-std=c++17"] + args.cxxflags.split() + ["-I", os.path.join(prefix, "include"),
                                                       "-I", here] + defs
    objs = []
    for variant, option in VARIANTS:
        gen = os.path.join(out, variant)
        sh([cgp_ad, option, os.path.join(here, f"{src}.cpp"), "-o", gen, "--", "-std=c++17",
            "-I", os.path.join(prefix, "include"), "-I", here] + defs)
        obj = os.path.join(out, f"{variant}.o")
        sh([args.cxx] + cflags + [f"-D{fn}={fn}_{variant}", f"-D{fn}_grad={fn}_{variant}_grad",
                                  "-c", os.path.join(gen, f"{src}.cgp.cpp"), "-o", obj])
        objs.append(obj)
    for what, path in (("primal", f"{src}.cpp"), ("main", f"main_{src}.cpp")):
        obj = os.path.join(out, f"{what}.o")
        sh([args.cxx] + cflags + ["-c", os.path.join(here, path), "-o", obj])
        objs.append(obj)
    exe = os.path.join(out, "run")
    sh([args.cxx] + objs + ["-o", exe, "-L", os.path.join(prefix, "lib"), "-lcgp_rt", "-ladolc",
                            "-lbenchmark", "-lpthread", "-lm"])
    return exe


def run_mode(exe, out, mode, n, args, env):
    js, st = os.path.join(out, f"{mode}.gbench.json"), os.path.join(out, f"{mode}.stats.json")
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
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--cxxflags", default="-O2")
    ap.add_argument("--reps", type=int, help="repetitions per measurement (11; quick: 3)")
    ap.add_argument("--slow-reps", type=int, help="repetitions of ADOL-C and finite "
                    "differences (5; quick: 3)")
    ap.add_argument("--min-time", type=float, help="seconds per repetition at least "
                    "(Google Benchmark's min_time; 0.3, quick: 0.05)")
    ap.add_argument("--plot-only", nargs=2, metavar=("RESULTS_JSON", "PNG"), help=argparse.SUPPRESS)
    ap.add_argument("--only", help="comma-separated kernel names (default: all)")
    ap.add_argument("--build-dir", default=os.path.join(root, "build", "bench", "suite"))
    args = ap.parse_args()
    if args.plot_only:
        plot(json.load(open(args.plot_only[0])), args.plot_only[1])
        return 0
    args.reps = args.reps or (3 if args.quick else 11)
    args.slow_reps = args.slow_reps or (3 if args.quick else 5)
    args.min_time = args.min_time if args.min_time is not None else (0.05 if args.quick else 0.3)

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
    results, failed = [], []
    for inst in instances:
        name, n = inst[0], inst[4][1 if args.quick else 0]
        out = os.path.join(args.build_dir, name)
        print(f"== {name}: building", flush=True)
        exe = build(inst, args, cgp_ad, prefix, out)
        env = dict(os.environ)
        env.pop("CGP_MEMORY_BUDGET", None)
        env.pop("CGP_STATS", None)
        print(f"== {name}: checking the gradients (n={n})", flush=True)
        st = os.path.join(out, "check.stats.json")
        r = subprocess.run([exe, "--mode=check", f"--n={n}", f"--ref={os.path.join(out, 'ref.bin')}",
                            f"--stats={st}"], capture_output=True, text=True, env=env, cwd=out)
        sys.stderr.write(r.stderr)
        check = json.load(open(st)) if os.path.exists(st) and os.path.getsize(st) else {}
        if r.returncode != 0 or not check.get("ok"):
            print(f"!!!!!! {name}: GRADIENTS DISAGREE (see above); not timed", flush=True)
            failed.append(name)
            results.append({"inst": inst, "n": n, "check": check, "modes": {}})
            continue
        modes = {}
        for mode in MODES:
            if mode == "fd" and check.get("fd_full_error", -1) < 0:
                continue
            menv = dict(env)
            if mode == "budget":
                menv["CGP_MEMORY_BUDGET"] = str(check["budget"])
            print(f"== {name}: timing {mode}", flush=True)
            times, stats = run_mode(exe, out, mode, n, args, menv)
            if times is None:
                print(f"!!!!!! {name}: {mode} FAILED its check against ADOL-C; not timed",
                      flush=True)
                failed.append(f"{name}/{mode}")
                continue
            t, p = times["self"], times.get("primal", times["self"])
            modes[mode] = {"median_ms": t["median"], "min_ms": t["min"], "cv": t["cv"],
                           "real_median_ms": t["real_median"], "primal_median_ms": p["median"],
                           "ratio": t["median"] / p["median"], "ratio_min": t["min"] / p["min"],
                           **stats}
        results.append({"inst": inst, "n": n, "check": check, "modes": modes})

    os.makedirs(args.build_dir, exist_ok=True)
    json.dump([{**r, "inst": r["inst"][0]} for r in results],
              open(os.path.join(args.build_dir, "results.json"), "w"), indent=1)
    args.load_after = open("/proc/loadavg").read().split()[0]
    tables, summary = render(results)
    print(tables)
    print(summary)
    if failed:
        print("FAILED: " + ", ".join(failed))
    if args.write_docs:
        write_docs(args, results, tables, summary)
    return 1 if failed else 0


def render(results):
    out = []
    for r in results:
        name, _, _, _, _, what = r["inst"]
        c, m = r["check"], r["modes"]
        out.append(f"### {name}\n\n{what.format(n=r['n'])} (`bench/suite/{r['inst'][1]}.cpp`, "
                   f"{c.get('parameters', '?')} parameters, n = {r['n']}).\n")
        if not m:
            out.append("**Not timed: the gradients disagreed.**\n")
            continue
        out.append("| tool / plan | median CPU (ms) | min CPU (ms) | cv | gradient / primal "
                   "(median; min) | vs ADOL-C | peak tape (MiB) | peak RSS (MiB) | "
                   "RSS over data (MiB) |")
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        a = m.get("adolc", {}).get("ratio")
        for mode in MODES:
            if mode not in m:
                continue
            x = m[mode]
            ratio = "1" if mode == "primal" else f"{x['ratio']:.2f}; {x['ratio_min']:.2f}"
            vs = "" if mode in ("primal", "adolc") or not a else f"{a / x['ratio']:.1f}x faster"
            if mode == "primal":
                tape = "-"
            elif mode == "fd":
                tape = "0"
            else:
                tape = mib(x["tape_bytes"])
                if mode == "adolc" and not x.get("adolc_in_core", True):
                    tape += " (file)"
            rss = x["peak_rss_kb"] / 1024
            over = (x["peak_rss_kb"] - x["base_rss_kb"]) / 1024
            out.append(f"| {LABELS[mode]} | {x['median_ms']:.3f} | {x['min_ms']:.3f} | "
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
    # targets
    ratios, s = [], []
    speed_ok, tape_lines = True, []
    for r in results:
        m = r["modes"]
        if not all(k in m for k in ("primal", "cgp", "store-all", "adolc")):
            continue
        name = r["inst"][0]
        ratio = m["cgp"]["ratio"]
        ratios.append((ratio, name))
        speed = m["adolc"]["ratio"] / m["cgp"]["ratio"]
        if speed < 5:
            speed_ok = False
        s.append((name, ratio, speed, m["store-all"]["tape_bytes"] / max(m["cgp"]["tape_bytes"], 1),
                  m["cgp"]["ratio"] / m["store-all"]["ratio"],
                  m["cgp"]["ratio_min"], m["cgp"]["ratio_min"] / m["store-all"]["ratio_min"],
                  m["cgp"]["tape_bytes"] / max(m["adolc"]["tape_bytes"], 1)))
    lines = ["| kernel | default plan: gradient / primal (median; min) | ADOL-C / cgp-ad time | "
             "store-all tape / default tape | default time / store-all time (median; min) | "
             "cgp-ad tape / ADOL-C tape |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name, ratio, speed, tape, t, rmin, tmin, vs in s:
        lines.append(f"| {name} | {ratio:.2f}; {rmin:.2f} | {speed:.1f}x | {tape:.2f}x | "
                     f"{t:.2f}x; {tmin:.2f}x | {100 * vs:.1f}% |")
    if ratios:
        med = statistics.median(x for x, _ in ratios)
        worst = max(ratios)
        lines.append("")
        lines.append(f"- Median gradient/primal ratio under the default plan: {med:.2f} "
                     f"(target <= 3.0: {'met' if med <= 3.0 else 'NOT met'}); largest "
                     f"{worst[0]:.2f} ({worst[1]}; target none above 5.0: "
                     f"{'met' if worst[0] <= 5.0 else 'NOT met'}).")
        lines.append(f"- cgp-ad at least 5x faster than ADOL-C on every kernel: "
                     f"{'met' if speed_ok else 'NOT met'} (lowest "
                     f"{min(x[2] for x in s):.1f}x, {min(s, key=lambda x: x[2])[0]}).")
        loops = [x for x in s if x[0] in ("lstm", "rk4")]
        ok = all(x[3] >= 2 and x[4] <= 1.1 for x in loops)
        lines.append("- Default plan at least 2x less peak tape than store-all at most 1.1x its "
                     "time on the loop kernels (LSTM, RK4): " + ("met" if ok else "NOT met") +
                     " (" + "; ".join(f"{x[0]}: {x[3]:.2f}x less tape at {x[4]:.2f}x the time"
                                      for x in loops) + ").")
    return "\n".join(out), "\n".join(lines)


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
    tools = [("cgp", "cgp-ad default"), ("store-all", "cgp-ad store-all"),
             ("budget", "cgp-ad budget 1/8"), ("adolc", "ADOL-C")]
    rs = [r for r in results if "primal" in r["modes"]]
    names = [r["inst"] if isinstance(r["inst"], str) else r["inst"][0] for r in rs]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
    w = 0.2
    for i, (mode, label) in enumerate(tools):
        xs = [j + (i - 1.5) * w for j in range(len(rs))]
        ratio = [r["modes"][mode]["ratio"] if mode in r["modes"] else 0 for r in rs]
        tape = [r["modes"][mode]["tape_bytes"] / 2**20 if mode in r["modes"] else 0 for r in rs]
        ax1.bar(xs, ratio, w, label=label)
        ax2.bar(xs, tape, w, label=label)
    for ax, title in ((ax1, "gradient time / primal time (median)"),
                      (ax2, "peak tape (MiB; ADOL-C: its tapestats)")):
        ax.set_yscale("log")
        ax.set_xticks(range(len(rs)))
        ax.set_xticklabels(names, rotation=20)
        ax.set_title(title)
        ax.grid(axis="y", which="both", alpha=0.3)
    ax1.axhline(3.0, color="gray", ls="--", lw=0.8)
    ax1.legend(fontsize=8)
    fig.suptitle("cgp-ad vs ADOL-C (bench/suite)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def write_docs(args, results, tables, summary):
    compiler = sh([args.cxx, "--version"]).stdout.splitlines()[0]
    cmd = "python3 bench/suite/run.py" + (" --quick" if args.quick else "") + " --write-docs" + \
          (f" --cxx {args.cxx}" if args.cxx != "g++" else "")
    section = (
        "## Suite: cgp-ad vs ADOL-C\n\n"
        f"Machine: {platform.machine()}, {cpu_model()}, {os.cpu_count()} cores (shared with other "
        f"work: read ratios, not absolute times). Compiler: {compiler}, flags `-std=c++17 "
        f"{args.cxxflags}` for every part (kernels, generated code, ADOL-C's taped kernels). "
        f"ADOL-C {adolc_version()}, Google Benchmark {gbench_version()}. Date: "
        f"{datetime.date.today()}. Command: `{cmd}` (prefix `{args.prefix}`; "
        f"median and minimum of {args.reps} repetitions ({args.slow_reps} for ADOL-C and finite "
        f"differences), each at least {args.min_time} s).\n\n"
        "Each kernel is one source file in cgp-ad's supported subset, written in terms of a "
        "`real` type; ADOL-C differentiates the same source with `real = adouble` "
        "(`trace_on` with Taylor values kept, `trace_off`, `fos_reverse`, every call: the "
        "kernels branch on active values, so a tape cannot be reused). ADOL-C's buffers are "
        "sized from a first tape so that the tape stays in memory; its tape bytes are "
        "`tapestats`' operations (1 B), locations (4 B), values and Taylor values (8 B). "
        "Times are CPU times (the machine is shared; load average "
        f"{args.load_before} at the start of the run, {args.load_after} at its end). Every "
        "process also times the primal, its repetitions randomly interleaved with the "
        "gradient's; *gradient / primal* divides by that primal, and *vs ADOL-C* and the "
        "summary compare these ratios, so that each comparison is between times taken under "
        "the same load. The *primal* row is the primal's own process. "
        "cgp-ad's peak tape is `cgp::rt::stats().peakTapeBytes` of one call (what "
        "`CGP_STATS=1` prints as `peak_tape_bytes`). The budget plan is built with "
        "`--memory-budget` and run with `CGP_MEMORY_BUDGET` set to one eighth of store-all's "
        "peak tape. Every process times one tool (peak RSS is that tool's, including the "
        "kernel's data); before timing, each gradient is compared with ADOL-C's (relative "
        "1e-8) and a check run compares all of them and central finite differences.\n\n"
        + summary + "\n\n" + tables + "\n\n![gradient/primal and tape per kernel and tool]"
        "(benchmarks-suite.png)\n")
    path = os.path.join(root, "docs", "benchmarks.md")
    text = open(path).read()
    start = text.find("## Suite: cgp-ad vs ADOL-C")
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
