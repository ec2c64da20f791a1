"""Breakpoints inside graph code (issue 26), driven as nvim-dap or VS Code would: a DAP client
attaches to `tf-insight debug --listen`, sets breakpoints on marked lines of real TF programs,
and at each stop asks `__tf_insight_stop__()` what TensorFlow is doing there. Slow: each run
starts TensorFlow."""

from __future__ import annotations

import pytest

from tests.debug.dap import PROGRAMS, debug, marked_lines

pytestmark = pytest.mark.slow

GRAPH_FUNCTION = PROGRAMS / "graph_function.py"
KERAS_FIT = PROGRAMS / "keras_fit.py"


def test_a_tf_function_stops_at_each_trace_with_its_signatures() -> None:
    run = debug(GRAPH_FUNCTION, ["if", "then", "map"])
    lines = marked_lines(GRAPH_FUNCTION)
    assert run.returncode == 0, run.output
    assert [(stop.line, stop.function) for stop in run.stops] == [
        (lines["if"], "step"), (lines["then"], "if_body"),  # trace 1: shape (3,)
        (lines["if"], "step"), (lines["then"], "if_body"),  # trace 2: shape (4,); the
        (lines["map"], "double")]                           # second (3,) call is not traced
    first, _, second, _, mapped = (stop.annotations for stop in run.stops)
    assert all(stop.path == str(GRAPH_FUNCTION) for stop in run.stops)
    assert first["mode"] == second["mode"] == "graph"
    assert first["function"]["name"] == "step" and first["function"]["trace"] == 1
    assert second["function"]["trace"] == 2
    assert second["function"]["previous"] == [
        "(TensorSpec(shape=(3,), dtype=tf.float32, name='x'))"]
    assert "symbolic" in first["note"] and "once per trace" in first["note"]
    assert second["summary"] == "graph (step) · tracing `step`, trace #2 (traced before: 1)"
    assert "traced before with (TensorSpec(shape=(3,)" in second["text"]
    assert run.stops[2].console == second["text"]  # `tfi()` in the debug console
    assert run.stops[1].annotations["graph"] == "CondBranchFuncGraph"
    assert mapped["function"] is None and "traced by tf.data" in mapped["data_function"]
    assert "numpy=" not in run.stops[0].locals["x"]  # a symbolic tensor, no value


def test_stepping_stays_on_the_users_lines() -> None:
    run = debug(GRAPH_FUNCTION, ["if"], steps=["next", "next", "stepIn"], max_stops=4)
    lines = marked_lines(GRAPH_FUNCTION)
    where = [(stop.path, stop.line) for stop in run.stops]
    assert where[:2] == [(str(GRAPH_FUNCTION), lines["if"]), (str(GRAPH_FUNCTION),
                                                              lines["return"])]
    # out of the traced function, back in the module that called it (eager again)
    assert where[3][0] == str(GRAPH_FUNCTION) and run.stops[3].function == "<module>"
    assert run.stops[3].annotations["mode"] == "eager"


def test_eagerly_stops_at_every_call_and_element_with_values() -> None:
    run = debug(GRAPH_FUNCTION, ["if", "map"], eager=True)
    lines = marked_lines(GRAPH_FUNCTION)
    assert run.returncode == 0, run.output
    calls = [stop for stop in run.stops if stop.line == lines["if"]]
    elements = [stop for stop in run.stops
                if stop.line == lines["map"] and stop.annotations["mode"] == "eager"]
    assert len(calls) == 3 and len(elements) == 3
    assert all(stop.annotations["mode"] == "eager" for stop in calls)
    assert "numpy=" in calls[0].locals["x"]  # a real value
    assert "tf.function `step`: running eagerly" in calls[0].annotations["text"]
    assert "once per element" in elements[0].annotations["data_function"]
    assert "graph functions run eagerly" in run.output


def test_a_keras_layer_and_train_step_stop_under_fit() -> None:
    run = debug(KERAS_FIT, ["call", "train_step"])
    lines = marked_lines(KERAS_FIT)
    assert run.returncode == 0, run.output
    assert "fitted" in run.output
    build, step, traced_call = run.stops
    assert build.line == traced_call.line == lines["call"] and step.line == lines["train_step"]
    assert build.annotations["graph"] == "scratch_graph"  # the functional model's build
    assert [layer["class"] for layer in build.annotations["layers"]] == ["Scale"]
    assert step.annotations["function"]["keras_step"] == "train_step"
    assert step.annotations["function"]["trace"] == 1
    layers = traced_call.annotations["layers"]
    assert [layer["class"] for layer in layers] == ["Trainer", "Scale"]
    assert layers[1]["kwargs"] == {"training": True}


def test_tf_keras_call_loss_and_metric_stop_while_fit_traces() -> None:
    program = PROGRAMS / "keras2_fit.py"
    run = debug(program, ["call", "loss", "metric"])
    lines = marked_lines(program)
    assert run.returncode == 0 and "fitted" in run.output, run.output
    build, *traced = run.stops
    assert build.line == lines["call"] and build.annotations["graph"].endswith("scratch_graph")
    assert "working out output shapes" in build.annotations["note"]
    assert {stop.line for stop in traced} == {lines["call"], lines["loss"], lines["metric"]}
    assert all(stop.annotations["graph"] == "train_function"
               and stop.annotations["function"]["tracing"] for stop in traced)
    call = next(stop for stop in traced if stop.line == lines["call"])
    assert [layer["class"] for layer in call.annotations["layers"]] == ["Sequential", "Scale"]
