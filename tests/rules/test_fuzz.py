"""The analyzer never raises: not on any valid Python (hypothesmith), nor on broken or mangled
versions of real TF code."""

from __future__ import annotations

from pathlib import Path

import hypothesmith
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tf_insight.check.analyzer import analyze_source

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.py"))
TF_HEADER = "import tensorflow as tf\nimport keras\nimport numpy as np\n"


def assert_analyzes(text: str) -> None:
    analysis = analyze_source(text, "fuzz.py")
    assert not analysis.errors, analysis.errors


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_any_valid_python(source: str) -> None:
    assert_analyzes(TF_HEADER + source)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_node())
def test_any_valid_python_statements(source: str) -> None:
    assert_analyzes(TF_HEADER + source)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(FIXTURES),
    st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.text(max_size=8)), max_size=4),
)
def test_mangled_real_code(fixture: Path, cuts: list[tuple[float, float, str]]) -> None:
    text = fixture.read_text(encoding="utf-8")
    for start, length, insert in cuts:
        at = int(start * len(text))
        text = text[:at] + insert + text[at + int(length * 40) :]
    assert_analyzes(text)


def test_a_tf_function_that_passes_its_parameter_on_to_itself() -> None:
    # Found by test_mangled_real_code: TFI005 asked the callers of `log` what `step` is, and
    # the caller was `log` itself.
    assert_analyzes(
        "import tensorflow as tf\n\n"
        "@tf.function\n"
        "def log(value, step):\n"
        "    tf.summary.scalar('metric', value, step=step)\n"
        "    log(0.5, tf.constant(step))\n"
    )
