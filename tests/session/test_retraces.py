"""Retrace explanations, side-effect counts, the verdict chain and text rendering, from
recorded annotations (no debugger needed)."""

from __future__ import annotations

from typing import Any

from tf_insight.session import Step, TraceResult, render_text
from tf_insight.session.model import ExceptionRecord
from tf_insight.session.retraces import describe_change, explain_retraces, side_effects
from tf_insight.session.verdict import build_verdict

SITE = {"path": "/work/train.py", "line": 12, "function": "<module>"}


def _python(value: object) -> dict[str, Any]:
    return {"kind": "python", "type": type(value).__name__, "value": value}


def _tensor(shape: str, dtype: str = "float32") -> dict[str, Any]:
    return {"kind": "tensor", "shape": shape, "dtype": dtype}


def test_describe_change_names_the_argument_and_how_it_changed() -> None:
    assert describe_change({"x": _python(3)}, {"x": _python(4)}) == "`x`: Python int value 3→4"
    assert describe_change({"x": _tensor("(2,)")}, {"x": _tensor("(3,)")}) == "`x`: shape (2,)→(3,)"
    assert (
        describe_change({"x": _tensor("(2,)", "int32")}, {"x": _tensor("(2,)", "float32")})
        == "`x`: dtype int32→float32"
    )
    assert describe_change({"x": _python(1)}, {"x": _tensor("()", "int32")}) == (
        "`x`: Python int → Tensor () int32"
    )
    old = {"kind": "object", "type": "Config", "id": 1}
    assert describe_change({"c": old}, {"c": {**old, "id": 2}}) == (
        "`c`: a new Python Config object (tf.function keys on its identity)"
    )
    assert describe_change({}, {"y": _python(1)}) == "argument `y` added"
    assert describe_change({"x": _python(1)}, {"x": _python(1)}).startswith("the same arguments")


def test_tf_trace_types_decide_what_changed() -> None:
    """Two iterators with one element spec are one key for TF, whatever their identity."""
    spec = "IteratorSpec((TensorSpec(shape=(None, 8), dtype=tf.float32, name=None),))"
    first = {"kind": "object", "type": "OwnedIterator", "id": 1, "tf_type": spec}
    assert describe_change({"it": first}, {"it": {**first, "id": 2}}).startswith(
        "the same arguments")
    other = spec.replace("None, 8", "None, 9")
    assert describe_change({"it": first}, {"it": {**first, "tf_type": other}}) == (
        f"`it`: {spec} → {other}")


def _trace(index: int, value: int, function_id: str = "step_fn@1") -> dict[str, Any]:
    return {
        "kind": "trace",
        "scope": "NO_VARIABLE_CREATION",
        "context": None,
        "id": function_id,
        "function": "step_fn",
        "path": "/work/train.py",
        "line": 3,
        "index": index,
        "signature": {"step": _python(value)},
        "user_frame": SITE,
    }


def test_retraces_count_from_the_summary_even_past_the_recorded_traces() -> None:
    traces = [_trace(i, i - 1) for i in (1, 2, 3)]
    functions = {"step_fn@1": {"traces": 40, "calls": 40}}
    (retrace,) = explain_retraces(traces, functions)
    assert (retrace.function, retrace.count, retrace.call_site) == ("step_fn", 40, SITE)
    assert (retrace.cause, retrace.argument, retrace.calls) == ("python value", "step", 40)
    assert retrace.reasons == [
        "trace 2 (train.py:12): `step`: Python int value 0→1",
        "trace 3 (train.py:12): `step`: Python int value 1→2",
        "… 37 more traces (arguments not recorded)",
    ]
    assert explain_retraces(traces[:1], {}) == []  # one trace is not a retrace


def test_functions_sharing_code_are_apart_and_library_retraces_need_a_changed_argument() -> None:
    """Two tf.function objects made from one `def` (two models' train steps) each traced
    once are no retrace; Keras's own step traced twice on one key is not reported."""
    assert explain_retraces([_trace(1, 0, "step_fn@1"), _trace(1, 0, "step_fn@2")], {}) == []
    library = [{**_trace(i, 0, "one_step@3"), "path": "/venv/site-packages/keras/trainer.py"}
               for i in (1, 2)]
    assert explain_retraces(library, {}) == []
    library[1]["signature"] = {"step": _tensor("(3,)")}
    (retrace,) = explain_retraces(library, {})
    assert retrace.cause == "type"


def _run(function: str, count: int, layer_id: int = 7, name: str = "probe") -> dict[str, Any]:
    return {"layer": "Probe", "name": name, "id": layer_id, "graph": "g", "function": function,
            "count": count}


def _function(function_id: str, calls: int, traces: int, path: str,
              runner: str | None = None, unrun: int = 0) -> dict[str, Any]:
    """`unrun`: calls whose trace raised (no graph ran)."""
    return {"id": function_id, "function": function_id.split("@")[0], "path": path, "line": 3,
            "calls": calls, "runs": calls - unrun, "traces": traces, "runner": runner}


KERAS = "/site-packages/keras/src/trainer.py"


def test_side_effects_compare_python_runs_with_graph_runs() -> None:
    runs = [_run("model construction", 1), _run("multi_step@1", 1)]
    functions = {"multi_step@1": _function("multi_step@1", 40, 1, KERAS),
                 "step_fn@2": _function("step_fn@2", 5, 5, "/work/train.py")}
    probe, user_function = side_effects(runs, functions)
    assert (probe.python_runs, probe.function, probe.function_calls) == (2, "multi_step", 40)
    assert probe.summary == (
        "Probe.call (layer 'probe'): Python ran 2×: 1× building the model, 1× tracing "
        "`multi_step` (its graph then ran 40×). print() and other Python side "
        "effects run at trace time, not per step."
    )
    assert (user_function.subject, user_function.python_runs, user_function.function_calls) == (
        "tf.function step_fn",
        5,
        5,
    )


