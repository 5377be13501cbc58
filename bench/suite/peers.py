"""peers.py - the suite's optional peers: Clad and Enzyme, clang plugins built from source by
bench/peers/build.sh. run.py uses it only when given --clad or --enzyme.

For each kernel built with clang++ 19, a peer's adapter (bench/peers/<peer>/<kernel>.cpp: the
kernel's own source and a function with the signature of cgp-ad's gradient) is compiled with
the plugin and linked, in place of cgp-ad's default-plan unit, with the kernel's other objects.
That program's --mode=cgp then checks the peer's gradient against the reference written by the
kernel's check (ADOL-C's gradient, which cgp-ad's matches to 1e-8), refuses to time it on a
mismatch, and times it with the primal interleaved, with its peak RSS: the same driver and
numbers as cgp-ad's own modes. The compile of the adapter (kernel and gradient) over the
compile of the original kernel is the peer's build-time ratio. A peer that refuses a kernel
(compile or link error), crashes or gets it wrong is recorded as such; that does not change
run.py's exit status, which is about cgp-ad.
"""
import datetime, glob, os, platform, shlex, statistics, subprocess, time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
adapters = os.path.join(root, "bench", "peers")

NAMES = ["clad", "enzyme"]
LABELS = {"clad": "Clad (clang plugin)", "enzyme": "Enzyme (clang plugin)"}
TITLES = {"clad": "Clad", "enzyme": "Enzyme"}


class Peer:
    def __init__(self, name, folder, plugin, flags):
        self.name, self.folder, self.plugin, self.flags = name, folder, plugin, flags
        self.commit = commit_of(folder, plugin)


def commit_of(folder, plugin):
    """The source commit build.sh recorded next to the plugin (peer-commit.txt), else unknown."""
    for d in (folder, os.path.dirname(plugin)):
        f = os.path.join(d, "peer-commit.txt")
        if os.path.exists(f):
            return open(f).read().split()[0]
    return "unknown"


def find(args):
    """The peers named by --clad / --enzyme whose plugin is there; one 'skipped' line for each
    one that is not."""
    found = []
    if args.clad:
        d = os.path.abspath(args.clad)
        so = [p for p in (os.path.join(d, "lib", "clad.so"), os.path.join(d, "clad.so"))
              if os.path.exists(p)]
        inc = os.path.join(d, "include")
        if so and os.path.exists(os.path.join(inc, "clad", "Differentiator", "Differentiator.h")):
            found.append(Peer("clad", d, so[0], [f"-fplugin={so[0]}", "-I", inc]))
        else:
            print(f"clad: skipped: no lib/clad.so and include/clad in {d} (build it with "
                  "bench/peers/build.sh --clad-src DIR)", flush=True)
    if args.enzyme:
        d = os.path.abspath(args.enzyme)
        so = sorted(glob.glob(os.path.join(d, "ClangEnzyme-*.so")) +
                    glob.glob(os.path.join(d, "Enzyme", "ClangEnzyme-*.so")))
        if so:
            found.append(Peer("enzyme", d, so[0], [f"-fplugin={so[0]}"]))
        else:
            print(f"enzyme: skipped: no ClangEnzyme-*.so in {d} or {d}/Enzyme (build it with "
                  "bench/peers/build.sh --enzyme-src DIR)", flush=True)
    return found


_clang19, _told = {}, set()


def is_clang19(cxx):
    """Whether cxx is clang 19, the compiler the plugins are built for."""
    if cxx not in _clang19:
        r = subprocess.run([cxx, "--version"], capture_output=True, text=True)
        _clang19[cxx] = r.returncode == 0 and "clang version 19." in r.stdout
    return _clang19[cxx]


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            return line.strip()[:200]
    return (text.strip().splitlines() or ["(no message)"])[-1][:200]


