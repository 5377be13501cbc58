#!/usr/bin/env python3
"""run.py - robustness of the cgp-ad tool on malformed input.

Two corpora, run through the installed cgp-ad exactly as a user would:

  * sources: each e2e kernel (the part cgp-ad reads) mutated at random -- lines
    and tokens deleted, duplicated, swapped, replaced by others that often
    break C++ or cgp-ad's language (`goto`, `break;`, `}`, `CGP_GRAD(q)`, a
    huge or negative number...) -- and a few hand-written oddities (empty,
    binary, deep nesting, a long line);
  * command lines: bad options, sizes, weights, profiles, inputs.

For every run: no crash, no hang, no "internal error"; exit 0 (the
generated code then compiles: `c++ -fsyntax-only`), 1 (with an error
message) or 2 (bad command line); and after a failing run the output
folder holds no file -- outputs are written whole or not at all.

  tests/malformed/run.py --prefix PREFIX [--seeds 0-199] [--jobs 2]
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

TOKENS = ["break;", "continue;", "return;", "return 0;", "}", "{", "goto L;", "L:",
          "CGP_GRAD(q)", "CGP_GRAD()", "CGP_JVP(x)", "CGP_PULLBACK_OF(h)", "*", "&", "[0]", "(",
          ")", ";", "x", "n", "1e308", "-1", "0", "2147483647", "double", "int", "static",
          "while (1)", "for (;;)", "if (x)", "else", "switch (n) { case 0: ; }", "#include <vector>",
          "template <class T>", "auto", "[&](double v) { return v; }", "new double[3]",
          "throw 1;", "__asm__(\"nop\");", "sizeof(x)", "::", "\"str\"", "'c'", "#define X",
          "static_assert(false, \"\");", "double r = *x;", "x[n] = 0;", "delete x;"]


def kernel_sources():
    """The e2e kernels: each file up to its test driver."""
    out = []
    e2e = os.path.join(ROOT, "tests", "e2e")
    for name in sorted(os.listdir(e2e)):
        if not name.endswith(".cpp"):
            continue
        text = open(os.path.join(e2e, name)).read()
        text = text.split("#ifndef __CGP_AD__")[0]
        text = "\n".join(l for l in text.splitlines() if not l.startswith("//"))
        out.append((name, text))
    return out


def oddities():
    deep = "(" * 400 + "x[0]" + ")" * 400
    return [
        ("empty.cpp", ""),
        ("binary.cpp", "\x00\x01\xff\xfe CGP_GRAD(x) \x00"),
        ("no_kernel.cpp", "double f(double x) { return x; }\n"),
        ("deep_parens.cpp", "#include <cgp/cgp.h>\nCGP_GRAD(x)\ndouble k(const double* x) { return %s; }\n" % deep),
        ("deep_blocks.cpp", "#include <cgp/cgp.h>\nCGP_GRAD(x)\ndouble k(const double* x) { double s = 0; %s s += x[0]; %s return s; }\n" % ("{" * 200, "}" * 200)),
        ("long_line.cpp", "#include <cgp/cgp.h>\nCGP_GRAD(x)\ndouble k(const double* x) { return %s; }\n" % " + ".join(["x[0]"] * 3000)),
        ("unterminated.cpp", "#include <cgp/cgp.h>\nCGP_GRAD(x)\ndouble k(const double* x) { /* never closed\n"),
        ("missing_include.cpp", "#include \"nowhere.h\"\n#include <cgp/cgp.h>\nCGP_GRAD(x)\ndouble k(double x) { return x; }\n"),
        ("marker_on_variable.cpp", "#include <cgp/cgp.h>\nCGP_GRAD(x) double x = 1;\n"),
        ("declared_only.cpp", "#include <cgp/cgp.h>\nCGP_GRAD(x)\ndouble k(double x);\n"),
    ]


def mutate(text, rng):
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        kind = rng.randrange(7)
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[i])
        elif kind == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 3:
            lines.insert(i, rng.choice(TOKENS))
        else:
            tokens = re.findall(r"\w+|[^\w\s]", lines[i])
            if not tokens:
                continue
            k = rng.randrange(len(tokens))
            if kind == 4:
                del tokens[k]
            elif kind == 5:
                tokens[k] = rng.choice(TOKENS)
            else:
                tokens.insert(k, rng.choice(TOKENS))
            lines[i] = " ".join(tokens)
    return "\n".join(lines) + "\n"


def bad_command_lines(work, good):
    garbage = os.path.join(work, "garbage.json")
    with open(garbage, "wb") as f:
        f.write(bytes(range(256)) * 4)
    folder = os.path.join(work, "a_folder.json")
    os.makedirs(folder, exist_ok=True)
    return [
        (["--strategy=fast", good], 2), (["--strategy=", good], 2),
        (["--memory-budget=12XB", good], 2), (["--memory-budget=-1", good], 2),
        (["--memory-budget=99999999999999999999GiB", good], 2), (["--memory-budget=", good], 2),
        (["--cgp-weights=1,2", good], 2), (["--cgp-weights=nan,1,1", good], 2),
        (["--cgp-weights=inf,1,1", good], 2), (["--cgp-weights=-1,0,0", good], 2),
        (["--cgp-weights=1,,2", good], 2), (["--cgp-weights=0x1p3,1,1", good], 2),
        (["--profile=" + garbage, good], 1), (["--profile=" + folder, good], 1),
        (["--profile=/dev/null", good], 1), (["--profile=" + os.path.join(work, "none.json"), good], 1),
        (["--no-such-option", good], 2), ([], 2), (["--explain"], 2),
        ([os.path.join(work, "missing.cpp")], 1), ([folder], 1),
        ([os.path.join(work, "k.c")], 1), ([good, good], 1),
        (["-o", "", good], 2),
    ]


def run_tool(tool, args, out, timeout=120):
    try:
        p = subprocess.run([tool] + args + ["-o", out, "--", "-std=c++17"] if "-o" not in args
                           else [tool] + args + ["--", "-std=c++17"],
                           capture_output=True, timeout=timeout)
        return p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


def check(tool, prefix, cxx, name, text, work, allowed=(0, 1), expect=None, args=None):
    """Runs one case; returns a failure message or None."""
    case = tempfile.mkdtemp(dir=work)
    out = os.path.join(case, "out")
    if args is None:
        src = os.path.join(case, name)
        with open(src, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        args = [src]
    rc, err = run_tool(tool, args, out)
    problem = None
    if rc == "timeout":
        problem = "hangs"
    elif rc < 0 or rc > 2:
        problem = "crashes (exit %s)" % rc
    elif "internal error" in err or "Stack dump" in err or "Assertion" in err:
        problem = "internal error: " + err.strip().splitlines()[-1]
    elif expect is not None and rc != expect:
        problem = "exits %d, expected %d" % (rc, expect)
    elif rc not in allowed:
        problem = "exits %d" % rc
    elif rc == 1 and "error" not in err or rc == 2 and not err.strip():
        problem = "fails without an error message"
    elif rc != 0 and os.path.isdir(out) and os.listdir(out):
        problem = "fails but wrote %s" % os.listdir(out)
    elif rc == 0 and args and args[0].endswith(".cpp") and os.path.isdir(out):
        stem = os.path.splitext(os.path.basename(args[0]))[0]
        gen = os.path.join(out, stem + ".cgp.cpp")
        if not os.path.exists(gen):
            problem = "succeeds but wrote no %s.cgp.cpp" % stem
        else:
            c = subprocess.run([cxx, "-std=c++17", "-fsyntax-only", "-w", "-I", os.path.join(prefix, "include"), gen],
                               capture_output=True, timeout=300)
            if c.returncode != 0:
                problem = "succeeds but its output does not compile: " + \
                          c.stderr.decode("utf-8", "replace").strip().splitlines()[0]
    if problem is None:
        shutil.rmtree(case, ignore_errors=True)
        return None
    return "%s: %s (kept in %s)" % (name, problem, case)


def seeds_of(spec):
    out = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prefix", required=True, help="install prefix of cgp-ad")
    ap.add_argument("--seeds", default="0-199", help="mutations, e.g. 0-199")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cxx", default="c++")
    ap.add_argument("--work", help="folder for the cases (kept when they fail)")
    opts = ap.parse_args()
    tool = os.path.join(opts.prefix, "bin", "cgp-ad")
    work = opts.work or tempfile.mkdtemp(prefix="cgp-malformed-")
    os.makedirs(work, exist_ok=True)
    good = os.path.join(work, "good.cpp")
    with open(good, "w") as f:
        f.write("#include <cgp/cgp.h>\nCGP_GRAD(x)\ndouble k(double x) { return x * x; }\n")
    open(os.path.join(work, "k.c"), "w").write("int x;\n")

    cases = []
    for name, text in oddities():
        cases.append(dict(name=name, text=text))
    kernels = kernel_sources()
    for seed in seeds_of(opts.seeds):
        rng = random.Random(seed)
        name, text = kernels[rng.randrange(len(kernels))]
        cases.append(dict(name="m%d_%s" % (seed, name), text=mutate(text, rng)))
    for i, (args, expect) in enumerate(bad_command_lines(work, good)):
        cases.append(dict(name="options%d %s" % (i, " ".join(args)), text=None, args=args,
                          expect=expect, allowed=(1, 2)))

    failures, outcomes = [], {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        futures = [pool.submit(check, tool, opts.prefix, opts.cxx, c["name"], c["text"], work,
                               c.get("allowed", (0, 1)), c.get("expect"), c.get("args"))
                   for c in cases]
        for f in futures:
            r = f.result()
            if r:
                failures.append(r)
    for f in failures:
        print("FAIL " + f)
    print("malformed: %d cases (%d mutated sources, %d oddities, %d command lines), %d failures"
          % (len(cases), len(seeds_of(opts.seeds)), len(oddities()),
             len(bad_command_lines(work, good)), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
