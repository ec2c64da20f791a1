"""Wall time of `tf-insight debug` with no breakpoints against `python -m debugpy`, side by side.

Both listen for a DAP client (`--listen 127.0.0.1:0`) and none attaches, so each script runs to
its end under debugpy's tracing, which is set up as when a client is attached with no
breakpoints (the same trace function, the same cost per call); `tf-insight debug` adds its own
CLI's start, AutoGraph's converted code compiled again at the user's lines (`graph_lines`),
`tfi()` and its stepping filters. Issue 26's target: ≤ 1.10× `python -m debugpy` on every
script, in graph mode (`tf-insight debug SCRIPT`); `--eager` (graph functions run eagerly,
every call and tf.data element traced) is printed beside it, and plain `python SCRIPT` for
context.

Each round runs the commands in turn, reversed every other round (plain, debugpy, debug,
debug --eager; then the other way), so each pair sees the same machine load; prints each
script's median wall times, the median of the per-round ratios (robust when the load of a
shared machine drifts) and their spread, the median user and system CPU of debugpy and
debug, and the load average before and after. Exits 1 when a script's graph-mode ratio is
over the target.

System CPU is printed because on CPython 3.11 it can differ by half a second between two
ways of starting the same program: the interpreter maps a 16 KiB chunk for frames each time
the call stack grows past a chunk's end and unmaps it as it returns, so a hot call that
crosses that boundary costs an mmap/munmap pair per call, and where the boundary falls depends
on how deep the launcher's own frames put the script (`strace -c -e trace=munmap` counts them).

The scripts (default): the session benchmark's long runs (`bench/scripts`: a custom loop of
1,200 `tf.function` steps then 300 eager ones; a `tf.data` `map` into `fit`).

    python bench/debug_overhead.py [--repeat 3] [--python PY] [--no-eager] [SCRIPT ...]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
LONG_RUNS = ROOT / "bench" / "scripts"
TARGET = 1.10
LISTEN = ["--listen", "127.0.0.1:0"]


class Run(NamedTuple):
    wall: float
    user: float
    sys: float


def run(command: list[str]) -> Run:
    """Wall seconds from start to exit, and the CPU of the processes reaped meanwhile; a
    command that fails stops the benchmark (its time would say nothing)."""
    # Errors to a file, not a pipe: debugpy's adapter, a child, may hold a pipe open.
    with tempfile.TemporaryFile() as errors:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        finished = subprocess.run(
            command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=errors, check=False
        )
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if finished.returncode != 0:
            errors.seek(0)
            tail = errors.read().decode(errors="replace")[-2000:]
            raise SystemExit(f"exit status {finished.returncode}: {' '.join(command)}\n{tail}")
    return Run(elapsed, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds per script")
    parser.add_argument("--python", default=sys.executable,
                        help="the script's interpreter (with debugpy and TensorFlow)")
    parser.add_argument("--no-eager", dest="eager", action="store_false",
                        help="leave out `tf-insight debug --eager` (slow on tf.data)")
    parser.add_argument("scripts", nargs="*", help="scripts to measure (default: bench/scripts)")
    args = parser.parse_args()
    scripts = [Path(script) for script in args.scripts] or sorted(LONG_RUNS.glob("*.py"))
    debug = [sys.executable, "-m", "tf_insight.cli", "debug", "--python", args.python, *LISTEN]
    commands = {
        "plain": [args.python],
        "debugpy": [args.python, "-m", "debugpy", *LISTEN],
        "debug": debug,
        **({"eager": [*debug, "--eager"]} if args.eager else {}),
    }
    print(f"load average {_load()}")
    print(f"{'script':<14} {'plain s':>8} {'debugpy s':>10} {'debug s':>8} {'ratio':>6} "
          f"{'spread':>11}" + (f" {'eager s':>8} {'ratio':>6}" if args.eager else "")
          + f"   (medians of {args.repeat} rounds; ratios to debugpy)")
    over = False
    for script in scripts:
        runs: dict[str, list[Run]] = {name: [] for name in commands}
        for round_ in range(args.repeat):
            order = list(commands) if round_ % 2 == 0 else list(reversed(commands))
            for name in order:
                runs[name].append(run([*commands[name], str(script)]))
        wall = {name: statistics.median(r.wall for r in done) for name, done in runs.items()}
        ratios = _ratios(runs["debug"], runs["debugpy"])
        ratio = statistics.median(ratios)
        over = over or ratio > TARGET
        row = (f"{script.stem:<14} {wall['plain']:8.2f} {wall['debugpy']:10.2f} "
               f"{wall['debug']:8.2f} {ratio:6.2f} "
               f"{f'{min(ratios):.2f}-{max(ratios):.2f}':>11}")
        if args.eager:
            eager = statistics.median(_ratios(runs["eager"], runs["debugpy"]))
            row += f" {wall['eager']:8.2f} {eager:6.2f}"
        print(row + ("  over target" if ratio > TARGET else ""))
        print(f"{'':<14} CPU s, user / system: debugpy {_cpu(runs['debugpy'])}, "
              f"debug {_cpu(runs['debug'])}", flush=True)
    print(f"target: debug / debugpy ≤ {TARGET:.2f} on every script (graph mode)"
          + ("; over target" if over else ""))
    print(f"load average {_load()}")
    return 1 if over else 0


def _ratios(runs: list[Run], references: list[Run]) -> list[float]:
    """Wall time over the reference's, round by round."""
    return [r.wall / reference.wall for r, reference in zip(runs, references, strict=True)]


def _cpu(runs: list[Run]) -> str:
    return (f"{statistics.median(r.user for r in runs):.2f} / "
            f"{statistics.median(r.sys for r in runs):.2f}")


def _load() -> str:
    """The 1, 5 and 15 minute load averages (other benchmarks may share the machine)."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
