"""Guided sessions on real training scripts and on one script per hazard family (slow): no
false retraces, counts per function and layer object, and a verdict at the user's line where
there is a hazard, none where there is not.

The family scripts are the explain corpus's (`tests/explain/scripts`): the line the verdict
must name is marked there (`# @verdict: NAME`, else the `# @raise: NAME` line).
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.explain.cases import CASES, Case
from tests.session.helpers import LEGACY_KERAS, PYTHON, SCRIPTS, Run, marker_line
from tf_insight.explain.catalogue import get_entry
from tf_insight.session import TraceConfig, TraceResult, render_text, run_trace

pytestmark = pytest.mark.slow

# One raising case per hazard family and rule, Keras 3 unless the hazard is tf-keras's own.
FAMILY_CASES = ("sequential_fit", "recompute_method", "tensor_bool", "numpy_attr",
                "keras_tensor", "singleton_variable", "out_of_scope", "summary_int32",
                "squeeze", "dataset_y", "no_gradients", "input_signature")


def _family_cases() -> list[Case]:
    chosen: dict[str, Case] = {}
    for case in CASES:
        if case.marker in FAMILY_CASES and case.marker not in chosen and (
                case.keras == "3" or case.marker == "squeeze") and "eager" not in case.arguments:
            chosen[case.marker] = case
    assert sorted(chosen) == sorted(FAMILY_CASES)
    return list(chosen.values())


# A layer's `call` of the user's, decorated with `tf.custom_gradient`: the verdict names the
# decorator (where the fix goes), not the `fit` that traced it.
DECORATED_CALLS = {"sequential_fit": "TrainingIdentity"}


def _expected_line(case: Case) -> int:
    lines = case.path.read_text(encoding="utf-8").splitlines()
    if case.marker in DECORATED_CALLS:
        start = lines.index(f"class {DECORATED_CALLS[case.marker]}(keras.layers.Layer):")
        return next(n for n, line in enumerate(lines, start=1)
                    if n > start and line.strip() == "@tf.custom_gradient")
    for kind in ("verdict", "raise"):
        pattern = re.compile(rf"#\s*@{kind}:\s*{re.escape(case.marker)}\b")
        found = [n for n, line in enumerate(lines, start=1) if pattern.search(line)]
        if found:
            return found[0]
    raise LookupError(f"no marker for {case.marker} in {case.path}")


def _trace(case: Case, trace_to_end: bool = False, python: str = PYTHON) -> TraceResult:
    return run_trace(TraceConfig(script=str(case.path), args=case.arguments, python=python,
                                 env=LEGACY_KERAS if case.keras == "2" else None,
                                 output=lambda _stream, _text: None, trace_to_end=trace_to_end))


def _traced_cases(trace_to_end: bool) -> dict[str, tuple[Case, TraceResult]]:
    cases = _family_cases()
    with ThreadPoolExecutor(max_workers=2) as pool:
        return {case.marker: (case, result) for case, result in zip(
            cases, pool.map(lambda case: _trace(case, trace_to_end), cases), strict=True)}


@pytest.fixture(scope="module")
def family_results() -> dict[str, tuple[Case, TraceResult]]:
    return _traced_cases(trace_to_end=False)


@pytest.fixture(scope="module")
def family_results_traced_to_end() -> dict[str, tuple[Case, TraceResult]]:
    return _traced_cases(trace_to_end=True)


def _outcome(result: TraceResult) -> dict[str, object]:
    """What a session reports, without what differs between any two runs (object ids,
    addresses, timings) or what only says what the session cost (hits, retired probes)."""
    def same_in_every_run(value: object) -> object:
        text = json.dumps(value, sort_keys=True)
        return re.sub(r"0x[0-9a-f]+|@[0-9a-f]+\b|\b\d{9,}\b|(?<=__autograph_generated_file)\w+",
                      "#", text)

    verdict = result.verdict
    return {
        "status": result.status,
        "steps": [same_in_every_run(step.to_dict() | {"index": None}) for step in result.steps],
        "exception": result.exception and same_in_every_run(
            (result.exception.type, result.exception.message)),
        "verdict": verdict and same_in_every_run(
            (verdict.id, verdict.rule, verdict.title, verdict.summary, verdict.user_frame)),
        "retraces": [same_in_every_run(r.__dict__) for r in result.retraces],
        "side_effects": [same_in_every_run(e.__dict__) for e in result.side_effects],
    }


@pytest.mark.parametrize("marker", FAMILY_CASES)
def test_switching_the_tracer_off_once_the_run_repeats_changes_nothing_in_the_report(
        family_results: dict[str, tuple[Case, TraceResult]],
        family_results_traced_to_end: dict[str, tuple[Case, TraceResult]], marker: str) -> None:
    _, result = family_results[marker]
    _, traced_to_end = family_results_traced_to_end[marker]
    assert _outcome(result) == _outcome(traced_to_end)


@pytest.mark.parametrize("marker", FAMILY_CASES)
def test_each_family_verdict_names_the_rule_and_the_users_line(
        family_results: dict[str, tuple[Case, TraceResult]], marker: str) -> None:
    case, result = family_results[marker]
    verdict = result.verdict
    assert verdict is not None, render_text(result, verbose=True)
    entry = get_entry(case.entry)
    assert entry is not None
    assert (verdict.id, verdict.rule) == (case.entry, entry.rule) or (
        entry.rule is not None and verdict.rule == entry.rule), verdict
    assert verdict.user_frame is not None, render_text(result)
    assert Path(verdict.user_frame["path"]).name == case.path.name
    assert verdict.user_frame["line"] == _expected_line(case), render_text(result)
    assert verdict.user_frame["source"]
    report = render_text(result)
    assert report.index("Verdict") < report.index("Exception")  # the outcome first
    assert f"{case.path.name}:{_expected_line(case)}" in report


def test_a_tf_function_whose_trace_raised_is_said_never_to_have_run(
        family_results: dict[str, tuple[Case, TraceResult]]) -> None:
    _, result = family_results["tensor_bool"]
    (effect,) = [e for e in result.side_effects if e.subject.startswith("tf.function ")]
    assert (effect.python_runs, effect.function_calls) == (1, 0), effect
    assert effect.summary.endswith("Python traced 1×, the graph never ran."), effect


def test_a_clean_fit_reports_no_retrace_no_verdict_and_no_invented_counts() -> None:
    """Keras's train and test functions share code, and so do the two datasets' tf.data
    functions: nothing retraced, and the map function is not said to have run 0×."""
    run = Run("clean_fit.py")
    result = run.result
    assert (result.status, result.exception, result.verdict) == ("completed", None, None)
    assert result.retraces == []
    report = render_text(result)
    assert "No graph-mode hazard seen" in report.splitlines()[2]
    assert "ran 0×" not in report
    assert len(report.splitlines()) < 25, report  # a screen
    dense = [e for e in result.side_effects if e.subject.startswith("Dense")]
    assert {e.function_calls for e in dense} == {12}, dense  # 3 epochs × 4 training steps
    assert all("all_reduce" not in str(step.call_fn) for step in result.steps)  # TF's own


def test_keras_train_test_and_predict_functions_are_told_apart_by_their_step() -> None:
    result = Run("evaluate_new_batch.py").result
    assert result.verdict is None
    retraced = {(r.function, r.context) for r in result.retraces}
    assert retraced == {("multi_step_on_iterator", "running test_step"),
                        ("one_step_on_data", "running test_step")}, result.retraces
    evaluate = marker_line("evaluate_new_batch.py", "evaluate")
    assert all(r.call_site and r.call_site["line"] == evaluate for r in result.retraces)
    report = render_text(result, verbose=True)
    assert "multi_step_on_iterator running test_step (keras/" in report


def test_two_models_sharing_a_train_step_are_counted_apart() -> None:
    result = Run("two_models.py").result
    assert (result.status, result.verdict, result.retraces) == ("completed", None, [])
    heads = [e for e in result.side_effects if "(layer 'head" in e.subject]
    assert sorted(e.function_calls or 0 for e in heads) == [8, 20], heads  # 2 × 4 and 5 × 4
    assert {e.subject for e in heads} == {
        "Dense.call (layer 'head')", "Dense.call (layer 'head' #2)"}


@pytest.mark.parametrize(("name", "rule", "argument", "cause"), [
    ("retrace_python_int.py", "TFI004", "factor", "python value"),
    ("retrace_shapes.py", None, "x", "shape"),
])
def test_a_completed_run_that_retraced_ends_with_a_verdict_at_the_call(
        name: str, rule: str | None, argument: str, cause: str) -> None:
    result = Run(name).result
    assert result.status == "completed"
    (retrace,) = result.retraces
    assert (retrace.cause, retrace.argument, retrace.count) == (cause, argument, 5 + (
        name == "retrace_python_int.py"))
    verdict = result.verdict
    assert verdict is not None and verdict.rule == rule
    assert verdict.user_frame is not None
    assert verdict.user_frame["line"] == marker_line(name, "verdict")
    assert f"`{argument}`" in verdict.summary
    if cause == "shape":
        assert "(1,)→(2,)" in verdict.summary
        assert "input_signature" in (verdict.fix or "") and "reduce_retracing" in (
            verdict.fix or "")
    if rule is not None:
        assert any(f["code"] == rule for f in verdict.findings), verdict.findings


def test_recompute_grad_on_call_is_tfi002_at_the_decorator() -> None:
    result = Run("recompute_call.py").result
    verdict = result.verdict
    assert verdict is not None, render_text(result, verbose=True)
    assert (verdict.rule, verdict.id) == ("TFI002", "recompute-grad-on-method")
    assert verdict.user_frame is not None
    assert verdict.user_frame["line"] == marker_line("recompute_call.py", "verdict")
    assert any(f["code"] == "TFI002" for f in verdict.findings)
    assert "args=" not in verdict.summary  # not the build-time call's `args=`/`kwargs=` dicts


def _notebook_marker(name: str) -> tuple[int, int]:
    """(cell, line in the cell) of the `# @verdict` marker in one of our notebooks."""
    cells = json.loads((SCRIPTS / name).read_text(encoding="utf-8"))["cells"]
    for number, cell in enumerate(cells, start=1):
        for line, text in enumerate("".join(cell["source"]).splitlines(), start=1):
            if "# @verdict" in text:
                return number, line
    raise LookupError(f"no @verdict in {name}")


@pytest.mark.parametrize(("name", "rule"), [
    ("retrace_notebook.ipynb", "TFI004"),  # completes, retraced on a Python int
    ("raises_notebook.ipynb", "TFI013"),  # fails inside a tf.function, after a `!shell` line
])
def test_a_notebook_runs_its_cells_in_order_and_the_verdict_names_cell_and_line(
        name: str, rule: str) -> None:
    result = Run(name).result
    verdict = result.verdict
    assert verdict is not None and verdict.rule == rule, render_text(result, verbose=True)
    cell, line = _notebook_marker(name)
    assert verdict.user_frame is not None
    assert (verdict.user_frame["path"], verdict.user_frame["cell"], verdict.user_frame["line"]) == (
        str((SCRIPTS / name).resolve()), cell, line)
    assert "# @verdict" in str(verdict.user_frame["source"])
    user_frames = [s.user_frame for s in result.steps if s.user_frame]
    assert user_frames and all(f["path"].endswith(".ipynb") and f["cell"] for f in user_frames)
    assert f"{name}:cell {cell}:{line}" in render_text(result)
    if result.exception is not None:
        assert f"cell {cell}, line {line}" in result.exception.traceback
        exception = result.exception  # the joined module's temporary path appears nowhere
        assert "tf-insight-notebook-" not in exception.message + exception.traceback + str(
            exception.stack), exception


def test_a_file_that_is_not_a_notebook_is_said_so(tmp_path: Path) -> None:
    broken = tmp_path / "broken.ipynb"
    broken.write_text('{"cells": 3')
    result = run_trace(TraceConfig(script=str(broken)))
    assert result.status == "error"
    assert result.problems == [f"cannot run {broken}: not a notebook: invalid JSON at line 1, "
                               "column 12 (Expecting ',' delimiter)"]


def test_a_completed_run_whose_print_ran_at_trace_time_only_ends_with_tfi006() -> None:
    result = Run("print_per_step.py").result
    verdict = result.verdict
    assert verdict is not None and verdict.rule == "TFI006", render_text(result)
    assert verdict.user_frame is not None
    assert verdict.user_frame["line"] == marker_line("print_per_step.py", "verdict")
    assert "traced 1× and its graph ran 10×" in verdict.summary
    assert "tf.print" in (verdict.fix or "")



@pytest.mark.parametrize("name", ["clean_fit.py", "two_models.py", "print_per_step.py",
                                  "late_news.py"])
def test_a_run_that_repeats_itself_is_traced_until_then_with_the_same_report(name: str) -> None:
    """Keras's fit loops, custom `train_step`s, a side effect counted on, a retrace and a new
    eager call site after the tracer went off: the report equals the one traced to the end."""
    result, traced_to_end = Run(name).result, Run(name, trace_to_end=True).result
    assert result.tracer_switched_off == "sys.settrace"  # this Python is older than 3.12
    assert traced_to_end.tracer_switched_off is None
    assert _outcome(result) == _outcome(traced_to_end)


# Python 3.12+: debugpy traces with `sys.monitoring`, switched per thread in another way.
PYTHON_312 = Path(__file__).resolve().parents[2] / ".venvs" / "py312" / "bin" / "python"


@pytest.fixture(scope="module")
def python_312() -> str:
    if not PYTHON_312.exists():
        pytest.fail(f"no {PYTHON_312}: scripts/setup makes it from a Python 3.12 (PYTHON312)")
    return str(PYTHON_312)


@pytest.mark.parametrize("name", ["two_models.py", "late_news.py"])
def test_under_sys_monitoring_the_tracer_goes_off_with_the_same_report(
        python_312: str, name: str) -> None:
    result = Run(name, python=python_312).result
    traced_to_end = Run(name, python=python_312, trace_to_end=True).result
    assert result.tracer_switched_off == "sys.monitoring"
    assert traced_to_end.tracer_switched_off is None
    assert _outcome(result) == _outcome(traced_to_end)


@pytest.mark.parametrize("marker", ["sequential_fit", "recompute_method", "tensor_bool"])
def test_under_sys_monitoring_the_verdict_names_the_same_line(
        python_312: str, family_results: dict[str, tuple[Case, TraceResult]],
        marker: str) -> None:
    case, on_this_python = family_results[marker]
    result = _trace(case, python=python_312)
    assert result.verdict is not None and on_this_python.verdict is not None
    assert (result.verdict.id, result.verdict.rule, result.verdict.user_frame) == (
        on_this_python.verdict.id, on_this_python.verdict.rule, on_this_python.verdict.user_frame)


def test_layers_given_keras_tensors_in_a_list_or_keyword_are_model_construction() -> None:
    result = Run("functional_merge.py").result
    report = render_text(result)
    merged = [e for e in result.side_effects if "(layer 'add')" in e.subject]
    assert merged and "1× building the model" in merged[0].summary, report
    assert "eagerly" not in report, report


def test_a_first_call_traced_again_for_its_variables_is_no_retrace() -> None:
    """`step` creates Dense's variables on its first call (TF traces it twice then); only the
    new shape later is a retrace."""
    (retrace,) = Run("late_news.py").result.retraces
    assert (retrace.function, retrace.count, retrace.cause) == ("step", 2, "shape")
    assert len(retrace.reasons) == 1 and "(2, 3)→(4, 3)" in retrace.reasons[0]


def test_a_distributed_step_whose_first_call_creates_the_optimizers_slots_is_named() -> None:
    """Keras 3 + MirroredStrategy without `optimizer.build` under the scope: the graph fails
    at run time ("You must feed a value for placeholder tensor 'cond/else/…'"); the run shows
    why (TF traced `fn_with_cond` for the variables), the traceback alone does not."""
    result = Run("mirrored_unbuilt_optimizer.py").result
    verdict = result.verdict
    assert verdict is not None, render_text(result, verbose=True)
    assert verdict.title == "A distributed `tf.function` created variables on its first call"
    assert "optimizer.build(model.trainable_variables)" in (verdict.fix or "")
    assert verdict.user_frame is not None
    assert verdict.user_frame["line"] == marker_line("mirrored_unbuilt_optimizer.py", "verdict")


SRC_TRAIN = """import tensorflow as tf

