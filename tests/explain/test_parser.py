"""The parser and `explain` on real captured output and on hostile input.

`data/*.txt` are stderr captures of the scripts in `scripts/` on TF 2.21, made path-neutral
(the scripts' folder is `/home/user/project`, the interpreter's `/opt/venv`); hostile variants
are derived from them.
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

from tf_insight.explain import FrameOrigin, explain
from tf_insight.explain.explanation import Explanation
from tf_insight.explain.model import IncidentKind
from tf_insight.explain.parser import parse
from tf_insight.explain.render import render_text

DATA = Path(__file__).parent / "data"
NOT_A_TRACEBACK = "input was not a traceback"


def captured(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def user_line(explanation: Explanation) -> tuple[str, int]:
    assert explanation.user_frame is not None
    return Path(explanation.user_frame.path.replace("\\", "/")).name, explanation.user_frame.line


# Wrappers --------------------------------------------------------------------------------


def test_keras3_wrapper_is_unwrapped() -> None:
    text = captured("keras3_functional_build.txt")
    assert "\x1b[1m" in text  # Keras 3 prints the message in bold
    (incident,) = parse(text).exceptions
    assert incident.type == "ValueError"
    assert incident.message == (
        "The custom_gradient decorator currently supports keywords arguments only when eager "
        "execution is enabled."
    )
    assert incident.layer is not None
    assert (incident.layer.name, incident.layer.type) == ("masked_identity", "MaskedIdentity")
    assert incident.call_arguments["kwargs"] == "{'mask': 'None'}"
    assert incident.wrappers == ("keras3-call", "keras3-symbolic-build")


def test_tf_keras_wrapper_is_unwrapped() -> None:
    (incident,) = parse(captured("tf_keras_sequential_build.txt")).exceptions
    assert incident.message.startswith("The custom_gradient decorator")
    assert incident.layer is not None
    assert (incident.layer.name, incident.layer.type) == ("training_identity", "TrainingIdentity")
    assert incident.call_arguments == {
        "inputs": "tf.Tensor(shape=(None, 3), dtype=float32)",
        "training": "None",
    }


def test_autograph_user_code_frames_point_at_the_source_line() -> None:
    (incident,) = parse(captured("autograph_numpy_attr.txt")).exceptions
    assert incident.type == "AttributeError"
    assert incident.message == "'SymbolicTensor' object has no attribute 'numpy'"
    user_code = [frame for frame in incident.frames if frame.origin is FrameOrigin.USER_CODE]
    assert [(frame.function, frame.autograph_marker) for frame in user_code] == [("as_numpy", "*")]
    assert user_code[0].code == "return x.numpy() * 2  # @raise: numpy_attr"
    generated = [frame for frame in incident.frames if "__autograph_generated_file" in frame.path]
    assert generated and not any(frame.is_user for frame in generated)
    assert user_line(explain(captured("autograph_numpy_attr.txt"))) == ("graph_errors.py", 30)


def test_autograph_section_around_a_tf_keras_wrapper() -> None:
    """tf-keras inside `fit`: "in user code:" wraps "Exception encountered when calling layer"."""
    (incident,) = parse(captured("tf_keras_nested_unbatched.txt")).exceptions
    assert incident.wrappers == ("autograph-user-code", "tf-keras-call")
    assert incident.layer is not None and incident.layer.type == "Sequential"
    assert incident.message.startswith('Input 0 of layer "dense" is incompatible with the layer')
    assert incident.call_arguments["training"] == "True"
    # every "in user code" frame is Keras's own code here, so the user frame is the fit call
    assert user_line(explain(captured("tf_keras_nested_unbatched.txt"))) == ("keras_errors.py", 56)


def test_defined_here_block() -> None:
    explanation = explain(captured("out_of_scope.txt"))
    assert explanation.id == "out-of-scope-tensor"
    assert explanation.exception is not None
    assert "was defined here" not in explanation.exception.message
    assert explanation.exception.message.endswith("which is out of scope.")
    assert user_line(explanation) == ("graph_errors.py", 56)
    assert explanation.definition_frame is not None
    assert (explanation.definition_frame.function, explanation.definition_frame.line) == (
        "leaky",
        49,
    )


def test_graph_execution_error_points_at_the_op_definition() -> None:
    explanation = explain(captured("graph_execution_reshape.txt"))
    assert explanation.id == "graph-execution-error"
    assert explanation.exception is not None
    assert explanation.exception.type == "InvalidArgumentError"
    assert explanation.exception.message == (
        "Input to reshape is a tensor with 4 values, but the requested shape requires a multiple of 3"
    )
    assert user_line(explanation) == ("graph_errors.py", 121)
    assert explanation.user_frame is not None
    assert explanation.user_frame.origin is FrameOrigin.NODE_DEFINITION


def test_retracing_warning_without_traceback_names_the_function() -> None:
    explanation = explain(captured("retracing_warning.txt"))
    assert explanation.id == "retracing-warning"
    assert explanation.kind == "warning"
    assert explanation.user_frame is None
    assert explanation.summary.startswith("`train_step` was traced again")
    assert "5 of its last 5 calls" in explanation.summary


def test_autograph_warning_names_the_lambda_and_the_reason() -> None:
    explanation = explain(captured("autograph_two_lambdas.txt"))
    assert explanation.id == "autograph-could-not-transform"
    assert "`two_lambdas_on_one_line.<locals>.<lambda>`" in explanation.summary
    assert "found multiple definitions with identical signatures" in explanation.summary


def test_exception_wins_over_warnings_in_the_same_paste() -> None:
    explanation = explain(captured("keras3_unbatched_with_warning.txt"))
    assert explanation.id == "dataset-not-batched"
    assert any("dataset-shuffle-ignored" in note for note in explanation.notes)


# Hostile input ---------------------------------------------------------------------------


def test_empty_input() -> None:
    for text in ("", "\n\n", "   "):
        explanation = explain(text)
        assert explanation.id is None and explanation.exception is None
        assert any(NOT_A_TRACEBACK in note for note in explanation.notes)


def test_plain_text_is_not_a_traceback() -> None:
    explanation = explain("my model trains but the loss is nan after 3 epochs, any idea?")
    assert explanation.id is None and explanation.kind is None
    assert any(NOT_A_TRACEBACK in note for note in explanation.notes)


def test_random_bytes() -> None:
    noise = random.Random(0).randbytes(200_000).decode("utf-8", errors="replace")
    explanation = explain(noise)
    assert explanation.id is None


def test_truncated_in_the_frames() -> None:
    text = captured("tensor_bool.txt")
    cut = text[: text.index("tensorflow.python.framework.errors_impl")]
    explanation = explain(cut)
    assert explanation.id is None
    assert explanation.kind == "exception"
    assert user_line(explanation) == ("graph_errors.py", 15)


def test_truncated_in_the_message_still_matches() -> None:
    text = captured("keras3_functional_build.txt")
    cut = text[: text.index("Arguments received by")]  # the argument block is lost
    explanation = explain(cut)
    assert explanation.id == "custom-gradient-keyword-arguments"
    assert explanation.call_arguments == {}


def test_truncated_after_the_header() -> None:
    explanation = explain("Traceback (most recent call last):\n")
    assert explanation.id is None and explanation.exception is None


def test_two_tracebacks_pasted_together_explains_the_last() -> None:
    text = captured("autograph_numpy_attr.txt") + "\n" + captured("tensor_bool.txt")
    assert parse(text).tracebacks == 2
    explanation = explain(text)
    assert explanation.id == "tensor-as-python-bool"
    assert user_line(explanation) == ("graph_errors.py", 15)
    assert any("1 earlier traceback" in note for note in explanation.notes)


def test_non_tensorflow_traceback_is_said_to_be_plain_python() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/ana/project/prepare.py", line 7, in <module>\n'
        "    main()\n"
        '  File "/home/ana/project/prepare.py", line 4, in main\n'
        "    return 1 / 0\n"
        "           ~~^~~\n"
        "ZeroDivisionError: division by zero\n"
    )
    explanation = explain(text)
    assert explanation.id is None and explanation.rule is None
    assert explanation.exception is not None
    assert (explanation.exception.type, explanation.exception.message) == (
        "ZeroDivisionError",
        "division by zero",
    )
    assert user_line(explanation) == ("prepare.py", 4)
    assert explanation.title == "ZeroDivisionError outside TensorFlow"
    assert "run_functions_eagerly" not in explanation.fix


def test_chained_exceptions_are_linked() -> None:
    parsed = parse(captured("chained_sequential_build.txt"))
    first, last = parsed.exceptions
    assert (first.type, first.chained) == ("TypeError", False)
    assert (last.type, last.chained) == ("ValueError", True)
    explanation = explain(captured("chained_sequential_build.txt"))
    assert explanation.exception is not None
    assert explanation.exception.message.startswith(
        "Layers added to a Sequential model should have"
    )


def test_known_cause_of_a_chained_exception_is_explained() -> None:
    cause = captured("autograph_numpy_attr.txt")
    handler = (
        "\nThe above exception was the direct cause of the following exception:\n\n"
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 20, in <module>\n'
        '    raise RuntimeError("training failed")\n'
        "RuntimeError: training failed\n"
    )
    explanation = explain(cause + handler)
    assert explanation.id == "numpy-on-symbolic-tensor"
    assert any("RuntimeError" in note for note in explanation.notes)


def test_ansi_colours_everywhere() -> None:
    """Python 3.13 colours tracebacks; terminals copied with escapes must still parse."""
    text = captured("tensor_bool.txt")
    coloured = re.sub(
        r'File "([^"]+)", line (\d+)', 'File \x1b[35m"\\1"\x1b[0m, line \x1b[35m\\2\x1b[0m', text
    )
    coloured = coloured.replace(
        "OperatorNotAllowedInGraphError:", "\x1b[1;35mOperatorNotAllowedInGraphError\x1b[0m:"
    )
    explanation = explain(coloured)
    assert explanation.id == "tensor-as-python-bool"
    assert user_line(explanation) == ("graph_errors.py", 15)


def test_escape_bytes_lost_in_copy() -> None:
    text = captured("keras3_functional_build.txt").replace("\x1b", "")
    explanation = explain(text)
    assert explanation.exception is not None
    assert not explanation.exception.message.startswith("[1m")
    assert explanation.id == "custom-gradient-keyword-arguments"


def to_windows(text: str) -> str:
    text = text.replace(
        "/opt/venv/lib/python3.11/site-packages/",
        "C:\\Users\\ana\\proj\\.venv\\Lib\\site-packages\\",
    )
    text = text.replace("/home/user/project/", "C:\\Users\\ana\\proj\\")
    return re.sub(r'(File "[^"]*")', lambda match: match.group(1).replace("/", "\\"), text).replace(
        "\n", "\r\n"
    )


def test_windows_paths_and_line_endings() -> None:
    explanation = explain(to_windows(captured("autograph_numpy_attr.txt")))
    assert explanation.id == "numpy-on-symbolic-tensor"
    assert explanation.user_frame is not None
    assert explanation.user_frame.path == "C:\\Users\\ana\\proj\\graph_errors.py"
    assert explanation.user_frame.line == 30
    library = [frame for frame in explanation.frames if "site-packages" in frame.path]
    assert library and not any(frame.is_user for frame in library)


def test_quoted_traceback_from_an_issue_comment() -> None:
    quoted = "\n".join(f"> {line}" for line in captured("tensor_bool.txt").splitlines())
    explanation = explain(quoted)
    assert explanation.id == "tensor-as-python-bool"
    assert user_line(explanation) == ("graph_errors.py", 15)


def test_jupyter_layout() -> None:
    """IPython's layout, around the real TF 2.21 message of `tensor_bool.txt`."""
    message = captured("tensor_bool.txt").rsplit("OperatorNotAllowedInGraphError: ", 1)[1]
    text = (
        "---------------------------------------------------------------------------\n"
        "OperatorNotAllowedInGraphError            Traceback (most recent call last)\n"
        "Cell In[4], line 2\n"
        "      1 x = tf.constant(1.0)\n"
        "----> 2 positive_only(x)\n"
        "\n"
        "File ~/venv/lib/python3.11/site-packages/tensorflow/python/util/traceback_utils.py:153,"
        " in filter_traceback.<locals>.error_handler(*args, **kwargs)\n"
        "    151 except Exception as e:\n"
        "--> 153   raise e.with_traceback(filtered_tb) from None\n"
        "\n"
        "File ~/work/model.py:15, in positive_only(x)\n"
        "     13 @tf.function(autograph=False)\n"
        "     14 def positive_only(x):\n"
        "---> 15     if x > 0:\n"
        "\n"
        f"OperatorNotAllowedInGraphError: {message}"
    )
    explanation = explain(text)
    assert explanation.id == "tensor-as-python-bool"
    assert explanation.user_frame is not None
    assert (explanation.user_frame.path, explanation.user_frame.line) == ("~/work/model.py", 15)
    assert explanation.user_frame.code == "if x > 0:"
    cell = explanation.frames[0]
    assert (cell.path, cell.line, cell.code, cell.is_user) == ("In[4]", 2, "positive_only(x)", True)


