"""Wall time of `tf-insight trace SCRIPT` against plain `python SCRIPT`, measured side by side.

Runs alternate (plain, traced, plain, traced, …) so both of a pair see the same machine load;
prints each script's median wall times, the median of the per-pair ratios (robust when the
load of a shared machine drifts) and their spread, and the load average before and after.
Besides three short scripts of the tests, two long runs of our own (`bench/scripts`): a custom
training loop (1,200 `tf.function` steps, then 300 under an eager tape) and a `tf.data` `map`
pipeline feeding `fit`. Target: ≤ 1.3× on every script, ≤ 1.15× geometric mean.

    python bench/session_overhead.py [--repeat 3] [--python PY] [SCRIPT ...]
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
LONG_RUNS = ROOT / "bench" / "scripts"
DEFAULT_SCRIPTS = (
    *(TEST_SCRIPTS / name for name in ("print_in_call.py", "remat_dropout.py", "retrace_ints.py")),
    LONG_RUNS / "custom_loop.py",
    LONG_RUNS / "data_map.py",
)


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
    parser.add_argument(
        "scripts", nargs="*", default=[str(path) for path in DEFAULT_SCRIPTS]
    )
    args = parser.parse_args()
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
        f"{'script':<22} {'plain s':>8} {'trace s':>8} {'ratio':>6} {'spread':>11}"
        f"   (medians of {args.repeat} pairs)"
    )
    ratios = []
    for script in args.scripts:
        pairs = [
            (wall_time([args.python, script]), wall_time([*trace, script]))
            for _ in range(args.repeat)
        ]
        pair_ratios = [traced / plain for plain, traced in pairs]
        ratio = statistics.median(pair_ratios)
        ratios.append(ratio)
        plain = statistics.median(p for p, _ in pairs)
        traced = statistics.median(t for _, t in pairs)
        spread = f"{min(pair_ratios):.2f}-{max(pair_ratios):.2f}"
        print(f"{Path(script).name:<22} {plain:8.2f} {traced:8.2f} {ratio:6.2f} {spread:>11}")
    print(f"{'overall (geometric mean of ratios)':<40} {statistics.geometric_mean(ratios):6.2f}")
    print(f"load average {_load()}")
    return 0


def _load() -> str:
    """The 1, 5 and 15 minute load averages (other benchmarks may share the machine)."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
