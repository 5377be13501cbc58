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


def rewrite_section(root, heading, section):
    """Puts `section` in place of the section of docs/benchmarks.md whose heading starts with
    `heading` (appended when there is none), keeping the hand-written notes that follow the
    old section's table."""
    path = os.path.join(root, "docs", "benchmarks.md")
    text = open(path).read() if os.path.exists(path) else (
        "# Benchmarks\n\nMeasured by the programs in `bench/`; numbers are medians, and "
        "ratios matter more than times on a shared machine.\n\n")
    start = text.find(heading)
    if start >= 0:
        end = text.find("\n## ", start + 1)
        old = text[start:end + 1] if end >= 0 else text[start:]
        table_at = old.find("| kernel |")
        notes_at = old.find("\n\n", table_at) if table_at >= 0 else -1
        notes = old[notes_at + 2:] if notes_at >= 0 else ""
        section += "\n" + notes if notes.strip() else "\n"
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    open(path, "w").write(text)
