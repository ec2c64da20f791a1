"""The editor's incremental analysis on code nobody here wrote: bench/incremental.py edits
files of the precision corpus (12 pinned TF/Keras libraries from PyPI, fetched into a cache on
first use) at random and types into their functions; every version's findings and hover facts
must be a fresh analysis's (slow: a few minutes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "incremental.py"


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_incremental_analysis_is_a_fresh_one_on_the_real_world_corpus() -> None:
    result = subprocess.run([sys.executable, str(BENCH), "--files", "40", "--typed", "10",
                             "--seed", "7"], capture_output=True, text=True, timeout=1700)
    report = result.stdout
    assert result.returncode == 0, f"{report[-4000:]}\n{result.stderr[-2000:]}"
    assert "random edits: " in report and "0 mismatches" in report, report
    assert "mismatches with a fresh analysis: 0" in report, report