def run(peer, inst, cxx, args, flags, prefix, out, n, env, result, run_mode):
    """Builds, checks and times one peer on one kernel (run.py's build() has left the
    kernel's objects in out, its check the reference gradient out/ref.bin). Returns the
    mode's entry for result["modes"], or None when the compiler is not clang 19."""
    name, src, fn, cc = inst[0], inst[1], inst[3], os.path.basename(cxx)
    if not is_clang19(cxx):
        if (peer.name, cc) not in _told:
            _told.add((peer.name, cc))
            print(f"{peer.name}: skipped with {cc}: a clang 19 plugin, timed with clang++-19 "
                  "only", flush=True)
        return None
    pout = os.path.join(out, peer.name)
    os.makedirs(pout, exist_ok=True)
    print(f"== {name} ({cc}): building and timing the build of {peer.name}", flush=True)
    obj = os.path.join(pout, "gradient.o")
    cmd = [cxx] + flags + peer.flags + [f"-D{fn}_grad={fn}_cgp_grad", "-c",
                                         os.path.join(adapters, peer.name, f"{src}.cpp"),
                                         "-o", obj]
    runs = []
    for _ in range(args.build_reps):
        if os.path.exists(obj):
            os.remove(obj)
        start = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        runs.append(time.perf_counter() - start)
        if r.returncode != 0:
            return refused(peer, name, cc, pout, "compile", cmd, r)
    build_s = statistics.median(runs)
    entry = {"build_s": build_s, "build_ratio": build_s / result["build"]["original_s"],
             "build_runs": runs, "commit": peer.commit}
    exe = os.path.join(pout, "run")
    objs = [obj] + [os.path.join(out, f"{o}.o") for o in ("storeall", "budget", "primal", "main")]
    link = [cxx] + objs + ["-o", exe, "-L", os.path.join(prefix, "lib"), "-lcgp_rt", "-ladolc",
                           "-lbenchmark", "-lpthread", "-lm"]
    r = subprocess.run(link, capture_output=True, text=True)
    if r.returncode != 0:
        return {**refused(peer, name, cc, pout, "link", link, r), **entry}
    print(f"== {name} ({cc}): checking and timing {peer.name}", flush=True)
    times, stats = run_mode(exe, out, "cgp", n, args, env, tag=peer.name)
    if times is None:
        if "rel_error_vs_adolc" in stats:
            err = stats["rel_error_vs_adolc"]
            why = (f"wrong gradient (rel. error {err:.1e})" if err is not None
                   else "wrong gradient (not finite)")
        else:
            why = "crashed"
        print(f"!!!!!! {name} ({cc}): {peer.name}: {why}; not timed", flush=True)
        return {**entry, "error": why}
    t, p = times["self"], times.get("primal", times["self"])
    return {**stats, **entry, "mode": peer.name, "median_ms": t["median"], "min_ms": t["min"],
            "cv": t["cv"], "real_median_ms": t["real_median"], "primal_median_ms": p["median"],
            "ratio": t["median"] / p["median"], "ratio_min": t["min"] / p["min"]}


def refused(peer, name, cc, pout, step, cmd, r):
    log = os.path.join(pout, f"{step}.log")
    open(log, "w").write(shlex.join(cmd) + "\n" + r.stdout + r.stderr)
    why = f"refused ({step}: {first_error(r.stdout + r.stderr)})"
    print(f"!!!!!! {name} ({cc}): {peer.name} {why}; see {log}", flush=True)
    return {"error": why}


def short(x):
    """A table cell for a peer's entry that was not timed."""
    e = x["error"]
    if e.startswith("refused"):
        return "refused (" + e.split("(", 1)[1].split(":", 1)[0] + ")"
    return e


def render(results, args):
    """The Peers table: per kernel (clang 19 builds), gradient/primal, peak RSS and build-time
    ratio of cgp-ad's default plan, each peer and ADOL-C; then a line per peer."""
    names = [p.name for p in args.peers]
    rs = [r for r in results if any(k in r["modes"] for k in names)]
    if not rs:
        return ""
    tools = ["cgp"] + names + ["adolc"]
    title = {"cgp": "cgp-ad", "adolc": "ADOL-C", **TITLES}
    head = (["kernel"] + [f"gradient / primal: {title[t]}" for t in tools] +
            [f"peak RSS (MiB): {title[t]}" for t in tools] +
            [f"build / original compile: {title[t]}" for t in ["cgp"] + names])
    lines = ["| " + " | ".join(head) + " |", "| --- " * len(head) + "|"]
    for r in rs:
        m = r["modes"]
        ratio, rss, build = [], [], []
        for t in tools:
            x = m.get(t)
            if x is None:
                ratio.append("-"), rss.append("-")
            elif "error" in x:
                ratio.append(short(x)), rss.append("-")
            else:
                ratio.append(f"{x['ratio']:.2f}")
                rss.append(f"{x['peak_rss_kb'] / 1024:.0f}")
        build.append(f"{r['build']['ratio']:.2f}x")
        for t in names:
            x = m.get(t)
            build.append(f"{x['build_ratio']:.2f}x" if x and "build_ratio" in x else "-")
        lines.append(f"| {r['inst'][0]} | " + " | ".join(ratio + rss + build) + " |")
    lines.append("")
    for t in names:
        ok = [r for r in rs if t in r["modes"] and "error" not in r["modes"][t]
              and "cgp" in r["modes"]]
        bad = [f"{r['inst'][0]}: {r['modes'][t]['error']}" for r in rs
               if t in r["modes"] and "error" in r["modes"][t]]
        line = f"- {title[t]}: {len(ok)} of {len(rs)} kernels differentiated and checked"
        if ok:
            med = statistics.median(r["modes"][t]["ratio"] for r in ok)
            cgp = statistics.median(r["modes"]["cgp"]["ratio"] for r in ok)
            built = [r["modes"][t]["build_ratio"] for r in rs
                     if "build_ratio" in r["modes"].get(t, {})]
            line += (f"; median gradient/primal {med:.2f} (cgp-ad on the same kernels "
                     f"{cgp:.2f})")
            if built:
                line += f"; median build / original compile {statistics.median(built):.2f}x"
        line += (". Not timed: " + "; ".join(bad) + "." if bad else ".")
        lines.append(line)
    return "\n".join(lines)


