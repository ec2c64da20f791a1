"""Retrace explanations, side-effect counts, the verdict chain and text rendering, from
recorded annotations (no debugger needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tf_insight.session import Step, TraceResult, render_text
from tf_insight.session.effects import side_effects
from tf_insight.session.model import ExceptionRecord
from tf_insight.session.render import short_message
from tf_insight.session.retraces import argument_changes, explain_retraces
from tf_insight.session.verdict import build_verdict

SITE = {"path": "/work/train.py", "line": 12, "function": "<module>"}


def _python(value: object) -> dict[str, Any]:
    return {"kind": "python", "type": type(value).__name__, "value": value}


def _tensor(shape: str, dtype: str = "float32") -> dict[str, Any]:
    return {"kind": "tensor", "shape": shape, "dtype": dtype}


def describe_change(before: dict[str, Any], after: dict[str, Any]) -> str:
    """What a retrace's reason says changed between two signatures."""
    changes = argument_changes(before, after)  # type: ignore[arg-type]
    return "; ".join(text for _name, _cause, text in changes) or "the same arguments"


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
        "`it`: IteratorSpec with shapes (None, 8)→(None, 9)")
    distributed = ("Tuple[PerReplicaSpec(TensorSpec(shape=(32, 4), dtype=tf.float32, "
                   "name=None), TensorSpec(shape=(32, 4), dtype=tf.float32, name=None))]")
    short = distributed.replace("(32,", "(12,")
    assert describe_change({"x": {**first, "tf_type": distributed}},
                           {"x": {**first, "tf_type": short}}) == (
        "`x`: Tuple of PerReplicaSpec with shapes (32, 4)→(12, 4)")
    other_dtype = distributed.replace("float32", "int32")
    assert describe_change({"x": {**first, "tf_type": distributed}},
                           {"x": {**first, "tf_type": other_dtype}}) == (
        f"`x`: {distributed} → {other_dtype}")


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
            "count": count, "call": None}


def _function(function_id: str, calls: int, traces: int, path: str,
              runner: str | None = None, unrun: int = 0,
              inside: tuple[str, ...] = ()) -> dict[str, Any]:
    """`unrun`: calls whose trace raised (no graph ran); a function in /work is the user's."""
    name = function_id.split("@")[0]
    users = {"name": name, "path": path, "line": 3} if path.startswith("/work/") else None
    return {"id": function_id, "function": name, "context": None, "path": path, "line": 3,
            "calls": calls, "runs": calls - unrun, "traces": traces, "failed_traces": 0,
            "runner": runner,
            "user_function": users, "inside": list(inside)}


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


def _shape_trace(index: int, scope: str = "NO_VARIABLE_CREATION", **shapes: str) -> dict[str, Any]:
    dtypes = {"labels": "float32"}
    return {**_trace(index, 0), "scope": scope, "signature": {
        name: _tensor(shape, dtypes.get(name, "int32")) for name, shape in shapes.items()}}


def test_a_short_last_batch_is_one_more_trace_said_as_a_note_never_a_verdict() -> None:
    traces = [_shape_trace(1, "VARIABLE_CREATION", images="(64, 28, 28, 1)", labels="(64,)"),
              _shape_trace(2, images="(64, 28, 28, 1)", labels="(64,)"),
              _shape_trace(3, images="(8, 28, 28, 1)", labels="(8,)")]
    (retrace,) = explain_retraces(traces, {"step_fn@1": _function("step_fn@1", 4, 3, "/work/t.py")})
    assert (retrace.count, retrace.variable_traces, retrace.cause) == (2, 1, "shape")
    assert retrace.expected is not None and "its first dimension 64 → 8" in retrace.expected
    result = TraceResult(script="t.py", retraces=[retrace])
    assert build_verdict(result) is None
    report = render_text(result)
    assert "traced 2× in 4 calls (+1: TF traces a first call that creates variables twice)" in (
        report)
    assert "note: one more trace for a short last batch" in report
    assert "retraced on its arguments but for a short last batch" in report


