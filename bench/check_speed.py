"""How fast `tf-insight check` is on real library code, against plain `ast.parse`.

Both run over the installed `keras` and `tf_keras` sources, interleaved and repeated (the
machine is shared: compare side by side, never trust one absolute time), each run in a fresh
process as the CLI runs: in a shared one, a parse run after a check inherits jedi's module
cache, and every garbage collection in it costs ten times as much. Prints the ratio (target
≤ 3×), files/s, and the findings made there with a sample to read: library code is mostly
correct code, so these are mostly false positives to fix.

Then the same check with one worker per core (`--jobs`), interleaved with the serial runs: the
speed-up (target ≥ 1.7× on this 2-core machine), and the findings must be identical. With
`--monorepo`, a synthetic monorepo of 10,000 files (the two packages copied under new package
names into `~/.cache/tf-insight/monorepo`, made once) checked at 1,000, 5,000 and 10,000 files:
the time per file must stay flat (linear growth).

    .venv/bin/python bench/check_speed.py [--repeat 3] [--sample 15] [--monorepo]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import json
import random
import shutil
import statistics
import subprocess
import sys
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

from tf_insight.check import parallel
from tf_insight.check.analyzer import iter_python_files
from tf_insight.check.parallel import default_jobs
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


def time_check(roots: list[Path], jobs: int = 1) -> tuple[float, list[Finding]]:
    start = time.perf_counter()
    findings: list[Finding] = []
    for root in roots:  # one project per package, as a user checking that package would
        project = Project(config=Config(), root=root)
        for analysis in parallel.check_paths([root], project, jobs=jobs):
            findings.extend(analysis.findings)
    return time.perf_counter() - start, findings


def timed_run(what: str, *roots: Path) -> tuple[float, list[list[Any]]]:
    """One timed run (`parse`, `check` or `parallel`) in a fresh interpreter: (seconds,
    findings)."""
    output = subprocess.run([sys.executable, __file__, "--run", what, *map(str, roots)],
                            check=True, capture_output=True, text=True).stdout
    result = json.loads(output)
    return result["seconds"], result.get("findings", [])


def run(what: str, roots: list[Path], files: list[Path]) -> None:
    if what == "parse":
        print(json.dumps({"seconds": time_parse(files)}))
        return
    elapsed, findings = time_check(roots, default_jobs() if what == "parallel" else 1)
    print(json.dumps({"seconds": elapsed, "findings": [
        [f.path, f.span.line, f.span.column, f.code, f.message] for f in findings]}))


MONOREPO = Path.home() / ".cache" / "tf-insight" / "monorepo"


def monorepo(files: list[Path], roots: list[Path], size: int) -> Path:
    """`size` files: the packages' modules copied under new package names (`pkg_0/keras/…`),
    made once in the cache."""
    folder = MONOREPO / str(size)
    if not (folder / "done").exists():
        shutil.rmtree(folder, ignore_errors=True)
        for index in range(size):
            source = files[index % len(files)]
            root = next(r for r in roots if source.is_relative_to(r))
            copy = folder / f"pkg_{index // len(files)}" / root.name / source.relative_to(root)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy)
        (folder / "done").write_text("")
    return folder


def monorepo_scaling(files: list[Path], roots: list[Path]) -> None:
    print(f"\nmonorepo, {default_jobs()} jobs:")
    per_file: list[float] = []
    for size in (1_000, 5_000, 10_000):
        folder = monorepo(files, roots, size)
        seconds, _ = timed_run("parallel", folder)
        per_file.append(seconds / size)
        print(f"  {size:6,} files: {seconds:6.1f} s, {1000 * per_file[-1]:.2f} ms per file")
    print(f"  time per file at 10,000 / at 1,000: {per_file[-1] / per_file[0]:.2f} "
          "(1: linear)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", type=int, default=15)
    parser.add_argument("--monorepo", action="store_true",
                        help="also time a synthetic monorepo of 1,000 to 10,000 files")
    parser.add_argument("--run", choices=("parse", "check", "parallel"), help=argparse.SUPPRESS)
    parser.add_argument("roots", nargs="*", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    roots = args.roots or [package_source("keras"), package_source("tf_keras")]
    files = [f for root in roots for f in iter_python_files([root], Config())]
    if args.run:
        run(args.run, roots, files)
        return
    lines = sum(f.read_text(encoding="utf-8", errors="replace").count("\n") for f in files)
    parse_times: list[float] = []
    check_times: list[float] = []
    parallel_times: list[float] = []
    findings: list[list[Any]] = []
    for _ in range(args.repeat):
        parse_times.append(timed_run("parse")[0])
        elapsed, findings = timed_run("check")
        check_times.append(elapsed)
        elapsed, parallel_findings = timed_run("parallel")
        parallel_times.append(elapsed)
        if parallel_findings != findings:
            raise SystemExit("the parallel check's findings differ from the serial one's")
    parse, check = statistics.median(parse_times), statistics.median(check_times)
    print(f"files: {len(files)} ({lines:,} lines) in {', '.join(str(r) for r in roots)}")
    print(f"ast.parse:        median {parse:6.2f} s  ({len(files) / parse:7.0f} files/s)")
    print(f"tf-insight check: median {check:6.2f} s  ({len(files) / check:7.0f} files/s)")
    print(f"ratio check/parse: {check / parse:.2f}x (target <= 3x); each run: "
          + " ".join(f"{c / p:.2f}x" for p, c in zip(parse_times, check_times, strict=True)))
    parallel = statistics.median(parallel_times)
    print(f"with {default_jobs()} jobs:     median {parallel:6.2f} s: {check / parallel:.2f}x "
          "the serial check (target >= 1.7x); each run: " + " ".join(
              f"{c / p:.2f}x" for c, p in zip(check_times, parallel_times, strict=True))
          + "; findings identical")
    counts = Counter(code for _, _, _, code, _ in findings)
    print(f"findings: {len(findings)} " + " ".join(f"{c}={n}" for c, n in sorted(counts.items())))
    for path, line, _column, code, message in random.Random(0).sample(
            findings, min(args.sample, len(findings))):
        print(f"  {path}:{line}: {code} {message[:150]}")
    if args.monorepo:
        monorepo_scaling(files, roots)


if __name__ == "__main__":
    main()
