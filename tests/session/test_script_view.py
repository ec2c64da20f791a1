"""What the script sees of its interpreter is what plain `python script.py` gives it (slow)."""

from __future__ import annotations

import gc

import pytest

from tests.session.helpers import Run, assert_nothing_left_running

pytestmark = pytest.mark.slow


def test_the_garbage_collector_runs_as_usual_though_the_bootstrap_paused_it() -> None:
    run = Run("collector.py")
    assert_nothing_left_running()
    assert f"collector True {gc.get_threshold()}" in run.stdout
    assert "frozen 0" in run.stdout  # every object can still be collected
