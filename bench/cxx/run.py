#!/usr/bin/env python3
"""run.py [--prefix P] [--processes K] [--cxx CXX ...] [--write-docs]: C++ form vs C form.

The suite's GMM kernel in its C form (bench/suite/gmm.cpp: raw pointers and fixed
arrays) and in its C++ form (bench/cxx/gmm_cxx.cpp: std::vector parameters and
temporaries, std::array rows, a struct by value, a function template), both run
through the installed cgp-ad (prefix P, default build/bench-prefix) and linked into
one program (main.cpp), which checks that the two agree and times the primal and
the gradient of each. Each compiler builds it once; the program runs K times (5),
and the table shows medians: the C++ form's time over the C form's, for the primal
and for the gradient. --write-docs rewrites that section of docs/benchmarks.md.
"""
import argparse, json, os, shutil, statistics, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, os.path.dirname(here))
import machine  # noqa: E402  (bench/machine.py)

SIZES = [(10, 25, 1000), (64, 100, 200)]  # d, K, points


def sh(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", default=os.path.join(root, "build", "bench-prefix"))
    ap.add_argument("--processes", type=int, default=5)
    ap.add_argument("--cxx", action="append", help="compilers (default: g++ and clang++-19)")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    compilers = args.cxx or [c for c in ("g++", "clang++-19") if shutil.which(c)]
    cgp_ad = os.path.join(args.prefix, "bin", "cgp-ad")
    if not os.path.exists(cgp_ad):
        sh(["cmake", "--install", os.path.join(root, "build"), "--prefix", args.prefix])
    out = os.path.join(root, "build", "bench", "cxx")
    rows = []
    for d, k, n in SIZES:
        gen = os.path.join(out, f"d{d}-K{k}")
        os.makedirs(gen, exist_ok=True)
        defs = [f"-DGMM_D={d}", f"-DGMM_K={k}"]
        sh([cgp_ad, os.path.join(root, "bench", "suite", "gmm.cpp"), "-o", gen, "--", "-std=c++17",
            "-I", os.path.join(root, "bench", "suite")] + defs)
        sh([cgp_ad, os.path.join(here, "gmm_cxx.cpp"), "-o", gen, "--", "-std=c++17"] + defs)
        for cxx in compilers:
            exe = os.path.join(gen, "run-" + os.path.basename(cxx))
            sh([cxx, "-std=c++17", "-O2"] + defs + ["-I", os.path.join(args.prefix, "include"),
               "-I", os.path.join(root, "bench", "suite"), os.path.join(here, "main.cpp"),
               os.path.join(gen, "gmm.cgp.cpp"), os.path.join(gen, "gmm_cxx.cgp.cpp"), "-o", exe,
               "-L", os.path.join(args.prefix, "lib"), "-lcgp_rt", "-lm"])
            runs = [json.loads(sh([exe, str(n)])) for _ in range(args.processes)]
            med = {key: statistics.median(r[key] for r in runs)
                   for key in ("c_primal", "cxx_primal", "c_grad", "cxx_grad")}
            rows.append((runs[0]["kernel"], os.path.basename(cxx), med,
                         max(r["agreement"] for r in runs)))
    lines = ["| kernel | compiler | C form: gradient / primal | C++ form: gradient / primal | "
             "C++ / C primal time | C++ / C gradient time |", "| --- | --- | --- | --- | --- | --- |"]
    for kernel, cxx, m, agree in rows:
        lines.append(f"| {kernel} | {cxx} | {m['c_grad'] / m['c_primal']:.2f} | "
                     f"{m['cxx_grad'] / m['cxx_primal']:.2f} | {m['cxx_primal'] / m['c_primal']:.2f} | "
                     f"{m['cxx_grad'] / m['c_grad']:.2f} |")
    table = "\n".join(lines)
    print(table)
    if args.write_docs:
        section = (
            "## C++ form vs C form: the same kernel written with std::vector and structs\n\n"
            + machine.describe(compilers[0]) + " "
            f"Compilers: {', '.join(compilers)}. Command: `python3 bench/cxx/run.py --write-docs` "
            f"(each program run {args.processes} times; medians).\n\n"
            "The suite's GMM kernel in its C form (`bench/suite/gmm.cpp`) and in the form C++ "
            "programmers write (`bench/cxx/gmm_cxx.cpp`: `const std::vector<double>&` parameters, "
            "`std::vector` temporaries, `std::array` rows, the Wishart settings in a struct passed "
            "by value, a function template), with the same loops and arithmetic; the program "
            "checks that both give the same value and gradient before it times them.\n\n"
            + table + "\n")
        machine.rewrite_section(root, "## C++ form vs C form", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
