"""Is the editor's incremental analysis right, and cheap, on code nobody here wrote?

Takes Python files of the precision corpus (the pinned TF/Keras libraries of
`bench/precision.py`, fetched from PyPI into its cache), and in a sample of them:

- makes random statement-level edits (a line deleted, a line copied into another function,
  a statement inserted with the file's own names, a name replaced: the edits of
  tests/test_source_edited.py) and checks that each version's incremental analysis has
  exactly the findings and hover facts of a fresh one;
- types a statement into a function, a key at a time, and times each key's analysis, and a
  whole analysis of the same text, side by side (CPU time).

Prints the mismatches (any: exit 1), the share of top-level statements analysed again, and the
CPU time per key, incremental and whole. Each file is analysed on its own (no project around
it: the same for both analyses).

    .venv/bin/python bench/incremental.py [--files 120] [--typed 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.precision import fetch, packages
from tests.test_source_edited import parses, rewritten
from tf_insight.check import incremental
from tf_insight.check.analyzer import Analysis, analyze_source, paused_gc
from tf_insight.check.project import Project
from tf_insight.check.source import SourceFile

TYPED = "probe = tf.reduce_mean({name} * 2.0, axis=-1) + len(items)"


def corpus(minimum_lines: int) -> list[Path]:
    files = []
    for package in packages():
        for path in sorted(fetch(package).rglob("*.py")):
            text = path.read_text(encoding="utf-8", errors="replace")
            if text.count("\n") >= minimum_lines and parses(text):
                files.append(path)
    return files


def same(analysis: Analysis, text: str) -> bool:
    fresh = analyze_source(text, "m.py", Project())
    return analysis.findings == fresh.findings and (
        fresh.module is None or analysis.graph_facts == fresh.module.graph.facts())


def edit_at_random(path: Path, rng: random.Random, edits: int) -> tuple[int, int, list[float]]:
    """(edits made, mismatches, share of statements analysed again per incremental edit)"""
    text = path.read_text(encoding="utf-8", errors="replace")
    source, project = SourceFile.parse("m.py", text, editable=True), Project()
    memo = incremental.analyze(source, project)[1]
    made, wrong, shares = 0, 0, []
    for _ in range(edits):
        edited = rewritten(text, rng)
        if not parses(edited):
            continue
        text, made = edited, made + 1
        source = source.edited(text)
        analysis, memo = incremental.analyze(source, project, memo)
        if not same(analysis, text):
            wrong += 1
            print(f"  MISMATCH in {path} after edit {made}")
        assert source.tree is not None
        shares.append(1.0 if analysis.reanalysed is None
                      else analysis.reanalysed / len(source.tree.body))
    return made, wrong, shares


def type_into_a_function(path: Path, rng: random.Random) -> tuple[list[float], list[float], int]:
    """CPU seconds of each key's incremental analysis and of a whole one, and mismatches."""
    text = path.read_text(encoding="utf-8", errors="replace")
    functions = [node for node in ast.walk(ast.parse(text))
                 if isinstance(node, ast.FunctionDef) and len(node.body) > 1]
    if not functions:
        return [], [], 0
    function = rng.choice(functions)
    lines = text.split("\n")
    at = function.body[0].end_lineno or function.body[0].lineno  # a new line after the first
    indent = " " * function.body[1].col_offset
    names = [a.arg for a in function.args.args if a.arg not in ("self", "cls")] or ["x"]
    typed = TYPED.format(name=rng.choice(names))
    lines.insert(at, indent)
    source, project = SourceFile.parse("m.py", "\n".join(lines), editable=True), Project()
    memo = incremental.analyze(source, project)[1]
    keys, wholes, wrong = [], [], 0
    for count in range(1, len(typed) + 1):
        lines[at] = indent + typed[:count]
        text = "\n".join(lines)
        start = time.process_time()
        with paused_gc():
            source = source.edited(text)
            analysis, memo = incremental.analyze(source, project, memo)
        middle = time.process_time()
        with paused_gc():
            analyze_source(text, "m.py", Project())
        end = time.process_time()
        if source.tree is not None:  # a key that leaves the line unparseable costs ~nothing
            keys.append(middle - start)
            wholes.append(end - middle)
            wrong += not same(analysis, text)
    return keys, wholes, wrong


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=120, help="files edited at random")
    parser.add_argument("--edits", type=int, default=8, help="edits per file")
    parser.add_argument("--typed", type=int, default=30, help="functions typed into")
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    files = corpus(minimum_lines=150)
    print(f"corpus: {len(files)} files of 150 lines or more")
    # `m.py` is relative: in an empty folder, no project (this repository's, with its build
    # outputs) is around it
    empty = tempfile.TemporaryDirectory(prefix="tf-insight-incremental-")  # removed at exit
    os.chdir(empty.name)
    made = wrong = 0
    shares: list[float] = []
    for path in rng.sample(files, min(options.files, len(files))):
        counts = edit_at_random(path, rng, options.edits)
        made, wrong, shares = made + counts[0], wrong + counts[1], shares + counts[2]
    print(f"random edits: {made} in {min(options.files, len(files))} files, {wrong} mismatches; "
          f"statements analysed again: median {statistics.median(shares):.0%}, "
          f"mean {statistics.mean(shares):.0%} (whole analyses counted as 100%)")
    keys: list[float] = []
    wholes: list[float] = []
    for path in rng.sample(files, min(options.typed, len(files))):
        typed_keys, typed_wholes, typed_wrong = type_into_a_function(path, rng)
        keys, wholes, wrong = keys + typed_keys, wholes + typed_wholes, wrong + typed_wrong
    print(f"typing a statement into {options.typed} functions: {len(keys)} keys that parse, "
          f"CPU per key p50 {percentile(keys, .5) * 1000:.1f} ms, p95 "
          f"{percentile(keys, .95) * 1000:.1f} ms; a whole analysis of the same texts p50 "
          f"{percentile(wholes, .5) * 1000:.1f} ms, p95 {percentile(wholes, .95) * 1000:.1f} ms "
          f"(ratio of the sums {sum(keys) / sum(wholes):.2f})")
    print(f"mismatches with a fresh analysis: {wrong}")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
