#!/usr/bin/env python3
"""run.py [--prefix P] [--runs N] [--processes K] [--write-docs]: the budget benchmark.

Builds bench/budget/kernels.cpp with the installed cgp-ad (prefix P, default
build/bench-prefix, installed from build/ if missing) under
--strategy=store-all and under --memory-budget, runs the store-all build
without a budget and the budget build under budgets of 1 KiB to 64 KiB and
none (CGP_MEMORY_BUDGET, set by the program between measurements), and
prints a table per input shape: peak tape and snapshot bytes of one call,
whether they stayed within the budget, iterations run again, gradient time
relative to store-all's (gradient/primal ratios: each program times the
kernel's primal next to each gradient), and whether the gradient has
store-all's bits.
Each program times N runs (7) per measurement; it runs K times (3), the two
builds interleaved, and the table shows the medians. With --write-docs it
rewrites the budget section of docs/benchmarks.md.
"""
import argparse, json, os, statistics, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, os.path.dirname(here))
import machine  # noqa: E402  (bench/machine.py)


def sh(cmd, env=None):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout


def runs_of(program, args, env, processes, by_key):
    for _ in range(processes):
        for line in sh([program] + args, env).splitlines():
            r = json.loads(line)
            by_key.setdefault((r["scenario"], r["budget"]), []).append(r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", default=os.path.join(root, "build", "bench-prefix"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    prefix = args.prefix
    if not os.path.exists(os.path.join(prefix, "bin", "cgp-ad")):
        sh(["cmake", "--install", os.path.join(root, "build"), "--prefix", prefix])
    out = os.path.join(root, "build", "bench", "budget")
    os.makedirs(out, exist_ok=True)
    cxx = os.environ.get("CXX", "c++")
    flags = ["-std=c++17", "-O2", "-I", os.path.join(prefix, "include"), "-I", here]
    programs = {}
    for build, option in (("store-all", "--strategy=store-all"), ("budget", "--memory-budget=1GiB")):
        gen = os.path.join(out, build)
        sh([os.path.join(prefix, "bin", "cgp-ad"), option, os.path.join(here, "kernels.cpp"),
            "-o", gen, "--", "-std=c++17"])
        programs[build] = os.path.join(gen, "run")
        sh([cxx] + flags + [os.path.join(gen, "kernels.cgp.cpp"), "-o", programs[build],
            "-L", os.path.join(prefix, "lib"), "-lcgp_rt", "-lm"])
    env = dict(os.environ, BENCH_RUNS=str(args.runs))
    for var in ("CGP_MEMORY_BUDGET", "CGP_DEBUG", "CGP_STATS"):
        env.pop(var, None)
    store_all, budget = {}, {}
    for _ in range(args.processes):  # interleaved: the machine's speed drifts
        runs_of(programs["store-all"], ["no-budget"], env, 1, store_all)
        runs_of(programs["budget"], [], env, 1, budget)

    def median(rs, key):
        return statistics.median(r[key] for r in rs)

    sections, failures = [], 0
    scenarios = []
    for scenario, _ in budget:
        if scenario not in scenarios:
            scenarios.append(scenario)
    for scenario in scenarios:
        base = store_all[(scenario, -1)]
        base_time = median(base, "grad_s")
        # Each program times the primal (the same code in both builds) next
        # to each gradient; gradient/primal ratios compare times taken under
        # the same load.
        base_ratio = statistics.median(r["grad_s"] / r["primal_s"] for r in base)
        lines = [f"**{scenario}** (store-all: {base[0]['peak_tape_bytes']} bytes, "
                 f"{base_time * 1e3:.3f} ms)", "",
                 "| budget (bytes) | peak (bytes) | within | iterations run again | "
                 "time vs store-all | same bits |", "| --- | --- | --- | --- | --- | --- |"]
        for (s, b), rs in budget.items():
            if s != scenario:
                continue
            peak = rs[0]["peak_tape_bytes"]
            within = "-" if b < 0 else ("yes" if peak <= b else "NO")
            same = all(r["gradient_hash"] == base[0]["gradient_hash"] for r in rs)
            failures += (within == "NO") + (not same)
            lines.append(f"| {'none' if b < 0 else b} | {peak} | {within} | "
                         f"{rs[0]['recomputed_iterations']} | "
                         f"{statistics.median(r['grad_s'] / r['primal_s'] for r in rs) / base_ratio:.2f}x"
                         f" | {'yes' if same else 'NO'} |")
        sections.append("\n".join(lines))
    text = "\n\n".join(sections)
    print(text)
    if args.write_docs:
        section = (
            "## Budgets: kernels whose iterations tape unevenly\n\n"
            + machine.describe(cxx) + " "
            f"Command: `python3 bench/budget/run.py --write-docs` (medians of {args.runs} runs "
            f"in each of {args.processes} processes per build, interleaved).\n\n"
            "Kernels in `bench/budget/kernels.cpp`: a batch of RNN sequences of different "
            "lengths (two planned levels), passes over a growing part of that batch (three), a "
            "loop that overwrites a 16-element array every k-th step and one scalar otherwise, "
            "and an encoder loop followed by a decoder loop. Each budget is set with "
            "`CGP_MEMORY_BUDGET` in the same process; *peak* is one call's peak tape and "
            "snapshot bytes (`peak_tape_bytes`), *within* says whether it stayed at or under "
            "the budget, *same bits* compares the gradient with store-all's. *time vs "
            "store-all* divides gradient/primal ratios (each program times the primal next to "
            "each gradient), so that it compares times taken under the same load. *none*: no "
            "`CGP_MEMORY_BUDGET`, so the budget compiled in (1 GiB) applies and everything "
            "fits; what time is left over store-all's is the plans' bookkeeping. The "
            "programs time calls after a first one: the outer loops of the nested kernels run "
            "their iterations twice (untaped, then taped) in a site's first run under a "
            "budget, and from then on tape them as they come when the last run fitted in half "
            "the room (see docs/cgp-model.md, *Nested loops*); *iterations run again* is "
            "`recomputed_iterations` of the first call under each budget, before the timed "
            "ones (probes included).\n\n"
            + text + "\n")
        path = os.path.join(root, "docs", "benchmarks.md")
        doc = open(path).read()
        start = doc.find("## Budgets:")
        if start >= 0:
            end = doc.find("\n## ", start + 1)
            old = doc[start:end + 1] if end >= 0 else doc[start:]
            # Hand-written notes below the last table stay (they are updated by hand).
            last_row = old.rfind("\n| ")
            notes_at = old.find("\n\n", last_row) if last_row >= 0 else -1
            notes = old[notes_at + 2:].strip("\n") if notes_at >= 0 else ""
            if notes:
                section += "\n" + notes + "\n"
            doc = doc[:start] + section + ("\n" + doc[end + 1:] if end >= 0 else "")
        else:
            at = doc.find("## Suite:")
            doc = (doc[:at] + section + "\n" + doc[at:]) if at >= 0 else doc + "\n" + section
        open(path, "w").write(doc)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
