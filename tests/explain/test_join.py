"""Mapping traceback paths onto the workspace and attaching static findings."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.explain.cases import markers
from tf_insight.explain import explain
from tf_insight.explain.join import workspace_file

DATA = Path(__file__).parent / "data"
SCRIPTS = Path(__file__).parent / "scripts"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "proj" / "models").mkdir(parents=True)
    (tmp_path / "proj" / "models" / "train.py").write_text("x = 1\n", encoding="utf-8")
    return tmp_path / "proj"


@pytest.mark.parametrize(
    "path",
    [
        "C:\\Users\\ana\\proj\\models\\train.py",  # another machine, Windows
        "/home/ana/checkout/proj/models/train.py",  # another machine, POSIX
        "models/train.py",  # relative
    ],
)
def test_foreign_paths_map_to_the_workspace_by_their_tail(workspace: Path, path: str) -> None:
    assert workspace_file(workspace, path) == workspace / "models" / "train.py"


@pytest.mark.parametrize("path", ["<string>", "", "/elsewhere/other.py", "<frozen runpy>"])
def test_paths_outside_the_workspace(workspace: Path, path: str) -> None:
    assert workspace_file(workspace, path) is None


def test_findings_at_the_failing_line_are_attached() -> None:
    """A real traceback from `scripts/graph_errors.py`: TFI008 is reported on the raising line."""
    explanation = explain(
        (DATA / "singleton_variable.txt").read_text(encoding="utf-8"), root=SCRIPTS
    )
    line = markers(SCRIPTS / "graph_errors.py")[("raise", "singleton_variable")]
    assert explanation.id == "variable-created-per-call"
    assert explanation.findings, explanation.notes
    first = explanation.findings[0]
    assert (first.code, first.span.line) == ("TFI008", line)
    assert "In your code:" in explanation.cause


def test_without_root_no_join() -> None:
    explanation = explain((DATA / "singleton_variable.txt").read_text(encoding="utf-8"))
    assert explanation.findings == ()


def test_analyzer_failure_becomes_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    import tf_insight.check.analyzer

    def broken(*_: object, **__: object) -> list[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(tf_insight.check.analyzer, "check_file", broken)
    explanation = explain(
        (DATA / "singleton_variable.txt").read_text(encoding="utf-8"), root=SCRIPTS
    )
    assert explanation.id == "variable-created-per-call"
    assert any("static analysis failed" in note and "boom" in note for note in explanation.notes)


def test_missing_analyzer_becomes_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tf_insight.check.analyzer", None)
    explanation = explain(
        (DATA / "singleton_variable.txt").read_text(encoding="utf-8"), root=SCRIPTS
    )
    assert explanation.id == "variable-created-per-call"
    assert any("static analysis unavailable" in note for note in explanation.notes)


def test_retraced_function_is_found_in_the_workspace_not_in_the_venv(tmp_path: Path) -> None:
    (tmp_path / ".venv" / "lib").mkdir(parents=True)
    (tmp_path / ".venv" / "lib" / "keras_like.py").write_text("def train_step(x):\n    pass\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "loop.py").write_text(
        "import tf\n\n\n@tf.function\ndef train_step(x):\n    pass\n"
    )
    explanation = explain(
        (DATA / "retracing_warning.txt").read_text(encoding="utf-8"), root=tmp_path
    )
    assert explanation.id == "retracing-warning"
    assert explanation.user_frame is not None
    assert (Path(explanation.user_frame.path), explanation.user_frame.line) == (
        tmp_path / "src" / "loop.py",
        5,
    )


def _plain_python_workspace(tmp_path: Path) -> str:
    """A graph function with a trace-time `print` (TFI006) whose own line raises a KeyError:
    the traceback of a plain Python call of it, as Python prints it."""
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\n\n\n"
        "@tf.function\n"
        "def step(config):\n"
        "    print('tracing')\n"
        "    return config['scale']\n\n\n"
        "step.python_function({})\n", encoding="utf-8")
    path = tmp_path / "train.py"
    return ("Traceback (most recent call last):\n"
            f'  File "{path}", line 10, in <module>\n'
            "    step.python_function({})\n"
            f'  File "{path}", line 7, in step\n'
            "    return config['scale']\n"
            "KeyError: 'scale'\n")


def test_a_plain_python_error_is_said_so_with_no_unrelated_finding(tmp_path: Path) -> None:
    explanation = explain(_plain_python_workspace(tmp_path), root=tmp_path)
    assert (explanation.id, explanation.title) == (None, "KeyError outside TensorFlow")
    assert explanation.user_frame is not None and explanation.user_frame.line == 7
    assert explanation.findings == ()
    assert "no graph-mode hazard" in explanation.cause


def test_the_same_error_raised_under_keras_stays_a_possible_graph_error(tmp_path: Path) -> None:
    keras_frame = ('  File "/venv/lib/python3.11/site-packages/keras/src/utils/'
                   'traceback_utils.py", line 122, in error_handler\n'
                   "    raise e.with_traceback(filtered_tb) from None\n")
    text = _plain_python_workspace(tmp_path)
    head, _, tail = text.partition('  File "' + str(tmp_path / "train.py") + '", line 7')
    explanation = explain(head + keras_frame + '  File "' + str(tmp_path / "train.py")
                          + '", line 7' + tail, root=tmp_path)
    assert explanation.title == "Unrecognised KeyError"
    assert "ran as a graph" in explanation.cause