def test_ten_megabyte_paste() -> None:
    """A huge log with the traceback at the end: correct, and fast (timed in bench/)."""
    noise = captured("graph_execution_reshape.txt").split("Traceback")[0]
    filler = (noise * (10_000_000 // len(noise) + 1))[:10_000_000]
    text = filler + captured("autograph_numpy_attr.txt")
    started = time.perf_counter()
    explanation = explain(text)
    elapsed = time.perf_counter() - started
    assert explanation.id == "numpy-on-symbolic-tensor"
    assert elapsed < 10  # generous for loaded CI machines; bench/explain_speed.py measures it


def test_ten_megabyte_message_is_cut() -> None:
    text = captured("tensor_bool.txt") + "x" * 10_000_000
    explanation = explain(text)
    assert explanation.id == "tensor-as-python-bool"
    assert any("cut" in note for note in explanation.notes)


def test_warnings_and_log_noise_are_not_exceptions() -> None:
    parsed = parse(captured("retracing_warning.txt"))
    assert parsed.tracebacks == 0
    assert [incident.kind for incident in parsed.incidents] == [IncidentKind.WARNING] * 2


def test_thousands_of_repeated_tracebacks() -> None:
    text = captured("autograph_numpy_attr.txt") * 3000
    parsed = parse(text)
    assert parsed.tracebacks == 3000
    explanation = explain(text)
    assert explanation.id == "numpy-on-symbolic-tensor"
    assert any("2999 earlier traceback(s)" in note for note in explanation.notes)


def test_traceback_cut_before_its_exception_line_says_so() -> None:
    text = captured("tensor_bool.txt")
    explanation = explain(text[: text.index("tensorflow.python.framework.errors_impl")])
    assert explanation.exception is None
    assert any("ends before its exception line" in note for note in explanation.notes)
    assert "\n\n\n" not in render_text(explanation)