def test_a_shape_fix_has_each_arguments_rank_and_dtype_with_none_where_shapes_differed() -> None:
    traces = [_shape_trace(i, tokens=f"(32, {length})", labels="(32, 1)")
              for i, length in enumerate((43, 93, 67), start=1)]
    (retrace,) = explain_retraces(traces, {})
    assert retrace.expected is None
    assert retrace.input_signature == (
        "input_signature=[tf.TensorSpec([32, None], tf.int32), "
        "tf.TensorSpec([32, 1], tf.float32)]")
    verdict = build_verdict(TraceResult(script="t.py", retraces=[retrace]))
    assert verdict is not None and retrace.input_signature in (verdict.fix or "")
    python = [{**_trace(i, 0), "signature": {"tokens": _tensor(f"({n},)"), "k": _python(1)}}
              for i, n in enumerate((2, 3), start=1)]
    (mixed,) = explain_retraces(python, {})
    assert mixed.input_signature is None  # a Python argument: no signature can cover it


def test_a_graph_that_kept_a_global_after_it_changed_is_tfi003_where_it_is_read(
        tmp_path: Path) -> None:
    script = tmp_path / "distill.py"
    script.write_text("import tensorflow as tf\nT = 8.0\n\n\n@tf.function\ndef loss(x):\n"
                      "    y = x * 2\n    return y / T\n")
    reader = {"name": "loss", "path": str(script), "line": 5}
    result = TraceResult(script=str(script), stale_globals=[
        {"function": "step@1", "reader": reader, "name": "T", "traced": "8.0", "now": "1.0",
         "runs": 60}])
    verdict = build_verdict(result, tmp_path)
    assert verdict is not None and verdict.rule == "TFI003", verdict
    assert verdict.user_frame is not None and verdict.user_frame["line"] == 8
    assert "ran 60× after `T` had changed (to 1.0), still computing with 8.0" in verdict.summary


GRAPH_ERROR = '''Traceback (most recent call last):
  File "/work/train.py", line 12, in <module>
    main()
  File "/work/train.py", line 9, in main
    step(x)
  File "/venv/site-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute
    tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:

Detected at node Assert defined at (most recent call last):
  File "/work/train.py", line 12, in <module>

assertion failed: [x == y did not hold]
'''


def test_an_unrecognised_failure_says_so_at_the_users_deepest_frame_with_no_guessed_fix(
        ) -> None:
    message = GRAPH_ERROR.split("InvalidArgumentError: ", 1)[1]
    result = TraceResult(script="train.py", exception=ExceptionRecord(
        "tensorflow.python.framework.errors_impl.InvalidArgumentError", message, GRAPH_ERROR))
    verdict = build_verdict(result)
    assert verdict is not None and (verdict.id, verdict.rule, verdict.fix) == (None, None, None)
    assert verdict.title == "InvalidArgumentError: not a graph-mode hazard TF Insight knows"
    assert verdict.summary.startswith("assertion failed: [x == y did not hold]")
    assert verdict.user_frame is not None
    assert (verdict.user_frame["line"], verdict.user_frame["function"]) == (9, "main")


def test_the_report_reads_well_on_odd_results() -> None:
    """No "exit code None"; Keras's own words kept up to its error; a finding's message cut
    at a word, never inside a code span."""
    assert render_text(TraceResult(script="t.py", status="error")).startswith(
        "tf-insight trace t.py: error, 0 steps")
    keras = ("Exception encountered when calling L.call().\n\nCould not infer the output "
             "shape of 'l'. Error encountered:\n\nThe custom_gradient decorator rejects kwargs.")
    result = TraceResult(script="t.py", status="failed", exit_code=1,
                         exception=ExceptionRecord("ValueError", keras, ""))
    assert "  The custom_gradient decorator rejects kwargs." in render_text(result)
    assert short_message("`ClipGradientNorm.call` is wrapped: `a: b` x") == (
        "`ClipGradientNorm.call` is wrapped")
    long = "`Layer.call` " + "word " * 40 + "`x: y`"
    assert short_message(long).endswith("word …") and short_message(long).count("`") == 2