def write_docs(args, table):
    """Writes the "Peers" section of docs/benchmarks.md (after the suite's section)."""
    ccs = [c for c in args.compilers if is_clang19(c)]
    version = "; ".join(subprocess.run([c, "--version"], capture_output=True, text=True)
                        .stdout.splitlines()[0] for c in ccs)
    rel = lambda d: os.path.relpath(os.path.abspath(d), root)
    cmd = ("python3 bench/suite/run.py" + (" --quick" if args.quick else "") +
           "".join(f" --cxx {c}" for c in args.cxx or []) +
           (f" --only {args.only}" if args.only else "") +
           (f" --clad {rel(args.clad)}" if args.clad else "") +
           (f" --enzyme {rel(args.enzyme)}" if args.enzyme else "") +
           f" --reps {args.reps} --slow-reps {args.slow_reps} --min-time {args.min_time}"
           f" --build-reps {args.build_reps} --write-peers-docs")
    commits = "; ".join(f"{TITLES[p.name]} {p.commit}" for p in args.peers)
    cpu = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    section = (
        "## Peers: Clad and Enzyme\n\n"
        f"Machine: {platform.machine()}, {cpu}, {os.cpu_count()} cores (shared with other work: "
        f"read ratios, not absolute times). Compiler: {version}, flags `-std=c++17 "
        f"{args.cxxflags}` for every part. Peers built from source by `bench/peers/build.sh` "
        f"against the same LLVM 19, commits measured: {commits}. Date: {datetime.date.today()}. "
        f"Command: `{cmd}` (median of {args.reps} repetitions, {args.slow_reps} for ADOL-C; "
        f"load average {args.load_before} at the start, {args.load_after} at the end).\n\n"
        "Each peer differentiates the suite's own kernel source (`bench/peers/<peer>/<kernel>.cpp` "
        "includes it); its gradient is checked against ADOL-C's (relative 1e-8, the tolerance "
        "cgp-ad's gradient meets) before it is timed, in a process of its own with the primal's "
        "repetitions interleaved, like cgp-ad's. *Peak RSS* is that process's, the kernel's data "
        "included. *Build / original compile* is the build of the kernel with its gradient over "
        "the compile of the kernel alone: for cgp-ad its run plus the generated unit's compile, "
        "for a peer the compile of its adapter with the plugin. A kernel a peer does not "
        "differentiate says why: *refused* (the compile or link failed), *wrong gradient* (the "
        "check failed), *crashed*; what is known of why is in "
        "[bench/peers/README.md](../bench/peers/README.md#what-each-peer-refuses-and-why), "
        "with how to build the peers.\n\n" + table + "\n")
    path = os.path.join(root, "docs", "benchmarks.md")
    text = open(path).read()
    start = text.find("## Peers:")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end:] if end >= 0 else "")
    else:
        suite = text.find("## Suite:")
        end = text.find("\n## ", suite + 1) if suite >= 0 else -1
        if end >= 0:
            text = text[:end + 1] + section + "\n" + text[end + 1:]
        else:
            text = text.rstrip("\n") + "\n\n" + section
    open(path, "w").write(text)
