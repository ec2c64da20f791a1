"""`%load_ext tf_insight` in a real IPython kernel (ipykernel, driven by jupyter_client) with
real TensorFlow: what a notebook shows under a failing cell."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from typing import Any

import pytest

from tests.kernel import Kernel

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

GRAPH_ERROR_CELL = textwrap.dedent("""\
    import tensorflow as tf

    @tf.function(autograph=False)
    def positive_only(x):
        if x > 0:
            return x
        return -x

    positive_only(tf.constant(1.0))
""")


@pytest.fixture(scope="module")
def kernel() -> Iterator[Kernel]:
    started = Kernel({"TF_CPP_MIN_LOG_LEVEL": "2"})
    yield started
    started.stop()


def notes(outputs: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [output["data"] for output in outputs if output["type"] == "display_data"]


def test_graph_mode_error_is_explained_under_the_traceback(kernel: Kernel) -> None:
    assert kernel.run("%load_ext tf_insight") == []
    outputs = kernel.run(GRAPH_ERROR_CELL)

    kinds = [output["type"] for output in outputs if output["type"] in ("error", "display_data")]
    assert kinds == ["error", "display_data"], outputs  # the note comes after the traceback
    assert outputs[[o["type"] for o in outputs].index("error")]["ename"] == \
        "OperatorNotAllowedInGraphError"
    (note,) = notes(outputs)
    markdown, text = note["text/markdown"], note["text/plain"]
    assert "Python `bool`" in markdown and "`tensor-as-python-bool`" in markdown
    assert "**Your line:** cell In[" in markdown and "line 5: `if x > 0:`" in markdown
    assert "```python" in markdown  # the fix's code
    assert "%tf_insight explain" in markdown
    assert text.startswith("TF Insight: ") and "line 5: if x > 0:" in text


def test_full_explanation_on_request(kernel: Kernel) -> None:
    outputs = kernel.run("%tf_insight explain")
    (full,) = notes(outputs)
    assert "**What happened.**" in full["text/markdown"]
    assert "What happened:" in full["text/plain"]


def test_other_exceptions_are_left_alone(kernel: Kernel) -> None:
    outputs = kernel.run("{'a': 1}['b']")
    assert [output["type"] for output in outputs] == ["error"]
    assert outputs[0]["ename"] == "KeyError"
    assert [output["type"] for output in kernel.run("1 + 1")] == ["execute_result"]


def test_turned_off_and_unloaded(kernel: Kernel) -> None:
    off = kernel.run("%tf_insight off")
    assert "is off" in off[0]["text"]
    assert notes(kernel.run(GRAPH_ERROR_CELL)) == []

    kernel.run("%tf_insight on")
    assert len(notes(kernel.run(GRAPH_ERROR_CELL))) == 1

    assert kernel.run("%unload_ext tf_insight") == []
    assert notes(kernel.run(GRAPH_ERROR_CELL)) == []
    gone = kernel.run("%tf_insight status")
    assert "not found" in str(gone), gone

    kernel.run("%load_ext tf_insight")
    assert len(notes(kernel.run(GRAPH_ERROR_CELL))) == 1


def test_an_exception_that_cannot_be_printed_gets_no_note(kernel: Kernel) -> None:
    """IPython itself fails to print it (and says so); we add nothing and the kernel goes on."""
    outputs = kernel.run(textwrap.dedent("""\
        class Unprintable(Exception):
            def __str__(self):
                raise RuntimeError("no text")
        raise Unprintable()
    """))
    assert outputs and notes(outputs) == []
    assert kernel.run("print(2 + 2)")[0]["text"] == "4\n"
