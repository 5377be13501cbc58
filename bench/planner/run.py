#!/usr/bin/env python3
"""run.py [--prefix P] [--runs N] [--processes K] [--write-docs]: the planner benchmark.

Builds bench/planner/{lstm,rk4,tracks,heat,orbit,trajectory,rnn}.cpp with the installed cgp-ad (prefix P,
default build/bench-prefix, installed from build/ if missing) under
--strategy=store-all and under the default plan, runs store-all, the default
plan, and the default plan with CGP_MEMORY_BUDGET set to one half and to
one eighth of store-all's peak tape, and prints a table: gradient time, gradient/primal,
peak tape bytes, iterations run again, relative to store-all, and whether the
gradients have the same bits. With --write-docs it also rewrites the planner
section of docs/benchmarks.md. Each program times N runs (7) and reports
medians; it runs K times (5), the plans interleaved, and the table shows the
medians over those processes.
"""
import argparse, json, os, statistics, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, os.path.dirname(here))
import machine  # noqa: E402  (bench/machine.py)


def sh(cmd, env=None):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout


# The kernels, each bench/planner/NAME.cpp.
KERNELS = ("lstm", "rk4", "tracks", "heat", "orbit", "trajectory", "rnn")


def medians(results):
    """One result with the median of each number over `results` (the same
    program's runs); the other fields are the first run's."""
    out = dict(results[0])
    for key, value in results[0].items():
        if isinstance(value, (int, float)):
            out[key] = statistics.median(r[key] for r in results)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", default=os.path.join(root, "build", "bench-prefix"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--processes", type=int, default=5)
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--kernels", default=",".join(KERNELS),
                    help="comma-separated, of " + ", ".join(KERNELS) + " (all by default)")
    args = ap.parse_args()
    kernels = args.kernels.split(",")
    if args.write_docs and sorted(kernels) != sorted(KERNELS):
        ap.error("--write-docs rewrites the table of all the kernels: leave out --kernels")
    prefix = args.prefix
    if not os.path.exists(os.path.join(prefix, "bin", "cgp-ad")):
        sh(["cmake", "--install", os.path.join(root, "build"), "--prefix", prefix])
    out = os.path.join(root, "build", "bench", "planner")
    os.makedirs(out, exist_ok=True)
    cxx = os.environ.get("CXX", "c++")
    flags = ["-std=c++17", "-O2", "-I", os.path.join(prefix, "include"), "-I", here]
    rows = []
    for kernel in kernels:
        binaries = {}
        for strategy in ("store-all", "cgp", "budget"):
            gen = os.path.join(out, f"{kernel}-{strategy}")
            option = "--memory-budget=1GiB" if strategy == "budget" else f"--strategy={strategy}"
            sh([os.path.join(prefix, "bin", "cgp-ad"), option,
                os.path.join(here, f"{kernel}.cpp"), "-o", gen, "--", "-std=c++17"])
            exe = os.path.join(gen, "run")
            sh([cxx] + flags + [os.path.join(gen, f"{kernel}.cgp.cpp"), "-o", exe,
                "-L", os.path.join(prefix, "lib"), "-lcgp_rt", "-lm"])
            binaries[strategy] = exe
        env = dict(os.environ, BENCH_RUNS=str(args.runs))
        env.pop("CGP_MEMORY_BUDGET", None)
        # The machine's speed changes from one process to the next (by up to
        # 1.5x on a shared host): run each plan's program --processes times,
        # the three interleaved, and keep the medians of each figure.
        # Budgets of a half (most of the loop fits: the forward sweep tapes
        # its last segment, the rest runs again) and of an eighth.
        fractions = (2, 8)
        runs = {"store-all": [], "cgp": [], **{f: [] for f in fractions}}
        budgets = {}
        for _ in range(args.processes):
            runs["store-all"].append(json.loads(sh([binaries["store-all"]], env)))
            if not budgets:
                budgets = {f: runs["store-all"][0]["peak_tape_bytes"] // f for f in fractions}
            runs["cgp"].append(json.loads(sh([binaries["cgp"]], env)))
            for f in fractions:
                benv = dict(env, CGP_MEMORY_BUDGET=str(budgets[f]))
                runs[f].append(json.loads(sh([binaries["budget"]], benv)))
        base = medians(runs["store-all"])
        rows.append((kernel, "store-all", base, base))
        rows.append((kernel, "default plan (cgp)", medians(runs["cgp"]), base))
        for f in fractions:
            rows.append((kernel, f"cgp, budget {budgets[f]} B (1/{f})", medians(runs[f]), base))
    lines = ["| kernel | plan | gradient (ms) | gradient / primal | time vs store-all | "
             "peak tape (bytes) | tape vs store-all | iterations run again | same bits |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for kernel, label, r, base in rows:
        lines.append(
            f"| {kernel} | {label} | {r['grad_s'] * 1e3:.2f} | {r['ratio']:.2f} | "
            f"{r['ratio'] / base['ratio']:.2f}x | {r['peak_tape_bytes']} | "
            f"{base['peak_tape_bytes'] / max(r['peak_tape_bytes'], 1):.1f}x less | "
            f"{r['recomputed_iterations']} | "
            f"{'yes' if r['gradient_hash'] == base['gradient_hash'] else 'NO'} |")
    table = "\n".join(lines)
    print(table)
    if args.write_docs:
        section = (
            "## Planner: store-all, the default plan, and budgets of a half and an eighth\n\n"
            + machine.describe(cxx) + " "
            f"Command: `python3 bench/planner/run.py --write-docs` (medians of {args.runs} runs in each of {args.processes} processes per plan, interleaved).\n\n"
            "LSTM: hidden 128, input 32, 1000 steps (`bench/planner/lstm.cpp`). RK4: a forced "
            "damped pendulum, 10,000 steps (`bench/planner/rk4.cpp`). Tracks: 8 damped "
            "oscillators of 2000 steps, each after a drive of eight cosines a step that has no "
            "derivative (`bench/planner/tracks.cpp`; the default plan runs the oscillator's "
            "iterations again at each run, inside the taped loop over tracks). Heat: a rod of 64 "
            "cells whose state lives in two `std::vector` locals, 2000 steps "
            "(`bench/planner/heat.cpp`). Orbit: four bodies whose state lives in a struct's member "
            "arrays, 5000 leapfrog steps (`bench/planner/orbit.cpp`). Trajectory: 32 coupled "
            "oscillators writing a row per step of the caller's two output buffers, 2000 steps, "
            "the rows left in place under a budget (`bench/planner/trajectory.cpp`). RNN: an Elman "
            "network of 64 hidden units whose state is the caller's buffer, overwritten at every "
            "one of 1000 steps, the span it overwrites held by the snapshots under a budget "
            "(`bench/planner/rnn.cpp`). The budget runs set "
            "`CGP_MEMORY_BUDGET` to one half and to one eighth of store-all's peak tape. Each program times its "
            "own primal too; *time vs store-all* divides gradient/primal ratios, so that it "
            "compares times taken under the same load.\n\n" + table + "\n")
        machine.rewrite_section(root, "## Planner:", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