from pkg.data import batches


@tf.function
def step(x):
    print("step", x)  # @verdict
    return x * 2


for batch in batches():
    step(batch)
"""


def test_a_module_of_a_src_layout_project_runs_as_python_m_runs_it(tmp_path: Path) -> None:
    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "data.py").write_text(
        "import tensorflow as tf\n\n\ndef batches():\n"
        "    return [tf.ones((2,)) for _ in range(6)]\n")
    (package / "train.py").write_text(SRC_TRAIN)
    result = run_trace(TraceConfig(script="pkg.train", module=True, cwd=str(tmp_path),
                                   env={"PYTHONPATH": str(tmp_path / "src")},
                                   output=lambda _stream, _text: None))
    assert (result.script, result.status, result.exit_code) == ("-m pkg.train", "completed", 0)
    verdict = result.verdict
    assert verdict is not None and verdict.rule == "TFI006", render_text(result)
    assert verdict.user_frame is not None
    assert (verdict.user_frame["path"], verdict.user_frame["line"]) == (
        str((package / "train.py").resolve()), 8)


def test_a_layer_that_counts_its_calls_in_a_python_attribute_counts_traces() -> None:
    run = Run("layer_counter.py")
    verdict = run.result.verdict
    assert verdict is not None and verdict.rule == "TFI006", render_text(run.result)
    assert verdict.user_frame is not None
    assert verdict.user_frame["line"] == marker_line("layer_counter.py", "verdict")
    counted = int(run.stdout.split("calls")[1])  # building the model, then fit's trace
    assert f"ran {counted}×, not once per call" in verdict.summary
    assert "its graph ran 8×" in verdict.summary and "assign_add" in (verdict.fix or "")