def test_a_call_whose_trace_raised_is_no_graph_run() -> None:
    functions = {"step@1": _function("step@1", 1, 1, "/work/train.py", unrun=1)}
    (layer, function) = side_effects([_run("step@1", 1)], functions)
    assert layer.summary == ("Probe.call (layer 'probe'): Python ran 1×: 1× tracing `step` "
                             "(its graph never ran).")
    assert function.summary == "tf.function `step` (train.py:3): Python traced 1×, the graph never ran."
    assert function.function_calls == 0


def test_graph_runs_count_per_function_object_and_per_layer_object() -> None:
    """A GAN: two models' `train_step`s (one name) ran 12× and 900×; two layers named alike."""
    functions = {"train_step@1": _function("train_step@1", 12, 1, KERAS),
                 "train_step@2": _function("train_step@2", 900, 1, KERAS)}
    runs = [_run("train_step@1", 1, layer_id=1, name="dense"),
            _run("train_step@2", 1, layer_id=2, name="dense")]
    first, second = side_effects(runs, functions)
    assert (first.function_calls, second.function_calls) == (12, 900)
    assert (first.subject, second.subject) == (
        "Probe.call (layer 'dense')", "Probe.call (layer 'dense' #2)")


def test_map_functions_and_scratch_graphs_get_no_invented_run_count() -> None:
    functions = {"Dataset_map_f@1": _function("Dataset_map_f@1", 0, 1,
                                              "/site-packages/tensorflow/python/data/x.py",
                                              runner="tf.data")}
    (effect,) = side_effects([_run("Dataset_map_f@1", 1), _run("graph building", 1)],
                             functions)
    assert "runs inside the tf.data pipeline" in effect.summary
    assert "ran 0×" not in effect.summary
    assert "a graph no tf.function runs" in effect.summary


def _step(index: int, probe: str, **fields: Any) -> Step:
    record = {
        "probe": probe,
        "location": {"path": "lib.py", "line": 1, "function": "f"},
        "user_frame": SITE,
        "executing_eagerly": False,
        "graph": "one_step_on_data",
        "layer": {"class": "Dropout", "name": "dropout", "remat": "full"},
        "call_fn": None,
        "args": [],
        "kwargs": {"training": True},
        **fields,
    }
    return Step(index=index, **record)


def _remat_steps() -> list[Step]:
    kinds = ("Keras traceback wrapper", "custom_gradient Bind", "tf.recompute_grad wrapper",
             "bound method")
    chain = {"repr": "<Bind>", "type": "Bind", "id": 1, "chain": [
        {"kind": kind, "type": "function", "repr": f"<{kind}>", "id": i}
        for i, kind in enumerate(kinds)]}
    return [
        _step(
            0,
            "keras.Layer.__call__",
            executing_eagerly=True,
            graph="eager",
            kwargs={},
            layer={"class": "Dense", "name": "dense"},
        ),
        _step(1, "keras.Layer.__call__", call_fn=chain),
        _step(2, "custom_gradient.Bind.__call__"),
        _step(3, "custom_gradient.decorated"),
        _step(4, "custom_gradient._graph_mode_decorator"),
    ]


def test_verdict_tells_the_remat_chain_and_links_tfi001() -> None:
    result = TraceResult(
        script="train.py",
        steps=_remat_steps(),
        exit_code=1,
        status="failed",
        exception=ExceptionRecord("ValueError", "The custom_gradient decorator ...", ""),
    )
    verdict = result.verdict = build_verdict(result)
    assert verdict is not None
    assert (verdict.rule, verdict.id, verdict.chain) == (
        "TFI001",
        "remat-scope-keyword-arguments",
        [1, 2, 3, 4],
    )
    assert verdict.summary == (
        "`Dropout.call` was wrapped for recomputation (call_fn = Bind via `tf.recompute_grad`, "
        "applied by `RematScope(mode='full')`), Keras called it in graph mode "
        "(FuncGraph `one_step_on_data`) with `training=True` → `_graph_mode_decorator` "
        "rejects keyword args"
    )
    assert verdict.fix
    text = render_text(result)
    assert "Verdict  " in text and "[TFI001 · remat-scope-keyword-arguments]" in text
    assert "chain: steps 1, 2, 3, 4" in text


def test_no_exception_no_verdict_and_other_exceptions_use_the_explain_engine() -> None:
    assert build_verdict(TraceResult(script="ok.py", steps=_remat_steps())) is None
    message = "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed."
    traceback = (
        'Traceback (most recent call last):\n  File "/work/train.py", line 12, in <module>\n'
        "    f(x)\ntensorflow.python.framework.errors_impl.OperatorNotAllowedInGraphError: "
        f"{message}\n"
    )
    result = TraceResult(
        script="train.py",
        exception=ExceptionRecord(
            "tensorflow.python.framework.errors_impl.OperatorNotAllowedInGraphError",
            message,
            traceback,
        ),
    )
    verdict = build_verdict(result)
    assert verdict is not None and verdict.id is not None and verdict.chain == []


def test_to_dict_has_the_documented_shape() -> None:
    result = TraceResult(script="train.py", steps=_remat_steps(), exit_code=0, duration_s=1.23456)
    data = result.to_dict()
    assert set(data) >= {"steps", "exception", "verdict", "retraces", "exit_code", "duration_s"}
    assert data["duration_s"] == 1.235
    assert set(data["steps"][0]) >= {
        "probe",
        "location",
        "user_frame",
        "executing_eagerly",
        "graph",
        "layer",
        "call_fn",
        "args",
        "kwargs",
    }
    assert data["steps"][1] == result.steps[1].to_dict()
