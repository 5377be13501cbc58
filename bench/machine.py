"""machine.py: the line each benchmark's section of docs/benchmarks.md starts
with (machine, compiler, date), and the rewriting of one section there."""
import datetime, os, platform, subprocess


def describe(cxx):
    """'Machine: ..., N cores (shared; report ratios). Compiler: ..., `-O2`. Date: ...'"""
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    compiler = subprocess.run([cxx, "--version"], check=True, capture_output=True,
                              text=True).stdout.splitlines()[0]
    return (f"Machine: {platform.machine()}, {cpu}, {os.cpu_count()} cores (shared; report "
            f"ratios). Compiler: {compiler}, `-O2`. Date: {datetime.date.today()}.")
