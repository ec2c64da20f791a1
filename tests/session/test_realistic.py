"""The training scripts people write (`tests/session/realistic`, slow): on each, the session's
verdict (none on a clean script; on a hazard's, its kind at its line) and its counts of traces
and graph runs, against TensorFlow's own (`expected.toml`, measured by `measure.py`).

The scripts are split in two halves: `dev/`, which the session was built on, and `heldout/`,
run once at the end (`-k heldout`); both are reported.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import tomllib

from tf_insight.session import TraceConfig, TraceResult, Verdict, render_text, run_trace
from tf_insight.session.debuggee.messages import FunctionCount

pytestmark = pytest.mark.slow

REALISTIC = Path(__file__).resolve().parent / "realistic"
EXPECTED: dict[str, dict[str, Any]] = tomllib.loads(
    (REALISTIC / "expected.toml").read_text(encoding="utf-8"))
# A hazard's kind, as the verdict says it.
KINDS: dict[str, Callable[[Verdict], bool]] = {
    "side-effect": lambda verdict: verdict.rule == "TFI006",
    "stale-global": lambda verdict: verdict.rule == "TFI003",
    "retrace-shape": lambda verdict: verdict.id == "retracing-warning"
    and "input shape" in verdict.title,
    "retrace-python-scalar": lambda verdict: verdict.rule == "TFI004",
    "custom-gradient-kwargs": lambda verdict: verdict.rule == "TFI001",
}
# A Keras model's function attribute → the step it runs.
KERAS_STEPS = {"train_function": "train_step", "test_function": "test_step",
               "predict_function": "predict_step"}
NAMES = [pytest.param(name, id=f"{facts['split']}-{name}") for name, facts in EXPECTED.items()]

_runs: dict[str, TraceResult] = {}


def _script(name: str) -> Path:
    return REALISTIC / EXPECTED[name]["split"] / f"{name}.py"


def _trace(name: str) -> TraceResult:
    return run_trace(TraceConfig(script=str(_script(name)), output=lambda _stream, _text: None))


@pytest.fixture(scope="module", autouse=True)
def _sessions_two_at_a_time(request: pytest.FixtureRequest) -> None:
    """The sessions of the selected scripts, two at a time (a session keeps one core busy)."""
    names = sorted({item.callspec.params["name"] for item in request.session.items
                    if item.module is request.module and hasattr(item, "callspec")
                    and "name" in item.callspec.params})
    with ThreadPoolExecutor(max_workers=2) as pool:
        _runs.update(zip(names, pool.map(_trace, names), strict=True))


def _run(name: str) -> TraceResult:
    """The session on a script, run once for all the tests that read it."""
    if name not in _runs:
        _runs[name] = _trace(name)
    return _runs[name]


@pytest.mark.parametrize("name", NAMES)
def test_the_verdict_is_the_scripts_hazard_at_its_line_or_none(name: str) -> None:
    facts, result = EXPECTED[name], _run(name)
    report = render_text(result, verbose=True)
    assert result.exit_code == facts["exit_code"], report
    if facts["verdict"] == "clean":
        assert result.verdict is None, report
        return
    verdict = result.verdict
    assert verdict is not None, report
    assert KINDS[facts["kind"]](verdict), (facts["kind"], verdict)
    assert verdict.user_frame is not None, verdict
    assert verdict.user_frame["path"] == str(_script(name)), verdict.user_frame
    lines = [facts["line"], *facts.get("alt_lines", [])]
    assert verdict.user_frame["line"] in lines, (lines, verdict)


@pytest.mark.parametrize("name", [
    pytest.param(name, id=f"{facts['split']}-{name}")
    for name, facts in EXPECTED.items() if "side_effect_runs" in facts])
def test_a_side_effect_is_said_to_have_run_as_often_as_it_did(name: str) -> None:
    """`layer_call_counter` (held-out; found there, mended after it was opened): the increment
    sits under `if training:`, so it ran once per training trace (2), not in every run of the
    layer's Python (4: the symbolic build and the test function's trace too)."""
    verdict = _run(name).verdict
    assert verdict is not None
    assert f"ran {EXPECTED[name]['side_effect_runs']}×, not once" in verdict.summary, verdict


@pytest.mark.parametrize("name", NAMES)
def test_traces_and_graph_runs_are_tensorflows(name: str) -> None:
    """Per tf.function: TF's tracing count (traces that did not raise) and the graph runs."""
    facts, result = EXPECTED[name], _run(name)
    script = str(_script(name))
    unmatched = list(result.functions)
    for key, traces in facts["traces"].items():
        steps = facts["steps"].get(key)
        found = next((entry for entry in unmatched if _is(entry, key, script)
                      and entry["traces"] - entry["failed_traces"] == traces
                      and (steps is None or entry["runs"] == steps)), None)
        assert found is not None, (key, traces, steps, [
            (e["function"], e["context"], e["traces"], e["failed_traces"], e["runs"])
            for e in unmatched if e["function"] == key.rpartition(":")[2]])
        unmatched.remove(found)


def _is(entry: FunctionCount, key: str, script: str) -> bool:
    """Whether `entry` may be the function `expected.toml` names `key`: the script's own
    (`train_step`), or a Keras model's (`teacher.train_function:multi_step_on_iterator`: its
    name and the step it runs)."""
    attribute, _, name = key.rpartition(":")
    if not attribute:
        return entry["function"] == key and entry["path"] == script
    attribute = attribute.partition(".")[2]
    context = entry["context"] or ""
    return entry["function"] == name and context in (
        f"running {KERAS_STEPS[attribute]}", f"in make_{attribute}")
