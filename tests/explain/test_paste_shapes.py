"""The parser on the shapes real users' pastes come in (`bench/real_pastes/`).

Each text is ours: the smallest traceback of the shape, with TensorFlow's own wording where a
message is needed. `test_pastes.py` runs the same shapes over the whole corpus of real output.
"""

from __future__ import annotations

from pathlib import Path

from tf_insight.explain import FrameOrigin, explain
from tf_insight.explain.explanation import Explanation
from tf_insight.explain.parser import exception_line, parse

NUMPY_ATTR = "AttributeError: 'SymbolicTensor' object has no attribute 'numpy'"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/home/ana/train.py", line 9, in <module>\n'
    "    step(x)\n"
    '  File "/home/ana/train.py", line 4, in step\n'
    "    return x.numpy()\n"
    f"{NUMPY_ATTR}\n"
)


def where(explanation: Explanation) -> tuple[str, int] | None:
    frame = explanation.user_frame
    return None if frame is None else (Path(frame.path.replace("\\", "/")).name, frame.line)


def test_frames_without_their_header_are_read() -> None:
    """A paste that starts mid-stack: frames, then the exception."""
    explanation = explain(TRACEBACK.split("\n", 3)[3])
    assert explanation.id == "numpy-on-symbolic-tensor"
    assert where(explanation) == ("train.py", 4)
    assert explanation.confidence == "high"


def test_frames_at_odd_indentation_and_an_indented_exception_line() -> None:
    text = "".join(f"      {line}\n" for line in TRACEBACK.split("\n")[1:])
    explanation = explain(text)
    assert explanation.id == "numpy-on-symbolic-tensor"
    assert where(explanation) == ("train.py", 4)


def test_lost_indentation_keeps_code_lines_with_their_frames() -> None:
    explanation = explain("\n".join(line.lstrip() for line in TRACEBACK.split("\n")))
    assert where(explanation) == ("train.py", 4)
    assert explanation.user_frame is not None and explanation.user_frame.code == "return x.numpy()"


def test_header_glued_to_a_fence_bold_and_a_progress_bar() -> None:
    for text in ("```" + TRACEBACK.rstrip() + "```",
                 TRACEBACK.replace("Traceback (most recent call last):",
                                   "**Traceback (most recent call last):**"),
                 "1/1 [==============================] - 0s 3ms/step" + TRACEBACK):
        explanation = explain(text)
        assert explanation.id == "numpy-on-symbolic-tensor", text
        assert where(explanation) == ("train.py", 4), text


def test_a_message_in_backticks_alone() -> None:
    for text in (f"`{NUMPY_ATTR}`", f"`\n{NUMPY_ATTR}\n`", f"**{NUMPY_ATTR}**"):
        explanation = explain(text)
        assert explanation.exception is not None, text
        assert explanation.exception.message == "'SymbolicTensor' object has no attribute 'numpy'"


def test_a_traceback_flattened_onto_one_quoted_line() -> None:
    explanation = explain("> " + " ".join(line.strip() for line in TRACEBACK.split("\n")))
    assert explanation.id == "numpy-on-symbolic-tensor"
    assert where(explanation) == ("train.py", 4)
    assert explanation.user_frame is not None and explanation.user_frame.code == "return x.numpy()"


def test_an_ipython7_fragment_without_its_header() -> None:
    text = (
        "<ipython-input-7-0123456789ab> in step(x)\n"
        "      3 def step(x):\n"
        "----> 4     return x.numpy()\n"
        "\n"
        f"{NUMPY_ATTR}\n"
    )
    explanation = explain(text)
    assert explanation.id == "numpy-on-symbolic-tensor"
    assert explanation.user_frame is not None
    assert (explanation.user_frame.cell, explanation.user_frame.line) == ("In[7]", 4)


def test_a_sentence_that_looks_like_an_ipython7_frame_is_not_one() -> None:
    parsed = parse("I ran train.py in a loop and got\n" + NUMPY_ATTR)
    (incident,) = parsed.incidents
    assert incident.frames == ()


