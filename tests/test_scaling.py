"""Every rule stays linear in the size of a file: a crafted file must not pin the language
server (TFI006 once took 103 s on a 2.5 MB file). For each shape of `bench/large_files.py`,
the CPU time per line at 200,000 lines must stay within 3× of that at 10,000 (a quadratic
rule gives 20×); each rule's own time likewise. Ratios measured side by side in one run;
`bench/rule_scaling.py` prints the figures."""

from __future__ import annotations

import pytest

from bench.large_files import SHAPES, make, rule_seconds

SMALL, LARGE = 10_000, 200_000
SLACK = 3.0  # linear is ~1; noise on a shared machine stays well below this
FLOOR_S = 0.1  # faster at the large size: no ratio (~1 ms at the small size is timer noise)


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_time_per_line_stays_flat(shape: str) -> None:
    small, large = make(shape, SMALL), make(shape, LARGE)
    growth = large.count("\n") / small.count("\n")
    rule_seconds(small)  # warm: imports, first-use tables
    times_small, times_large = rule_seconds(small), rule_seconds(large)
    total_small, total_large = sum(times_small.values()), sum(times_large.values())
    assert total_large < SLACK * growth * total_small, (
        f"{shape}: {total_small:.2f} s at {SMALL:,} lines, {total_large:.2f} s at {LARGE:,}")
    slow = {stage: (times_small[stage], seconds) for stage, seconds in times_large.items()
            if seconds > FLOOR_S and seconds > SLACK * growth * max(times_small[stage], 1e-3)}
    assert not slow, f"{shape}: stages that grow faster than the file: {slow}"
