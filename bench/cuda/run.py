#!/usr/bin/env python3
"""bench/cuda/run.py: what the gradients of ordinary CUDA kernels cost, kernel by kernel.

The kernels are the kernel-shape tests of tests/cuda/kernels (tiled matmul, block reduction,
stencil, scatter, 2-D grid with a __device__ solver, grid-stride loop, warp shuffles,
by-value parameters) and the CUDA sample's RNN batch (samples/cuda). For each, the installed
cgp-ad writes the gradient, and the script measures:

  * on a GPU (nvidia-smi works, and no --no-gpu): the median time of the primal and of the
    gradient kernel, CUDA events (each test's --time mode, built with nvcc -O3 for the GPU
    found; the sample's own timing line), and the card's name;
  * where nvcc is installed (no GPU needed): registers, stack frame (local memory) and spills
    of the primal and of the gradient kernel, from nvcc -Xptxas -v;
  * everywhere: the atomics, shuffles and barriers each thread executes in the primal and in
    the gradient, counted by the host emulation of CUDA (each test's --counts mode).

It prints one Markdown table (and writes the numbers to WORK/results.json); --write-docs
puts the table in the CUDA section of docs/benchmarks.md. bench/cuda/README.md says more.
"""
import argparse, concurrent.futures, datetime, json, os, platform, re, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KERNEL_TESTS = os.path.join(ROOT, "tests", "cuda", "kernels")
EMULATION = os.path.join(ROOT, "tests", "cuda", "emu", "cuda_emulation.h")
HARNESS = os.path.join(ROOT, "tests", "cuda", "harness")
SAMPLE = os.path.join(ROOT, "samples", "cuda")
sys.path.insert(0, os.path.dirname(HERE))
import machine  # noqa: E402  (bench/machine.py: rewriting a section of docs/benchmarks.md)

SECTION = "## CUDA kernels: gradient against primal, registers, atomics and shuffles"


def run(cmd, log, timeout, cwd=None):
    """Runs cmd, appending its command line and output to `log`; returns (status, output)."""
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        status, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        status = 124
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        out += f"\n(timed out after {timeout} s)\n"
    except OSError as e:
        status, out = 127, f"{e}\n"
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n" + out + f"(exit status {status})\n\n")
    return status, out


def first_error(out):
    """The first 'error:' line of a compiler's output, shortened."""
    for line in out.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()[:120]
    return out.strip().splitlines()[-1][:120] if out.strip() else "no output"


def parse_counts(out):
    """COUNTS <kernel> <threads> <atomics> <global> <shared> <shuffles> <votes> <barriers>."""
    counts = {}
    fields = ("threads", "atomics", "global_atomics", "shared_atomics", "shuffles", "votes",
              "barriers")
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 9 and parts[0] == "COUNTS":
            counts[parts[1]] = dict(zip(fields, map(int, parts[2:])))
    return counts


def demangle(name):
    """The function name of an Itanium-mangled kernel in the global namespace (_Z<len><name>)."""
    m = re.match(r"_Z(\d+)", name)
    if not m:
        return name
    start = m.end()
    return name[start:start + int(m.group(1))]


