"""`explain` never raises, and the core never imports TensorFlow."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from tf_insight.explain import explain
from tf_insight.explain.parser import parse
from tf_insight.explain.render import render_markdown, render_text

# Fragments of real output, so generated text hits the parser's structures, not only noise.
FRAGMENTS = [
    "Traceback (most recent call last):\n",
    '  File "/p/x.py", line 3, in f\n',
    "    x = 1\n",
    "ValueError: in user code:\n",
    '    File "/p/x.py", line 3, in f  *\n',
    "    ValueError: boom\n",
    "Exception encountered when calling L.call().\n",
    "Arguments received by L.call():\n",
    "  • x=1\n",
    'Exception encountered when calling layer "l" (type L).\n',
    "Graph execution error:\n",
    "Detected at node R defined at (most recent call last):\n",
    "<tf.Tensor 'a:0' shape=()> was defined here:\n",
    "During handling of the above exception, another exception occurred:\n",
    "WARNING:tensorflow:5 out of the last 5 calls to <function f at 0x1> triggered tf.function retracing.\n",
    "/p/x.py:3: UserWarning: w\n",
    "\x1b[1m",
    "\r\n",
    "\n",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=40)), max_size=40))
def test_explain_never_raises(pieces: list[str]) -> None:
    text = "".join(pieces)
    explanation = explain(text)
    render_text(explanation)
    render_markdown(explanation)
    explanation.to_dict()
    parse(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_explain_never_raises_on_decoded_bytes(data: bytes) -> None:
    explain(data.decode("utf-8", errors="replace"))


def test_core_does_not_import_tensorflow() -> None:
    code = (
        "import sys\n"
        "sys.modules['tensorflow'] = None\n"  # importing it would fail loudly
        "from tf_insight.explain import explain\n"
        "from tf_insight.explain import cli\n"
        "from tf_insight.explain.render import render_text\n"
        "render_text(explain('Traceback (most recent call last):\\nValueError: x\\n'))\n"
        "assert not any(name.startswith(('keras', 'tf_keras')) for name in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


CONTROLS = ["\x9b31m", "\x9b0m", "\x9d0;title\x07", "\b", "\r", "\x07", "\x1b[2J", "\x7f"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS + CONTROLS), st.text(max_size=20)),
                max_size=40))
def test_terminal_output_carries_no_control_characters(pieces: list[str]) -> None:
    """8-bit CSI (U+009B), OSC, backspace and carriage return in a paste would rewrite what
    the terminal shows: they are stripped like ESC sequences."""
    from tf_insight.explain.repair import without_controls

    text = without_controls(render_text(explain("".join(pieces))))
    assert not any(ch in text for ch in "\x9b\x9d\b\r\x07\x1b\x7f")


def test_controls_inside_a_message_do_not_break_recognition() -> None:
    paste = ("Traceback (most recent call last):\n  File \"/p/train.py\", line 9, in <module>\n"
             "    model.fit(x, y)\n"
             "ValueError: The custom_gradient \x9b1mdecorator\x9b0m currently supports keywords "
             "arguments only when eager execution is enabled.\r\b")
    explanation = explain(paste)
    assert explanation.rule == "TFI001"
    assert "\x9b" not in render_text(explanation)


def test_a_paste_of_very_many_lines_is_read_at_both_ends_and_says_so() -> None:
    """200,000 frames (a runaway recursion, pasted whole): the outermost and innermost frames
    and the error are read, the middle is not, and the explanation says so."""
    frames = "".join(f'  File "/p/train.py", line {n}, in step\n    step(x)\n'
                     for n in range(1, 200_001))
    paste = f"Traceback (most recent call last):\n{frames}ValueError: boom\n"
    explanation = explain(paste)
    assert explanation.exception is not None and explanation.exception.type == "ValueError"
    assert explanation.user_frame is not None and explanation.user_frame.line == 200_000
    assert any("lines in its middle were not read" in note for note in explanation.notes)
