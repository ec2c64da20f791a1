"""Each catalogue entry against the real TF 2.21 output of a script that produces it.

The scripts run with this interpreter and default traceback filtering, exactly as a user
sees them; their stderr goes into `explain` unmodified (absl lines, ANSI escapes and all).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.explain.cases import CASES, Case, markers, run_all
from tf_insight.explain import explain

# All scripts run once, in the module fixture: its time counts against the first test.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

WRAPPER_TEXT = (
    "Exception encountered when calling",
    "in user code:",
    "Arguments received by",
    "\x1b[",
    "[1m",
)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[Case, str]:
    return run_all(CASES, tmp_path_factory.mktemp("real-errors"))


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_real_error_is_explained(case: Case, outputs: dict[Case, str]) -> None:
    stderr = outputs[case]
    explanation = explain(stderr, root=case.path.parent)

    assert explanation.id == case.entry, stderr[-3000:]
    assert explanation.exception is not None
    assert explanation.exception.message.startswith(case.message)
    assert not any(text in explanation.exception.message for text in WRAPPER_TEXT)

    marked = markers(case.path)
    if ("raise", case.marker) in marked:
        assert explanation.user_frame is not None
        assert Path(explanation.user_frame.path) == case.path
        assert explanation.user_frame.line == marked[("raise", case.marker)]
    else:
        assert ("warns", case.marker) in marked
        assert explanation.kind == "warning"


def test_keras_wrappers_are_reported(outputs: dict[Case, str]) -> None:
    by_marker = {(case.marker, case.keras): outputs[case] for case in CASES}

    keras3 = explain(by_marker[("functional_build", "3")])
    assert keras3.layer is not None and keras3.layer.type == "MaskedIdentity"
    assert keras3.layer.name == "masked_identity"
    assert keras3.call_arguments["kwargs"] == "{'mask': 'None'}"

    tf_keras = explain(by_marker[("sequential_build_tfk", "2")])
    assert tf_keras.layer is not None and tf_keras.layer.type == "TrainingIdentity"
    assert tf_keras.layer.name == "training_identity"
    assert tf_keras.call_arguments == {
        "inputs": "tf.Tensor(shape=(None, 3), dtype=float32)",
        "training": "None",
    }

    remat = explain(by_marker[("remat_scope", "3")])
    assert remat.layer is not None and remat.layer.type == "Functional"
    assert remat.call_arguments["training"] == "True"


def test_warning_names_the_retraced_function(outputs: dict[Case, str], tmp_path: Path) -> None:
    stderr = next(outputs[case] for case in CASES if case.marker == "retracing")
    explanation = explain(stderr)
    assert "`train_step`" in explanation.summary
    assert "train_step(tf.constant(step, tf.int64))" in explanation.fix

    with_workspace = explain(stderr, root=Path(__file__).parent / "scripts")
    assert with_workspace.user_frame is not None
    assert with_workspace.user_frame.function == "train_step"
    assert with_workspace.user_frame.code == "def train_step("


def test_out_of_scope_tensor_reports_where_it_was_defined(outputs: dict[Case, str]) -> None:
    case = next(case for case in CASES if case.marker == "out_of_scope")
    explanation = explain(outputs[case])
    assert explanation.definition_frame is not None
    assert explanation.definition_frame.function == "leaky"


def test_remat_scope_is_joined_with_the_static_finding(outputs: dict[Case, str]) -> None:
    """The traceback stops at `model.fit`; the analyzer (TFI001) names the RematScope."""
    case = next(case for case in CASES if case.marker == "remat_scope")
    explanation = explain(outputs[case], root=case.path.parent)
    finding_line = markers(case.path)[("finding", "TFI001")]
    scope_line = next(
        number
        for number, line in enumerate(case.path.read_text(encoding="utf-8").splitlines(), start=1)
        if "RematScope(" in line
    )
    related = [finding for finding in explanation.findings if finding.code == "TFI001"]
    assert related, explanation.notes
    assert finding_line in {finding.span.line for finding in related}  # the Dropout
    assert all(scope_line <= finding.span.line <= scope_line + 6 for finding in related)
    assert f"{case.path}:{related[0].span.line}: TFI001" in explanation.cause
