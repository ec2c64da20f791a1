"""Real sessions under debugpy with TensorFlow 2.21: Keras 3 and tf-keras (slow)."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest

from tests.session.helpers import (
    LEGACY_KERAS,
    Run,
    assert_nothing_left_running,
    marker_line,
    script,
)
from tf_insight.session import Step, cli

pytestmark = pytest.mark.slow


def _first_link_kind(step: Step) -> str:
    """The call_fn's identity under Keras's own traceback wrapper."""
    assert step.call_fn is not None
    kinds = [link["kind"] for link in step.call_fn["chain"]]
    return next(kind for kind in kinds if kind != "Keras traceback wrapper")


@pytest.fixture(scope="module")
def remat(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The RematScope case through the CLI, JSON report and script output to files."""
    folder = tmp_path_factory.mktemp("remat")
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args(
        [
            "trace",
            "--format",
            "json",
            "--out",
            str(folder / "report.json"),
            "--script-output",
            str(folder / "script.log"),
            script("remat_dropout.py"),
        ]
    )
    exit_code = args.func(args)
    assert_nothing_left_running()
    report: dict[str, Any] = json.loads((folder / "report.json").read_text())
    return {"exit": exit_code, "report": report, "log": (folder / "script.log").read_text()}


def _steps(report: dict[str, Any], probe: str) -> list[dict[str, Any]]:
    return [step for step in report["steps"] if step["probe"] == probe]


def test_remat_chain_keras_call_to_bind_to_graph_mode_decorator(remat: dict[str, Any]) -> None:
    report = remat["report"]
    keras_call = next(
        s
        for s in _steps(report, "keras.Layer.__call__")
        if s["layer"]["class"] == "Dropout" and s["executing_eagerly"] is False
    )
    bind = next(
        s
        for s in _steps(report, "custom_gradient.Bind.__call__")
        if s["index"] > keras_call["index"]
    )
    failing = _steps(report, "custom_gradient._graph_mode_decorator")[-1]
    assert keras_call["index"] < bind["index"] < failing["index"]
    assert keras_call["layer"]["remat"] == "full"
    kinds = [link["kind"] for link in keras_call["call_fn"]["chain"]]
    assert kinds[1:3] == ["custom_gradient Bind", "tf.recompute_grad wrapper"]
    assert (
        kinds[-1] == "bound method" and "Dropout.call" in keras_call["call_fn"]["chain"][-1]["repr"]
    )
    for step in (keras_call, bind, failing):
        assert step["executing_eagerly"] is False
        assert step["graph"] == "one_step_on_data"
        assert step["kwargs"]["training"] is True
        assert step["layer"]["class"] == "Dropout"
    assert failing["detail"]["stack"][-1].endswith("_graph_mode_decorator:405")
    line = marker_line("remat_dropout.py", "fit")
    assert failing["user_frame"]["path"] == script("remat_dropout.py")
    assert failing["user_frame"]["line"] == line


def test_remat_verdict_is_tfi001_and_tells_the_chain(remat: dict[str, Any]) -> None:
    report = remat["report"]
    verdict = report["verdict"]
    assert verdict["rule"] == "TFI001"
    assert verdict["id"] == "remat-scope-keyword-arguments"
    assert "`Dropout.call` was wrapped for recomputation" in verdict["summary"]
    assert "FuncGraph `one_step_on_data`" in verdict["summary"]
    assert "`training=True`" in verdict["summary"]
    assert "`_graph_mode_decorator` rejects keyword args" in verdict["summary"]
    assert verdict["fix"]
    assert (
        verdict["chain"][-1] == _steps(report, "custom_gradient._graph_mode_decorator")[-1]["index"]
    )


def test_remat_exception_report_and_script_output(remat: dict[str, Any]) -> None:
    report = remat["report"]
    assert remat["exit"] == 1
    assert report["exit_code"] == 1 and report["status"] == "failed"
    assert report["exception"]["type"] == "ValueError"
    assert "supports keywords arguments only when eager" in report["exception"]["message"]
    assert any(
        "custom_gradient.py:_graph_mode_decorator:406" in f for f in report["exception"]["stack"]
    )
    assert set(report) >= {"steps", "exception", "verdict", "retraces", "exit_code", "duration_s"}
    assert "ValueError" in remat["log"]  # the script's own traceback went to --script-output


@pytest.fixture(scope="module")
def seed() -> Run:
    run = Run("seed_layernorm.py", env=LEGACY_KERAS)
    assert_nothing_left_running()
    return run