def parse_ptxas(out):
    """Per entry function: registers, stack frame bytes, spill stores and loads, shared bytes."""
    kernels, current = {}, None
    entries = set(re.findall(r"Compiling entry function '([^']+)'", out))
    for line in out.splitlines():
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            current = m.group(1) if m.group(1) in entries else None
            if current:
                kernels.setdefault(demangle(current), {})
            continue
        if not current:
            continue
        entry = kernels[demangle(current)]
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            entry.update(stack=int(m.group(1)), spill_stores=int(m.group(2)),
                         spill_loads=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            entry["registers"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            entry["smem"] = int(s.group(1)) if s else 0
            current = None
    return kernels


def parse_times(out):
    """TIME <kernel> <primal ms> <derivative ms> <ratio> lines, by derivative kernel."""
    times = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[0] == "TIME":
            times[parts[1]] = {"primal_ms": float(parts[2]), "gradient_ms": float(parts[3])}
    return times


def parse_sample_time(out):
    """The sample's 'time: primal P ms, gradient G ms ...' line."""
    m = re.search(r"^time: primal ([0-9.]+) ms, gradient ([0-9.]+) ms", out, re.M)
    return {"rnn_batch_grad": {"primal_ms": float(m.group(1)), "gradient_ms": float(m.group(2))}} if m else {}


class Bench:
    def __init__(self, args):
        self.args = args
        self.cgpad = os.path.join(args.prefix, "bin", "cgp-ad")
        self.include = os.path.join(args.prefix, "include")
        self.lib = os.path.join(args.prefix, "lib")
        self.cxx = os.environ.get("CXX", "c++")

    def nvcc_flags(self, gen):
        return ["-std=c++17", "-O3", f"-arch={self.args.arch}", "-I" + self.include,
                "-I" + HARNESS, "-I" + KERNEL_TESTS, "-I" + gen]

    def program(self, name, source, extra_sources, counts_source):
        """Differentiates `source`, counts under the emulation, reads ptxas, builds for the GPU."""
        work = os.path.join(self.args.work, name)
        gen = os.path.join(work, "gen")
        os.makedirs(gen, exist_ok=True)
        log = os.path.join(work, "log.txt")
        result = {"name": name, "source": os.path.relpath(source, ROOT), "log": log}
        status, out = run([self.cgpad, source, "-o", gen, "--", "-std=c++17",
                           "--cuda-gpu-arch=sm_90"], log, 120)
        if status != 0:
            result["refused"] = first_error(out)
            return result
        unit = os.path.join(gen, os.path.basename(source)[:-3] + ".cgp.cu")

        # Counts under the host emulation of CUDA.
        emu = os.path.join(work, "emu")
        sources = [unit] + ([counts_source] if counts_source != source else [])
        status, out = run([self.cxx, "-std=c++17", "-O2", "-x", "c++", "-include", EMULATION,
                           "-I" + HARNESS, "-I" + KERNEL_TESTS, "-I" + gen, "-I" + self.include]
                          + sources + ["-o", emu, "-pthread", "-L" + self.lib, "-lcgp_rt", "-lm"],
                          log, 300)
        if status != 0:
            result["counts_error"] = "emulation build failed: " + first_error(out)
        else:
            args = [] if counts_source != source else ["--counts"]
            status, out = run([emu] + args, log, 300)
            result["counts"] = parse_counts(out)
            # The emulation stops a kernel that races or deadlocks: a finding about the
            # kernel, reported in the row; anything else is a failure of the benchmark.
            report = next((l for l in out.splitlines() if l.startswith("cgp_emu: ")), None)
            if status != 0 and report:
                # "cross-block race in kernel k<<<(4,1,1), (64,1,1)>>>: blocks ..." up to ">>>"
                what = report[len("cgp_emu: "):]
                what = what[:what.find(">>>") + 3] if ">>>" in what else what[:120]
                result["emulation_report"] = "the emulation stops the program: " + what
            elif status != 0 or not result["counts"]:
                result["counts_error"] = f"--counts exit status {status}"

        # Registers and local memory from ptxas.
        if self.args.nvcc and not self.args.no_ptxas:
            status, out = run([self.args.nvcc] + self.nvcc_flags(gen) + ["-Xptxas", "-v", "-c", unit,
                                                                       "-o", os.path.join(work, "ptxas.o")],
                              log, 300)
            if status != 0:
                result["ptxas_error"] = first_error(out)
            else:
                result["ptxas"] = parse_ptxas(out)

        # The GPU build; it runs later, one program at a time (gpu_run).
        if self.args.gpu:
            exe = os.path.join(work, "gpu")
            status, out = run([self.args.nvcc] + self.nvcc_flags(gen) + [unit] + extra_sources
                              + ["-o", exe, "-L" + self.lib, "-lcgp_rt", "-lm"], log, 300)
            if status != 0:
                result["gpu_error"] = "nvcc: " + first_error(out)
            else:
                result["gpu_program"] = exe
                result["is_sample"] = bool(extra_sources)
        return result

    def gpu_run(self, result):
        """Runs a program built for the GPU: the tests' --time mode, the sample's own timing."""
        exe = result.pop("gpu_program", None)
        if not exe:
            return
        sample = result.pop("is_sample")
        args = self.args.sample_args.split() if sample else ["--time"]
        status, out = run([exe] + args, result["log"], 150, cwd=os.path.dirname(exe))
        result["times"] = parse_sample_time(out) if sample else parse_times(out)
        failed = re.findall(r"^FAIL: (.*)$", out, re.M)
        if status != 0:
            result["gpu_error"] = (f"{len(failed)} checks fail on the GPU, first: {failed[0][:100]}"
                                   if failed else f"exit status {status}: "
                                   + (out.strip().splitlines() or ["no output"])[-1][:100])


def per_thread(counts, kernel, field):
    c = counts.get(kernel)
    if not c or not c["threads"]:
        return None
    return c[field] / c["threads"]


def fmt(x):
    if x is None:
        return "?"
    return f"{x:.0f}" if x == int(x) else f"{x:.2f}"


def pair(a, b):
    return f"{fmt(a)} / {fmt(b)}"


def rows(results):
    """One row per primal kernel that a program launched (and its _grad)."""
    out = []
    for r in results:
        names = sorted({k for k in list(r.get("counts", {})) + list(r.get("ptxas", {}))
                        if not k.endswith("_grad")}
                       | {k[:-len("_grad")] for k in r.get("times", {}) if k.endswith("_grad")})
        if r.get("refused"):
            out.append((r, None))
        for k in names:
            out.append((r, k))
    return out


def table(results, gpu_name):
    lines = ["| kernel | program | gradient / primal time | registers, primal / gradient "
             "| stack bytes, primal / gradient | spill bytes (stores + loads), gradient "
             "| atomics per thread, primal / gradient | shuffles per thread, primal / gradient "
             "| barriers per thread, primal / gradient | notes |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r, k in rows(results):
        if k is None:
            lines.append(f"| ({r['name']}) | `{r['source']}` | | | | | | | | cgp-ad refuses the "
                         f"kernel: {r['refused']} |")
            continue
        g = k + "_grad"
        notes = [r[key] for key in ("emulation_report", "counts_error", "ptxas_error", "gpu_error")
                 if r.get(key)]
        t = r.get("times", {}).get(g)
        if t:
            ratio = t["gradient_ms"] / t["primal_ms"] if t["primal_ms"] else None
            time = f"{fmt(ratio)} ({t['primal_ms']:.3f} / {t['gradient_ms']:.3f} ms)"
        else:
            time = "pending (no GPU)" if not gpu_name else "?"
        p = r.get("ptxas", {})
        pk, pg = p.get(k, {}), p.get(g, {})
        c = r.get("counts", {})
        ga = c.get(g)
        atomics = pair(per_thread(c, k, "atomics"), per_thread(c, g, "atomics"))
        if ga and ga["shared_atomics"]:
            atomics += f" ({fmt(ga['shared_atomics'] / ga['threads'])} shared)"
        spills = (f"{pg['spill_stores'] + pg['spill_loads']}" if "spill_stores" in pg else "?")
        lines.append(
            f"| `{k}` | `{r['source']}` | {time} | {pair(pk.get('registers'), pg.get('registers'))} "
            f"| {pair(pk.get('stack'), pg.get('stack'))} | {spills} | {atomics} "
            f"| {pair(per_thread(c, k, 'shuffles'), per_thread(c, g, 'shuffles'))} "
            f"| {pair(per_thread(c, k, 'barriers'), per_thread(c, g, 'barriers'))} "
            f"| {'; '.join(notes)} |")
    return "\n".join(lines)


def gpu_name():
    if not shutil.which("nvidia-smi"):
        return None
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    name = p.stdout.strip().splitlines()[0] if p.returncode == 0 and p.stdout.strip() else None
    return name


def find_nvcc():
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc")
    if not nvcc and os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        nvcc = "/usr/local/cuda/bin/nvcc"
    return nvcc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prefix", default=os.path.join(ROOT, "build", "test-prefix"),
                    help="installed cgp-ad (bin/cgp-ad, include/, lib/libcgp_rt.a)")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench-cuda"),
                    help="work folder (emptied first)")
    ap.add_argument("--arch", default=None,
                    help="nvcc -arch (default: CGP_CUDA_ARCH, else native on a GPU, sm_90 without)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                    help="programs built and run at once")
    ap.add_argument("--only", default="",
                    help="comma-separated program names (tests/cuda/kernels/NAME.cu, rnn_batch)")
    ap.add_argument("--no-gpu", action="store_true", help="skip the GPU timings")
    ap.add_argument("--no-ptxas", action="store_true", help="skip nvcc -Xptxas -v")
    ap.add_argument("--sample-args", default="4096 200",
                    help="arguments of the sample's program on the GPU (sequences, steps)")
    ap.add_argument("--write-docs", action="store_true",
                    help="put the table in docs/benchmarks.md")
    args = ap.parse_args()
    args.prefix = os.path.abspath(args.prefix)
    args.work = os.path.abspath(args.work)
    if not os.access(os.path.join(args.prefix, "bin", "cgp-ad"), os.X_OK):
        sys.exit(f"bench/cuda: {args.prefix}/bin/cgp-ad is missing (install cgp-ad there, or "
                 "give --prefix)")
    args.nvcc = find_nvcc()
    gpu = None if args.no_gpu else gpu_name()
    args.gpu = bool(gpu and args.nvcc)
    args.arch = args.arch or os.environ.get("CGP_CUDA_ARCH") or ("native" if args.gpu else "sm_90")

    programs = []  # (name, source, extra sources of the GPU build, counts source)
    for f in sorted(os.listdir(KERNEL_TESTS)):
        if f.endswith(".cu"):
            src = os.path.join(KERNEL_TESTS, f)
            programs.append((f[:-3], src, [], src))
    programs.append(("rnn_batch", os.path.join(SAMPLE, "rnn_batch.cu"),
                     [os.path.join(SAMPLE, "main.cu")], os.path.join(HERE, "rnn_batch_counts.cu")))
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {p[0] for p in programs}
        if unknown:
            sys.exit(f"bench/cuda: no program named {', '.join(sorted(unknown))}")
        programs = [p for p in programs if p[0] in wanted]

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    nvcc_version = "not installed"
    if args.nvcc:
        v = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"release ([0-9.]+)", v)
        nvcc_version = m.group(1) if m else v.strip().splitlines()[-1] if v.strip() else "?"
    version = subprocess.run([os.path.join(args.prefix, "bin", "cgp-ad"), "--version"],
                             capture_output=True, text=True).stdout.strip().splitlines()
    print(f"bench/cuda: cgp-ad from {args.prefix}; nvcc {nvcc_version}"
          f"{' (-arch=' + args.arch + ')' if args.nvcc else ''}; "
          f"{'GPU: ' + gpu if args.gpu else 'no GPU: timings pending'}", flush=True)

    bench = Bench(args)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda p: bench.program(*p), programs))
    # One program at a time on the GPU, after every build and emulation run has finished.
    for r in results:
        bench.gpu_run(r)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump({"gpu": gpu if args.gpu else None, "nvcc": nvcc_version, "arch": args.arch,
                   "results": results}, f, indent=1)

    cpu = "unknown"
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                   if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    header = [SECTION, ""]
    header.append(
        f"Machine: {platform.machine()}, {cpu}, {os.cpu_count()} cores; "
        + (f"GPU: {gpu}" if args.gpu else "no GPU (the time column is pending a GPU)")
        + f". nvcc {nvcc_version}" + (f" (`-O3 -arch={args.arch}`)" if args.nvcc else "")
        + f"; {version[0] if version else 'cgp-ad'}. Date: {datetime.date.today()}. "
        f"Command: `bench/cuda/run.sh --prefix PREFIX{' --only ' + args.only if args.only else ''}`.")
    header.append("")
    text = "\n".join(header) + "\n" + table(results, gpu if args.gpu else None) + "\n"
    print()
    print(text)
    if not args.gpu:
        print("GPU timings pending: " + ("nvidia-smi is missing or fails here" if not gpu and not args.no_gpu
                                         else "--no-gpu" if args.no_gpu else "nvcc is missing")
              + "; run bench/cuda/run.sh on a machine with a GPU for the time column.")
    if args.write_docs:
        machine.rewrite_section(ROOT, SECTION, text)
        print(f"bench/cuda: wrote the table into {os.path.join(ROOT, 'docs', 'benchmarks.md')}")
    failed = [r["name"] for r in results if any(k in r for k in ("counts_error", "ptxas_error"))]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
