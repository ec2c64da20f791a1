"""Wall time of `tf-insight trace SCRIPT` against plain `python SCRIPT`, measured side by side.

Runs alternate (plain, traced, plain, traced, …) so both of a pair see the same machine load;
prints each script's median wall times, the median of the per-pair ratios (robust when the
load of a shared machine drifts) and their spread, the geometric mean of the ratios, and the
load average before and after. Target: ≤ 1.30× on every script, ≤ 1.20× geometric mean.

The scripts, by set (`--set`, several allowed; default: realistic):
- `realistic`: the training scripts people write (`tests/session/realistic/`, its `dev/` and
  `heldout/` halves: a Transformer and masked/stateful LSTMs under `fit`, custom loops, a
  `tf.data` augmentation pipeline, `MirroredStrategy`, a custom `train_step`...);
- `dev`, `heldout`: one half of them;
- `ours`: three short scripts of the tests and two long runs of our own (`bench/scripts`: a
  custom loop of 1,200 `tf.function` steps then 300 eager ones; a `tf.data` `map` into `fit`).

    python bench/session_overhead.py [--repeat 3] [--python PY] [--set SET ...] [SCRIPT ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_SCRIPTS = ROOT / "tests" / "session" / "scripts"
REALISTIC = ROOT / "tests" / "session" / "realistic"
LONG_RUNS = ROOT / "bench" / "scripts"
TARGET_EACH, TARGET_MEAN = 1.30, 1.20


def scripts_of(name: str) -> list[Path]:
    """The scripts of a set."""
    if name == "ours":
        return [*(TEST_SCRIPTS / script for script in
                  ("print_in_call.py", "remat_dropout.py", "retrace_ints.py")),
                LONG_RUNS / "custom_loop.py", LONG_RUNS / "data_map.py"]
    halves = ("dev", "heldout") if name == "realistic" else (name,)
    return [path for half in halves for path in sorted((REALISTIC / half).glob("*.py"))]


def wall_time(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python", default=sys.executable, help="the script's interpreter")
    parser.add_argument("--set", dest="sets", action="append",
                        choices=("realistic", "dev", "heldout", "ours"),
                        help="a set of scripts (default: realistic)")
    parser.add_argument("scripts", nargs="*", help="scripts to measure instead of a set")
    args = parser.parse_args()
    scripts = [Path(script) for script in args.scripts] or [
        script for name in args.sets or ["realistic"] for script in scripts_of(name)]
    trace = [
        sys.executable,
        "-m",
        "tf_insight.cli",
        "trace",
        "--python",
        args.python,
        "--format",
        "json",
        "--out",
        "/dev/null",
        "--script-output",
        "/dev/null",
    ]
    print(f"load average {_load()}")
    print(
        f"{'script':<34} {'plain s':>8} {'trace s':>8} {'ratio':>6} {'spread':>11}"
        f"   (medians of {args.repeat} pairs)"
    )
    ratios = []
    for script in scripts:
        pairs = [
            (wall_time([args.python, str(script)]), wall_time([*trace, str(script)]))
            for _ in range(args.repeat)
        ]
        pair_ratios = [traced / plain for plain, traced in pairs]
        ratio = statistics.median(pair_ratios)
        ratios.append(ratio)
        plain = statistics.median(p for p, _ in pairs)
        traced = statistics.median(t for _, t in pairs)
        spread = f"{min(pair_ratios):.2f}-{max(pair_ratios):.2f}"
        over = "  over target" if ratio > TARGET_EACH else ""
        print(f"{script.stem:<34} {plain:8.2f} {traced:8.2f} {ratio:6.2f} {spread:>11}{over}",
              flush=True)
    mean = statistics.geometric_mean(ratios)
    print(f"{'geometric mean of the ratios':<52} {mean:6.2f}"
          + ("  over target" if mean > TARGET_MEAN else ""))
    print(f"load average {_load()}")
    return 0


def _load() -> str:
    """The 1, 5 and 15 minute load averages (other benchmarks may share the machine)."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