def test_seed_call_fn_is_a_bind_where_a_plain_layer_is_autograph_converted(seed: Run) -> None:
    calls = {step.layer["class"]: step for step in seed.steps("keras.Layer.__call__") if step.layer}
    assert _first_link_kind(calls["PositionEmbedding"]) == "AutoGraph-converted function"
    assert _first_link_kind(calls["LayerNormalization"]) == "custom_gradient Bind"
    assert calls["LayerNormalization"].kwargs == {"training": None}
    assert (
        calls["LayerNormalization"].location["path"].endswith("tf_keras/src/engine/base_layer.py")
    )
    assert calls["LayerNormalization"].user_frame is not None
    assert calls["LayerNormalization"].user_frame["line"] == marker_line(
        "seed_layernorm.py", "recompute-call"
    )


def test_seed_tf_convert_returns_the_same_bind(seed: Run) -> None:
    conversions = {s.layer["class"]: s for s in seed.steps("autograph.tf_convert") if s.layer}
    bind = conversions["LayerNormalization"]
    assert bind.detail["same_object"] is True
    assert bind.call_fn is not None and bind.call_fn["chain"][0]["kind"] == "custom_gradient Bind"
    plain = conversions["PositionEmbedding"]
    assert plain.detail["same_object"] is False
    assert plain.detail["returned"]["chain"][0]["kind"] == "AutoGraph-converted function"


def test_seed_failing_step_verdict_and_streaming(seed: Run) -> None:
    failing = seed.steps("custom_gradient._graph_mode_decorator")[-1]
    assert failing.executing_eagerly is False
    assert failing.kwargs == {"training": None}
    assert seed.result.exception is not None and seed.result.exception.type == "ValueError"
    verdict = seed.result.verdict
    assert verdict is not None and verdict.rule == "TFI001"
    assert verdict.id == "custom-gradient-keyword-arguments"
    assert "`LayerNormalization.call` was wrapped by `tf.custom_gradient`" in verdict.summary
    assert "`training=None`" in verdict.summary
    chain_probes = [seed.result.steps[i].probe for i in verdict.chain]
    assert chain_probes[0] == "autograph.tf_convert"
    assert chain_probes[-1] == "custom_gradient._graph_mode_decorator"
    assert [s.index for s in seed.streamed] == [s.index for s in seed.result.steps]


@pytest.fixture(scope="module")
def retrace() -> Run:
    run = Run("retrace_ints.py")
    assert_nothing_left_running()
    return run


def test_retraces_name_the_argument_and_count(retrace: Run) -> None:
    assert retrace.result.status == "completed" and retrace.result.exit_code == 0
    (scale,) = [r for r in retrace.result.retraces if r.function == "scale"]
    assert scale.count == 6  # five Python ints, then one tensor
    assert scale.line == marker_line("retrace_ints.py", "function") - 1  # the decorator line
    loop = marker_line("retrace_ints.py", "call-site")
    assert scale.reasons[0] == f"trace 2 (retrace_ints.py:{loop}): `step`: Python int value 0→1"
    assert (
        scale.reasons[-1]
        == f"trace 6 (retrace_ints.py:{loop + 1}): `step`: Python int → Tensor () int32"
    )
    assert scale.call_site is not None
    assert scale.call_site["line"] == marker_line("retrace_ints.py", "call-site") + 1
    assert "done 2" in retrace.stdout


def test_trace_steps_are_bounded_per_call_site(retrace: Run) -> None:
    traces = [s for s in retrace.steps("tf.function.trace") if s.detail.get("function") == "scale"]
    sites: dict[int, int] = {}
    for step in traces:
        assert step.user_frame is not None
        sites[step.user_frame["line"]] = sites.get(step.user_frame["line"], 0) + 1
    assert max(sites.values()) == 3  # max_hits, though the loop traced five times


@pytest.mark.parametrize(
    ("env", "train_function", "python_runs"),
    [
        ({}, "multi_step_on_iterator", 2),
        # tf-keras traces its train function twice on the first fit (optimizer variables).
        (LEGACY_KERAS, "train_function", 3),
    ],
    ids=["keras3", "tf_keras"],
)
def test_print_in_call_runs_at_trace_time_not_per_step(
    env: dict[str, str], train_function: str, python_runs: int
) -> None:
    run = Run("print_in_call.py", env=env)
    assert_nothing_left_running()
    assert run.result.status == "completed"
    (effect,) = [e for e in run.result.side_effects if e.subject.startswith("Probe.call")]
    assert effect.python_runs == run.stdout.count("Probe.call ran") == python_runs
    assert effect.function == train_function
    assert effect.function_calls == 8  # 2 epochs × 4 batches
    assert "its graph then ran 8×" in effect.summary


def test_a_busy_probe_stops_at_max_hits_per_site_and_is_then_removed() -> None:
    run = Run("busy_autograph.py")
    assert_nothing_left_running()
    assert "total 300" in run.stdout
    busy = marker_line("busy_autograph.py", "busy")
    at_site = [
        s
        for s in run.steps("autograph.converted_call")
        if s.user_frame and s.user_frame["line"] == busy
    ]
    assert len(at_site) == 3  # AutoGraph-generated frames mapped back to the user's line
    assert run.result.retired_probes == ["autograph.converted_call"]