def test_ipython8_module_level_frames_name_no_function() -> None:
    text = (
        "ImportError                               Traceback (most recent call last)\n"
        "Cell In[1], line 1\n"
        "----> 1 import tensorflow as tf\n"
        "\n"
        "File ~/venv/lib/python3.11/site-packages/tensorflow/__init__.py:40\n"
        "     38 import sys as _sys\n"
        "---> 40 from tensorflow.python import pywrap_tensorflow\n"
        "\n"
        "ImportError: DLL load failed while importing _pywrap_tensorflow_internal\n"
    )
    (incident,) = parse(text).exceptions
    assert [(frame.path[-11:], frame.line) for frame in incident.frames] == [
        ("In[1]", 1), ("__init__.py", 40)]


def test_the_ipython_header_names_the_exception_of_a_cut_traceback() -> None:
    text = (
        "ValueError                                Traceback (most recent call last)\n"
        "Cell In[3], line 2\n"
        "----> 2 model.fit(x)\n"
    )
    (incident,) = parse(text).exceptions
    assert incident.type == "ValueError" and incident.message == ""


def test_tf_2_1_converted_code_frames_are_read() -> None:
    """TF 2.0-2.1: "in converted code:", frames written `path:line function`."""
    text = (
        "ValueError: in converted code:\n"
        "\n"
        "    /home/ana/model.py:12 call  *\n"
        "        y = self.dense(x)\n"
        "    <__array_function__ internals>:6 prod\n"
        "\n"
        "    ValueError: boom\n"
    )
    (incident,) = parse(text).exceptions
    assert incident.wrappers == ("autograph-user-code",)
    assert [(frame.path, frame.line, frame.origin) for frame in incident.frames] == [
        ("/home/ana/model.py", 12, FrameOrigin.USER_CODE),
        ("<__array_function__ internals>", 6, FrameOrigin.USER_CODE)]
    assert incident.message == "boom"


def test_path_line_function_frames_without_their_section_header() -> None:
    text = (
        "    /home/ana/model.py:12 call  *\n"
        "        return np.array(x)\n"
        "    NotImplementedError: Cannot convert a symbolic Tensor (x:0) to a numpy array.\n"
    )
    explanation = explain(text)
    assert explanation.id == "symbolic-tensor-to-numpy"
    assert explanation.user_frame is not None
    assert (explanation.user_frame.line, explanation.user_frame.origin) == (
        12, FrameOrigin.USER_CODE)


def test_a_cut_windows_path_is_no_exception() -> None:
    assert exception_line("D:\\Ana") is None
    assert exception_line("C:/Users/ana/train.py") is None
    assert exception_line("x = compute(y)") is None
    assert exception_line("    ValueError: boom") == ("ValueError", "boom")
    assert exception_line("KeyboardInterrupt") == ("KeyboardInterrupt", "")
    text = TRACEBACK.replace('"/home/ana/train.py", line 4', '"D:\\Ana\\train.py", line 4')
    explanation = explain(text + '  File "D:\\Ana')
    assert explanation.exception is not None and explanation.exception.type == "AttributeError"


def test_a_traceback_in_a_json_string() -> None:
    """VS Code's notebook error export: the output escaped inside JSON strings."""
    text = '{\n\t"name": "AttributeError",\n\t"message": "' + TRACEBACK.replace(
        "\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"\n}'
    explanation = explain(text)
    assert explanation.id == "numpy-on-symbolic-tensor"
    assert where(explanation) == ("train.py", 4)


def test_pytest_error_lines() -> None:
    text = (
        "    def test_step():\n"
        ">       step(x)\n"
        "\n"
        "tests/test_train.py:9: \n"
        f"E       {NUMPY_ATTR}\n"
    )
    assert explain(text).id == "numpy-on-symbolic-tensor"


def test_autograph_prints_its_warnings_without_a_logger_name() -> None:
    text = ("WARNING: AutoGraph could not transform <function f at 0x7f00> and will run it as-is.\n"
            "Cause: mangled names are not yet supported\n")
    (warning,) = parse(text).warnings
    assert warning.qualified_type == "WARNING"
    assert explain(text).id == "autograph-could-not-transform"


def test_tf1_session_summary_line() -> None:
    """TF 1.x repeats the error after the log as `Type (see above for traceback): ...`."""
    (incident,) = parse("ResourceExhaustedError (see above for traceback): OOM when allocating "
                        "tensor with shape[64,512]\n").exceptions
    assert incident.type == "ResourceExhaustedError"
    assert incident.message.startswith("OOM when allocating")
