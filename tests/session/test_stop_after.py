"""`--stop-after`: the forms it takes, and real sessions stopped at a verdict, after N steps
and after S seconds, each with the result so far and nothing left running."""

from __future__ import annotations

import pytest

from tests.session.helpers import Run, assert_nothing_left_running, marker_line
from tf_insight.session import StopAfter


@pytest.mark.parametrize(("text", "expected", "said"), [
    ("verdict", StopAfter("verdict"), "a verdict"),
    ("first-step", StopAfter("steps", 1), "the first step"),
    ("1-step", StopAfter("steps", 1), "the first step"),
    (" 20-Steps ", StopAfter("steps", 20), "20 steps"),
    ("2.5-seconds", StopAfter("seconds", 2.5), "2.5 seconds"),
    ("1-second", StopAfter("seconds", 1), "1 second"),
])
def test_the_forms_stop_after_takes(text: str, expected: StopAfter, said: str) -> None:
    assert StopAfter.parse(text) == expected
    assert expected.describe() == said


@pytest.mark.parametrize("text", ["", "soon", "0-steps", "2.5-steps", "-1-seconds", "30s"])
def test_a_form_it_does_not_take_is_named_with_the_ones_it_does(text: str) -> None:
    with pytest.raises(ValueError, match="verdict, first-step, N-steps or S-seconds"):
        StopAfter.parse(text)


@pytest.mark.slow
def test_stop_at_the_verdict_of_a_loop_that_would_retrace_for_hours() -> None:
    run = Run("retraces_forever.py", stop_after=StopAfter.parse("verdict"))
    result = run.result
    assert (result.status, result.stopped_after, result.exit_code) == (
        "stopped", "a verdict", None)
    assert result.verdict is not None and result.verdict.rule == "TFI004"
    assert result.verdict.user_frame is not None
    assert result.verdict.user_frame["line"] == marker_line("retraces_forever.py", "verdict")
    assert "done" not in run.stdout
    assert_nothing_left_running()


@pytest.mark.slow
def test_stop_after_n_steps_keeps_the_steps_and_the_counters_so_far() -> None:
    result = Run("clean_fit.py", stop_after=StopAfter.parse("2-steps")).result
    assert (result.status, result.stopped_after) == ("stopped", "2 steps")
    assert len(result.steps) >= 2
    assert result.probe_hits, "the counters came before the script was stopped"
    assert_nothing_left_running()


@pytest.mark.slow
def test_stop_after_seconds_ends_a_script_that_hangs_and_its_child() -> None:
    run = Run("hangs.py", stop_after=StopAfter.parse("1-second"))
    assert (run.result.status, run.result.stopped_after) == ("stopped", "1 second")
    child = int(run.stdout.split()[1])
    assert_nothing_left_running((child,))
