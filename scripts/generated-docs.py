#!/usr/bin/env python3
"""generated-docs.py - keeps docs/generated-code.md true to the tool.

The code blocks of docs/generated-code.md are real: each is preceded by a
marker that says where it comes from, and this script writes it again from
that source.

  <!-- source: docs/examples/fit.cpp -->
      the block is the file, as it is
  <!-- output: docs/examples/fit.cpp --strategy=store-all | "double fit_grad(...) {" +16 | ... -->
      the block is cgp-ad's output for that input with those options (the
      generated file, NAME.cgp.cpp or .cgp.cu), in pieces: each piece is a
      line of the output (quoted, with its indentation), searched after the
      previous piece, and the number of lines taken from it. A line "..."
      (indented as the piece after it) stands for what lies between two
      pieces that do not follow each other; a last piece ... for the rest.

  scripts/generated-docs.py --cgp-ad PATH --check    fails if a block differs
  scripts/generated-docs.py --cgp-ad PATH            writes the blocks again

cgp-ad runs in a scratch folder on a copy of the input named as in the
marker; the output's `#line` names it as if it were in /home/you/project.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "generated-code.md")
MARKER = re.compile(r"^<!-- (source|output): (.*) -->$")
PIECE = re.compile(r'^"(.*)" \+(\d+)$')


class DocError(Exception):
    pass


def run_cgp_ad(cgp_ad, include, source, options, cache):
    key = (source, tuple(options))
    if key in cache:
        return cache[key]
    scratch = tempfile.mkdtemp(prefix="cgp-docs-")
    try:
        name = os.path.basename(source)
        shutil.copy(os.path.join(ROOT, source), os.path.join(scratch, name))
        cmd = [cgp_ad] + options + [name, "-o", "gen", "--", "-std=c++17", "-I" + include]
        run = subprocess.run(cmd, cwd=scratch, capture_output=True, text=True)
        if run.returncode != 0:
            raise DocError("%s failed:\n%s" % (" ".join(cmd), run.stderr))
        stem, ext = os.path.splitext(name)
        with open(os.path.join(scratch, "gen", stem + ".cgp" + ext)) as f:
            # `#line 1 "/.../fit.cpp"` names the input's absolute path.
            lines = f.read().replace(scratch + "/", "/home/you/project/").split("\n")
    finally:
        shutil.rmtree(scratch)
    cache[key] = lines
    return lines


def output_block(spec, cgp_ad, include, cache):
    parts = [p.strip() for p in spec.split(" | ")]
    words = shlex.split(parts[0])
    source, options = words[0], words[1:]
    lines = run_cgp_ad(cgp_ad, include, source, options, cache)
    block, at = [], 0
    for piece in parts[1:]:
        if piece == "...":
            block.append("...")
            continue
        m = PIECE.match(piece)
        if not m:
            raise DocError("bad piece %r" % piece)
        anchor, count = m.group(1), int(m.group(2))
        start = next((i for i in range(at, len(lines)) if lines[i] == anchor), None)
        if start is None:
            raise DocError("%s: no line %r after line %d of the output" % (source, anchor, at + 1))
        if block and start > at:
            indent = re.match(r"^\s*", lines[start]).group(0)
            block.append(indent + "...")
        block.extend(lines[start:start + count])
        at = start + count
    return block


def regenerate(text, cgp_ad, include):
    out, lines, i, cache = [], text.split("\n"), 0, {}
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        m = MARKER.match(line)
        if not m:
            continue
        if i >= len(lines) or not lines[i].startswith("```"):
            raise DocError("line %d: a marker must stand right above a code block" % i)
        out.append(lines[i])
        end = next(j for j in range(i + 1, len(lines)) if lines[j] == "```")
        if m.group(1) == "source":
            with open(os.path.join(ROOT, m.group(2).strip())) as f:
                out.extend(f.read().rstrip("\n").split("\n"))
        else:
            out.extend(output_block(m.group(2), cgp_ad, include, cache))
        out.append("```")
        i = end + 1
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cgp-ad", required=True, help="the installed cgp-ad")
    parser.add_argument("--check", action="store_true", help="fail if the page differs")
    args = parser.parse_args()
    cgp_ad = os.path.abspath(args.cgp_ad)
    include = os.path.join(os.path.dirname(os.path.dirname(cgp_ad)), "include")
    with open(DOC) as f:
        text = f.read()
    try:
        new = regenerate(text, cgp_ad, include)
    except DocError as e:
        print("generated-docs: " + str(e), file=sys.stderr)
        return 1
    if args.check:
        if new != text:
            import difflib
            diff = difflib.unified_diff(text.split("\n"), new.split("\n"), "generated-code.md",
                                        "what cgp-ad writes", lineterm="", n=1)
            print("\n".join(diff))
            print("generated-docs: docs/generated-code.md differs from cgp-ad's output; run "
                  "scripts/generated-docs.py --cgp-ad PATH to write it again", file=sys.stderr)
            return 1
        print("generated-docs: docs/generated-code.md matches cgp-ad's output")
        return 0
    if new != text:
        with open(DOC, "w") as f:
            f.write(new)
        print("generated-docs: docs/generated-code.md written again")
    return 0


if __name__ == "__main__":
    sys.exit(main())
