"""How fast `tf-insight check` is on real library code, against plain `ast.parse`, and whatever
the layout around the files checked.

Both run over the installed `keras` and `tf_keras` sources, interleaved and repeated (the
machine is shared: compare side by side, never trust one absolute time), each run in a fresh
process as the CLI runs: in a shared one, a parse run after a check inherits jedi's module
cache, and every garbage collection in it costs ten times as much. Prints the ratio (target
≤ 3×), files/s, and the findings made there with a sample to read: library code is mostly
correct code, so these are mostly false positives to fix.

Then the same check with one worker per core (`--jobs`), interleaved with the serial runs: the
speed-up (target ≥ 1.7× on this 2-core machine), and the findings must be identical.

Then the layouts users have (issue 28), each run as the CLI (`python -m tf_insight.cli check`,
startup included), side by side with the same files checked as their own project, in
`~/.cache/tf-insight/layouts` (made once, files hard-linked):
- a virtual environment inside a git repository, listed in its `.gitignore` under another name
  than `.venv` (`repo/tfenv`, every `.py` of this interpreter's site-packages: ~8,400 files):
  its `keras` and `tf_keras` checked from the repository's root, against `plain/` (the same
  two packages outside any repository);
- a folder without a root marker inside a larger repository (`big/research/tf_keras` in a
  repository of 10,000 other files), against `own/tf_keras`;
- one small new file in a 10,000-file project (`big/scratch.py`) and in the repository with
  the ignored venv (`repo/scratch.py`): target ≤ 0.5 s each;
each layout's time over its reference (target ≤ 1.5×), serial and with one job per core (the
parallel speed-up, target ≥ 1.7×), the cores used, and whether the findings are the same. The
first run of each is cold (no cached import index: the user's cache folder is a private one,
emptied before it) and shown apart; the ratios are of the warm runs. The machine's other load
decides the parallel speed-up (a busy neighbour leaves one core): the cores each run used are
printed beside it.

    .venv/bin/python bench/check_speed.py [--repeat 3] [--sample 15] [--monorepo] [--no-layouts]
"""

from __future__ import annotations

import argparse
import ast
import compileall
import contextlib
import importlib.util
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
import warnings
from collections import Counter
from dataclasses import dataclass
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


LAYOUTS = Path.home() / ".cache" / "tf-insight" / "layouts"
SCRATCH = "import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n    print(x)\n    return x\n"


