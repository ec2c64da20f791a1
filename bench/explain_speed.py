"""Time `tf-insight explain` on large pastes: `python bench/explain_speed.py [--megabytes N]`.

Five shapes of a 10 MB paste built from real TF 2.21 captures (tests/explain/data):
log noise with the traceback at the end, one multi-megabyte exception message, the same
traceback repeated (thousands of tracebacks), the log noise quoted and wrapped, and one
traceback of very many frames (runaway recursion). Prints the best of a few runs per shape
and the throughput; the target is under a second for 10 MB.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tf_insight.explain import explain

DATA = Path(__file__).resolve().parent.parent / "tests" / "explain" / "data"


def pastes(size: int) -> dict[str, str]:
    traceback = (DATA / "autograph_numpy_attr.txt").read_text(encoding="utf-8")
    noise = (DATA / "graph_execution_reshape.txt").read_text(encoding="utf-8").split("Traceback")[0]
    frame = next(line for line in traceback.splitlines(keepends=True)
                 if line.lstrip().startswith("File "))
    return {
        "log noise + traceback": (noise * (size // len(noise) + 1))[:size] + traceback,
        "one huge message": (DATA / "tensor_bool.txt").read_text(encoding="utf-8") + "x" * size,
        "repeated tracebacks": traceback * (size // len(traceback) + 1),
        # What a tracker makes of it: every line quoted and hard-wrapped at 80 columns, so
        # the paste repair (unquote, rejoin wrapped lines) runs over all 10 MB.
        "quoted + wrapped at 80": "".join(
            f"> {line[start:start + 78]}\n"
            for line in (noise * (size // len(noise) + 1))[:size].split("\n")
            for start in range(0, max(len(line), 1), 78)) + traceback,
        "one traceback, many frames": traceback.replace(frame, frame * (size // len(frame))),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    size = int(args.megabytes * 1_000_000)
    print(f"explain() on {args.megabytes:g} MB pastes, best of {args.repeat}")
    for name, text in pastes(size).items():
        timings = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            explanation = explain(text)
            timings.append(time.perf_counter() - started)
        best = min(timings)
        rate = len(text) / best / 1_000_000
        print(f"  {name:<24} {best * 1000:7.0f} ms  {rate:6.1f} MB/s  -> {explanation.id}")


if __name__ == "__main__":
    main()
