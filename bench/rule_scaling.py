"""Does each rule stay linear in the size of a file? Time per line at two sizes, side by side.

For every shape of `bench/large_files.py`, analyses a small and a large file (CPU time, so the
load of a shared machine matters less) and prints, per stage and rule, the time per line at
each size and their ratio: ~1 is linear, ~20 (for 20× the lines) is quadratic; exits 1 when a
shape or a stage grows over 3× faster than the file. Then the 1.7 MB
file of the TFI006 attack (thousands of module-level names and a graph function full of
prints), which took over a minute before the rules were made linear, analysed as the language
server does (at most 200 findings per rule): the best of three runs, with the parse's share.

    .venv/bin/python bench/rule_scaling.py [--small 10000] [--large 200000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.large_files import SHAPES, make, rule_seconds
from tf_insight.check.analyzer import analyze_parsed, paused_gc
from tf_insight.check.project import Project
from tf_insight.check.source import SourceFile
from tf_insight_server.analysis import MAX_FINDINGS_PER_RULE

SLACK = 3.0  # linear is ~1, quadratic ~20 (for 20× the lines); noise stays well below 3
FLOOR_S = 0.1  # a stage faster than this at the large size has no ratio (timer noise)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=200_000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; µs per line at {args.small:,} and "
          f"{args.large:,} lines, and their ratio")
    worst = (0.0, "")
    grown: list[str] = []
    for shape in SHAPES:
        small, large = make(shape, args.small), make(shape, args.large)
        lines_small, lines_large = small.count("\n"), large.count("\n")
        times_small, times_large = rule_seconds(small), rule_seconds(large)
        total_small, total_large = sum(times_small.values()), sum(times_large.values())
        ratio = (total_large / lines_large) / (total_small / lines_small)
        print(f"\n{shape}: all {1e6 * total_small / lines_small:.1f} → "
              f"{1e6 * total_large / lines_large:.1f} µs/line (×{ratio:.2f})")
        worst = max(worst, (ratio, shape))
        growth = lines_large / lines_small
        grown += [f"{shape} {stage}" for stage, seconds in times_large.items()
                  if seconds > FLOOR_S and seconds > SLACK * growth * max(times_small[stage], 1e-3)]
        if ratio > SLACK:
            grown.append(f"{shape} (all)")
        slowest = sorted(times_large, key=times_large.__getitem__, reverse=True)[:5]
        for stage in slowest:
            per_small = 1e6 * times_small[stage] / lines_small
            per_large = 1e6 * times_large[stage] / lines_large
            print(f"  {stage:7} {per_small:7.2f} → {per_large:7.2f} µs/line"
                  f" (×{per_large / max(per_small, 1e-3):.1f})")
    print(f"\nworst shape: {worst[1]} ×{worst[0]:.2f}")
    if grown:
        print(f"grow faster than the file (over ×{SLACK:g}): {', '.join(grown)}")
    attack = make("module_names", 72_000)
    runs = []
    for _ in range(3):  # the best of three: the machine is shared
        with paused_gc():
            start = time.process_time()
            source = SourceFile.parse("attack.py", attack)
            parsed = time.process_time()
            analyze_parsed(source, Project(), limit=MAX_FINDINGS_PER_RULE)
            runs.append((time.process_time() - start, parsed - start))
    total, parse = min(runs)
    print(f"the TFI006 attack file ({len(attack) / 1e6:.1f} MB, {attack.count(chr(10)):,} lines): "
          f"{total:.2f} s CPU, of which ast.parse {parse:.2f} s (target < 2 s; runs "
          f"{', '.join(f'{t:.2f}' for t, _ in runs)})")
    return 1 if grown else 0


if __name__ == "__main__":
    sys.exit(main())