def make_layouts(files: list[Path], roots: list[Path]) -> Path:
    """The layouts' folders (see the module docstring), made once; files are hard links."""
    if (LAYOUTS / "done").exists():
        return LAYOUTS
    shutil.rmtree(LAYOUTS, ignore_errors=True)

    def link(source: Path, target: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)

    def packages(into: Path, names: tuple[str, ...] = ("keras", "tf_keras")) -> None:
        for root in roots:
            if root.name in names:
                for path in files:
                    if path.is_relative_to(root):
                        link(path, into / root.name / path.relative_to(root))

    packages(LAYOUTS / "plain")
    packages(LAYOUTS / "own", ("tf_keras",))
    repo = LAYOUTS / "repo"
    site = Path(sysconfig.get_paths()["purelib"])
    venv_site = repo / "tfenv" / "lib" / site.parent.name / "site-packages"
    for folder, _dirs, names in os.walk(site):
        for name in names:
            path = Path(folder) / name
            if name.endswith(".py") or ".dist-info" in folder:
                link(path, venv_site / path.relative_to(site))
    (repo / "tfenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (repo / ".gitignore").write_text("tfenv/\n")
    (repo / "train.py").write_text(SCRATCH)
    (repo / "scratch.py").write_text(SCRATCH)
    big = LAYOUTS / "big"
    for index in range(10_000):
        source = files[index % len(files)]
        root = next(r for r in roots if source.is_relative_to(r))
        link(source, big / f"pkg_{index // len(files)}" / root.name / source.relative_to(root))
    packages(big / "research", ("tf_keras",))
    (big / "pyproject.toml").write_text("[project]\nname = 'big'\n")
    (big / "scratch.py").write_text(SCRATCH)
    for repository in (repo, big):
        subprocess.run(["git", "init", "-q", str(repository)], check=True)
    (LAYOUTS / "done").write_text("")
    return LAYOUTS


@dataclass(frozen=True)
class Layout:
    name: str
    cwd: str  # below LAYOUTS
    paths: tuple[str, ...]
    reference: tuple[str, tuple[str, ...]] | None  # the same files as their own project
    parallel: bool = True  # worth timing with one job per core


def layout_list() -> list[Layout]:
    site = f"tfenv/lib/{Path(sysconfig.get_paths()['purelib']).parent.name}/site-packages"
    return [
        Layout("venv inside a git repository (its keras + tf_keras)", "repo",
               (f"{site}/keras", f"{site}/tf_keras"), ("plain", ("keras", "tf_keras"))),
        Layout("marker-less subfolder of a 10,000-file repository", "big", ("research",),
               ("own", ("tf_keras",))),
        Layout("one small file in a 10,000-file project", "big", ("scratch.py",), None, False),
        Layout("one small file beside an ignored 8,400-file venv", "repo", ("scratch.py",), None,
               False),
    ]


def cli_check(cwd: Path, paths: tuple[str, ...], jobs: int, cache: Path
              ) -> tuple[float, float, list[list[Any]]]:
    """One `tf-insight check` as a user runs it: (wall seconds, CPU seconds, findings with
    paths from their package folder on)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", "tf_insight.cli", "check", "--output-format", "json", "--jobs",
         str(jobs), *paths], cwd=cwd, capture_output=True, text=True,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode not in (0, 1):
        raise SystemExit(f"check failed in {cwd}: {completed.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    findings = [[_from_package(f["path"]), f["line"], f["column"], f["code"], f["message"]]
                for f in json.loads(completed.stdout)]
    return elapsed, cpu, sorted(findings)


def _places(findings: list[list[Any]]) -> list[list[Any]]:
    """Where the findings are and what rule: their messages may say which Keras the project
    was found to run on, which differs between an environment and a folder (site-packages
    holds other packages' requirements)."""
    return [finding[:4] for finding in findings]


def _from_package(path: str) -> str:
    parts = Path(path).parts
    for start, part in enumerate(parts):
        if part in ("keras", "tf_keras"):
            return "/".join(parts[start:])
    return path


def layouts_section(files: list[Path], roots: list[Path], repeat: int) -> None:
    base = make_layouts(files, roots)
    spec = importlib.util.find_spec("tf_insight")
    assert spec is not None and spec.submodule_search_locations
    # as a pip install leaves it: an editable install under PYTHONDONTWRITEBYTECODE would
    # compile the package at every start (0.1 s of a small file's check)
    compileall.compile_dir(spec.submodule_search_locations[0], quiet=1)
    cache = base / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    jobs = default_jobs()
    print(f"\nlayouts (issue 28), as the CLI runs; {jobs} jobs in parallel runs; load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    # (layout name, what) → timings; what: layout/reference × serial/parallel
    times: dict[tuple[str, str], list[float]] = {}
    cores: dict[tuple[str, str], list[float]] = {}
    same: dict[str, bool] = {}
    for round_ in range(repeat + 1):  # round 0: cold (no cached index), shown apart
        for layout in layout_list():
            if round_ == 0:
                shutil.rmtree(cache, ignore_errors=True)
            runs = [("layout", base / layout.cwd, layout.paths)]
            if layout.reference is not None:
                runs.append(("reference", base / layout.reference[0], layout.reference[1]))
            found: dict[str, list[list[Any]]] = {}
            for what, cwd, paths in runs:
                for kind, count in (("serial", 1), ("parallel", jobs)):
                    if kind == "parallel" and not layout.parallel:
                        continue
                    seconds, cpu, findings = cli_check(cwd, paths, count, cache)
                    key = (layout.name, f"{what} {kind}" if round_ else f"{what} {kind} cold")
                    times.setdefault(key, []).append(seconds)
                    cores.setdefault(key, []).append(cpu / seconds)
                    found.setdefault(what, findings)
            if "reference" in found:
                same[layout.name] = same.get(layout.name, True) and (
                    _places(found["layout"]) == _places(found["reference"]))
    report_layouts(times, cores, same)


def report_layouts(times: dict[tuple[str, str], list[float]],
                   cores: dict[tuple[str, str], list[float]], same: dict[str, bool]) -> None:
    def median(name: str, what: str) -> float:
        return statistics.median(times[name, what])

    for layout in layout_list():
        name = layout.name
        print(f"  {name}: {' '.join(layout.paths)}")
        for what in ("layout serial", "layout parallel", "reference serial",
                     "reference parallel"):
            if (name, what) in times:
                print(f"    {what:20} median {median(name, what):6.2f} s "
                      f"(cold {median(name, what + ' cold'):6.2f} s), "
                      f"{statistics.median(cores[name, what]):.2f} cores used")
        if layout.reference is None:
            small = median(name, "layout serial")
            print(f"    one small file: {small:.2f} s (target <= 0.5 s, startup included)"
                  f"{'' if small <= 0.5 else '  OVER'}")
            continue
        for kind in ("serial", "parallel"):
            ratio = median(name, f"layout {kind}") / median(name, f"reference {kind}")
            print(f"    {kind}: {ratio:.2f}x the same files as their own project (target <= "
                  f"1.5x){'' if ratio <= 1.5 else '  OVER'}; each run: " + " ".join(
                      f"{a / b:.2f}x" for a, b in zip(times[name, f'layout {kind}'],
                                                     times[name, f'reference {kind}'],
                                                     strict=True)))
        for what in ("layout", "reference"):
            speedup = median(name, f"{what} serial") / median(name, f"{what} parallel")
            print(f"    parallel speed-up ({what}): {speedup:.2f}x (target >= 1.7x)"
                  f"{'' if speedup >= 1.7 else '  UNDER'}")
        print(f"    findings (place and rule) the same as the reference's: "
              f"{'yes' if same[name] else 'NO'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", type=int, default=15)
    parser.add_argument("--monorepo", action="store_true",
                        help="also time a synthetic monorepo of 1,000 to 10,000 files")
    parser.add_argument("--no-layouts", action="store_true",
                        help="skip the layouts (a venv in a repository, a subfolder, one file)")
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
    if not args.no_layouts:
        layouts_section(files, roots, args.repeat)
    if args.monorepo:
        monorepo_scaling(files, roots)


if __name__ == "__main__":
    main()
