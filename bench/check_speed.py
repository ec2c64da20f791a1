"""How fast `tf-insight check` is on real library code, against plain `ast.parse`.

Both run over the installed `keras` and `tf_keras` sources, interleaved and repeated (the
machine is shared: compare side by side, never trust one absolute time), each run in a fresh
process as the CLI runs: in a shared one, a parse run after a check inherits jedi's module
cache, and every garbage collection in it costs ten times as much. Prints the ratio (target
≤ 3×), files/s, and the findings made there with a sample to read: library code is mostly
correct code, so these are mostly false positives to fix.

    .venv/bin/python bench/check_speed.py [--repeat 3] [--sample 15]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import json
import random
import statistics
import subprocess
import sys
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

from tf_insight.check.analyzer import check_paths, iter_python_files
from tf_insight.check.project import Project
from tf_insight.config import Config
from tf_insight.findings import Finding


def package_source(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{name} is not installed in this interpreter")
    return Path(next(iter(spec.submodule_search_locations)))


def time_parse(files: list[Path]) -> float:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            with contextlib.suppress(SyntaxError, UnicodeDecodeError):
                ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return time.perf_counter() - start


def time_check(roots: list[Path]) -> tuple[float, list[Finding]]:
    start = time.perf_counter()
    findings: list[Finding] = []
    for root in roots:  # one project per package, as a user checking that package would
        project = Project(config=Config(), root=root)
        for analysis in check_paths([root], project):
            findings.extend(analysis.findings)
    return time.perf_counter() - start, findings


def timed_run(what: str) -> tuple[float, list[list[Any]]]:
    """One timed run (`parse` or `check`) in a fresh interpreter: (seconds, findings)."""
    output = subprocess.run([sys.executable, __file__, "--run", what], check=True,
                            capture_output=True, text=True).stdout
    result = json.loads(output)
    return result["seconds"], result.get("findings", [])


def run(what: str, roots: list[Path], files: list[Path]) -> None:
    if what == "parse":
        print(json.dumps({"seconds": time_parse(files)}))
        return
    elapsed, findings = time_check(roots)
    print(json.dumps({"seconds": elapsed, "findings": [
        [f.path, f.span.line, f.code, f.message] for f in findings]}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", type=int, default=15)
    parser.add_argument("--run", choices=("parse", "check"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    roots = [package_source("keras"), package_source("tf_keras")]
    files = [f for root in roots for f in iter_python_files([root], Config())]
    if args.run:
        run(args.run, roots, files)
        return
    lines = sum(f.read_text(encoding="utf-8", errors="replace").count("\n") for f in files)
    parse_times: list[float] = []
    check_times: list[float] = []
    findings: list[list[Any]] = []
    for _ in range(args.repeat):
        parse_times.append(timed_run("parse")[0])
        elapsed, findings = timed_run("check")
        check_times.append(elapsed)
    parse, check = statistics.median(parse_times), statistics.median(check_times)
    print(f"files: {len(files)} ({lines:,} lines) in {', '.join(str(r) for r in roots)}")
    print(f"ast.parse:        median {parse:6.2f} s  ({len(files) / parse:7.0f} files/s)")
    print(f"tf-insight check: median {check:6.2f} s  ({len(files) / check:7.0f} files/s)")
    print(f"ratio check/parse: {check / parse:.2f}x (target <= 3x); each run: "
          + " ".join(f"{c / p:.2f}x" for p, c in zip(parse_times, check_times, strict=True)))
    counts = Counter(code for _, _, code, _ in findings)
    print(f"findings: {len(findings)} " + " ".join(f"{c}={n}" for c, n in sorted(counts.items())))
    for path, line, code, message in random.Random(0).sample(
            findings, min(args.sample, len(findings))):
        print(f"  {path}:{line}: {code} {message[:150]}")


if __name__ == "__main__":
    main()
