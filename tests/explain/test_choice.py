"""What `explain` says about a whole paste: which error it explains, old and cut wordings,
no guess without context, and plain words for what it does not know.

The messages are TensorFlow's own templates (read from its sources: 2.21 installed here,
1.14/1.15 from their wheels), filled in by us.
"""

from __future__ import annotations

from pathlib import Path

from tf_insight.explain import explain

PASTES = Path(__file__).parent / "pastes"

CUSTOM_GRADIENT = (
    "Traceback (most recent call last):\n"
    '  File "/home/ana/model.py", line 30, in <module>\n'
    "    model(x)\n"
    "ValueError: The custom_gradient decorator currently supports keywords arguments only when "
    "eager execution is enabled.\n"
)
PRECONDITION = (
    "Traceback (most recent call last):\n"
    '  File "/home/ana/model.py", line 31, in <module>\n'
    "    model.save(path)\n"
    "tensorflow.python.framework.errors_impl.FailedPreconditionError: Could not find variable "
    "dense/kernel. This could mean that the variable has been deleted.\n"
)


def test_a_known_error_above_a_vaguer_last_one_is_explained_and_said_so() -> None:
    explanation = explain(CUSTOM_GRADIENT + "\n" + PRECONDITION)
    assert explanation.id == "custom-gradient-keyword-arguments"
    assert any("FailedPreconditionError" in note and "ValueError at line 1" in note
               for note in explanation.notes), explanation.notes


def test_the_last_of_two_known_errors_is_explained() -> None:
    bool_error = CUSTOM_GRADIENT.replace(
        CUSTOM_GRADIENT.split("\n")[-2],
        "OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not "
        "allowed.")
    assert explain(CUSTOM_GRADIENT + bool_error).id == "tensor-as-python-bool"


def test_the_cause_an_autograph_warning_gives_is_considered() -> None:
    text = ("WARNING:tensorflow:AutoGraph could not transform <bound method L.call of <L>> and "
            "will run it as-is.\n"
            "Cause: The custom_gradient decorator currently supports keywords arguments only when "
            "eager execution is enabled.\n" + PRECONDITION)
    explanation = explain(text)
    assert explanation.id == "custom-gradient-keyword-arguments"
    assert any("AutoGraph warning at line 1" in note for note in explanation.notes)


def test_a_common_failure_after_a_known_warning_is_not_explained_as_the_warning() -> None:
    text = ("WARNING:tensorflow:5 out of the last 5 calls to <function step at 0x7f00> triggered "
            "tf.function retracing.\n"
            "ResourceExhaustedError (see above for traceback): OOM when allocating tensor\n")
    explanation = explain(text)
    assert explanation.id is None
    assert "out of memory" in explanation.title
    assert "retracing-warning" in " ".join(explanation.notes)


def test_tf1_bool_and_iteration_wordings() -> None:
    """TF 1.x raises TypeError for both (`tensorflow/python/framework/ops.py`, 1.14)."""
    bool_error = ("TypeError: Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is "
                  "not None:` instead of `if t:` to test if a tensor is defined, and use "
                  "TensorFlow ops such as tf.cond to execute subgraphs conditioned on the value "
                  "of a tensor.")
    iteration = ("TypeError: Tensor objects are only iterable when eager execution is enabled. "
                 "To iterate over this tensor use tf.map_fn.")
    assert explain(bool_error).id == "tensor-as-python-bool"
    assert explain(iteration).id == "iterating-symbolic-tensor"


def test_tf1_dataset_wordings() -> None:
    """`training_utils.py` of TF 1.15, retyped without the exception class."""
    targets = ("You passed a dataset or dataset iterator (<DatasetV1Adapter shapes: (?, 4), "
               "types: tf.float32>) as input `x` to your model. In that case, you should not "
               "specify a target (`y`) argument, since the dataset or dataset iterator generates "
               "both input data and target data. Received: [0, 1]")
    split = ("ValueError: `validation_split` argument is not supported when input `x` is a "
             "dataset or a dataset iterator. Received: x=<DatasetV1Adapter>, "
             "validation_split=0.200000")
    assert explain(targets).id == "dataset-with-targets"
    assert explain(split).id == "dataset-with-validation-split"


def test_validation_split_with_something_else_than_a_dataset_is_no_dataset_case() -> None:
    found_list = ("ValueError: `validation_split` is only supported for Tensors or NumPy arrays, "
                  "found: ([array([[1, 2]]), 30],)")
    found_dataset = ("ValueError: `validation_split` is only supported for Tensors or NumPy "
                     "arrays, found following types in the input: [<class "
                     "'tensorflow.python.data.ops.prefetch_op._PrefetchDataset'>]")
    assert explain(found_list).id is None
    assert explain(found_dataset).id == "dataset-with-validation-split"


def test_out_of_scope_tensors_are_told_apart_by_the_graph_they_were_defined_in() -> None:
    """TF <= 2.4 raises InaccessibleTensorError for both; the defining FuncGraph tells."""
    template = ("InaccessibleTensorError: The tensor 'Tensor(\"add:0\", shape=(), "
                "dtype=float32)' cannot be accessed here: it is defined in another function or "
                "code block. Use return values, explicit Python locals or TensorFlow collections "
                "to access it. Defined in: FuncGraph(name={}, id=1); accessed from: "
                "FuncGraph(name=train_function, id=2).")
    assert explain(template.format("build_graph")).id == "out-of-scope-tensor"
    assert explain(template.format("while_while_body_55")).id == "inaccessible-tensor"
    assert explain(template.format("cond_1_true_9")).id == "inaccessible-tensor"


def test_the_last_sentence_of_the_out_of_scope_message_alone() -> None:
    """TF 2.21's `func_graph.py` ends the message with where the tensor was defined."""
    leaked = ("The tensor <tf.Tensor 'mul:0' shape=() dtype=float32> cannot be accessed from "
              "here, because it was defined in FuncGraph(name=leaky, id=1), which is out of scope.")
    loop = ("InaccessibleTensorError: The tensor <tf.Tensor 'while/add:0' shape=() "
            "dtype=float32> cannot be accessed from FuncGraph(name=loop, id=1), because it was "
            "defined in FuncGraph(name=while_body_119, id=2), which is out of scope.")
    assert explain(leaked).id == "out-of-scope-tensor"
    assert explain(loop).id == "inaccessible-tensor"


def test_a_symbolic_tensor_to_numpy_without_its_name() -> None:
    explanation = explain("NotImplementedError: Cannot convert a symbolic Tensor to a NumPy array")
    assert explanation.id == "symbolic-tensor-to-numpy"
    assert "$" not in explanation.summary


def test_a_paste_cut_before_the_message_is_known_by_its_last_frames() -> None:
    """Our TF 2.4 output cut before its inner message: NumPy reached `Tensor.__array__`."""
    text = (PASTES / "terminal-tf2.4" / "graph_errors-numpy_convert.txt").read_text()
    explanation = explain(text[:text.index("    NotImplementedError: Cannot convert")])
    assert (explanation.id, explanation.confidence) == ("symbolic-tensor-to-numpy", "low")
    assert explanation.user_frame is not None and explanation.user_frame.line == 35
    cut_name = (
        "NotImplementedError: in user code:\n\n"
        "    /home/ana/data.py:12 decode  *\n"
        "        if np.prod(shape) < 1000:\n"
        "    /venv/lib/site-packages/numpy/core/fromnumeric.py:86 _wrapreduction\n"
        "        return ufunc.reduce(obj, axis, dtype, out, **passkwargs)\n"
        "    /venv/lib/site-packages/tensorflow/python/framework/ops.py:73")
    assert explain(cut_name).id == "symbolic-tensor-to-numpy"
    assert explain(cut_name.replace("numpy/core/fromnumeric.py", "mylib/reduce.py")).id is None


def test_tf_2_0_to_2_8_runtime_errors_of_a_function_graph() -> None:
    """`eager/function.py` and `error_interpolation.py` of TF 1.15/2.x: the node line names
    where the op was defined, `Function call stack:` ends the message."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/ana/train.py", line 30, in <module>\n'
        "    model.fit(x, y)\n"
        "tensorflow.python.framework.errors_impl.InvalidArgumentError:  indices[3,1] = 1000 is "
        "not in [0, 1000)\n"
        "\t [[node model/embedding/embedding_lookup (defined at /home/ana/model.py:12) ]] "
        "[Op:__inference_train_function_1234]\n"
        "\n"
        "Function call stack:\n"
        "train_function\n")
    explanation = explain(text)
    assert (explanation.id, explanation.confidence) == ("graph-execution-error", "low")
    assert explanation.user_frame is not None
    assert (explanation.user_frame.path, explanation.user_frame.line) == ("/home/ana/model.py", 12)
    assert explanation.exception is not None
    assert explanation.exception.message == "indices[3,1] = 1000 is not in [0, 1000)"


def test_int64_conversion_without_a_summary_in_view_is_not_guessed() -> None:
    custom_op = ("ValueError: Tensor conversion requested dtype int64 for Tensor with dtype int32: "
                 "<tf.Tensor 'indices:0' shape=(3,) dtype=int32>")
    step = custom_op.replace("indices:0", "step:0")
    assert explain(custom_op).id is None
    explanation = explain(step)
    assert (explanation.id, explanation.confidence) == ("summary-step-dtype", "low")


def test_keras_step_retracing_names_its_rules_and_tf_2_1_step() -> None:
    explanation = explain(
        "WARNING:tensorflow:5 out of the last 5 calls to <function "
        "_make_execution_function.<locals>.distributed_function at 0x7f00> triggered "
        "tf.function retracing. Tracing is expensive.")
    assert (explanation.id, explanation.rule) == ("keras-step-retracing", "TFI014")


def test_tensorboard_missing_gets_its_pointer_not_graph_advice() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/ana/log.py", line 8, in <module>\n'
        '    tf.summary.scalar("loss", 0.5, step=1)\n'
        '  File "/venv/lib/python3.11/site-packages/tensorflow/python/summary/tb_summary.py", '
        "line 298, in scalar\n"
        "    raise TBNotInstalledError(...)\n"
        "tensorflow.python.summary.tb_summary.TBNotInstalledError: TensorBoard is not installed, "
        "missing implementation for tf.summary.scalar\n"
    )
    explanation = explain(text)
    assert explanation.id is None and explanation.confidence is None
    assert explanation.title.startswith("Unrecognised TBNotInstalledError")
    assert "pip install tensorboard" in explanation.fix
    assert "run_functions_eagerly" not in explanation.fix


def test_common_failures_get_a_one_line_pointer() -> None:
    cases = {
        "tensorflow.python.framework.errors_impl.UnknownError: Failed to get convolution "
        "algorithm. This is probably because cuDNN failed to initialize": "CUDA/cuDNN",
        "ValueError: Shapes (None, 1) and (None, 10) are incompatible": "shapes",
        "ImportError: DLL load failed while importing _pywrap_tensorflow_internal": "install",
    }
    for message, kind in cases.items():
        explanation = explain(message)
        assert explanation.id is None, message
        assert kind in explanation.title, explanation.title
        assert "\n" not in explanation.fix


def test_the_pointer_of_the_error_a_cut_one_was_raised_while_handling() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/python3.11/site-packages/tensorflow/python/pywrap_tensorflow.py", '
        "line 73, in <module>\n"
        "    from tensorflow.python._pywrap_tensorflow_internal import *\n"
        "ImportError: DLL load failed while importing _pywrap_tensorflow_internal\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "ImportError                               Traceback (most recent call last)\n"
        "Cell In[1], line 1\n"
        "----> 1 import tensorflow as tf\n")
    explanation = explain(text)
    assert "installation" in explanation.title
    assert explanation.user_frame is not None and explanation.user_frame.cell == "In[1]"


def test_an_unknown_error_under_tensorflow_keeps_the_graph_advice() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/ana/train.py", line 8, in <module>\n'
        "    model.fit(x)\n"
        '  File "/venv/lib/python3.11/site-packages/keras/src/utils/traceback_utils.py", '
        "line 122, in error_handler\n"
        "    raise e.with_traceback(filtered_tb) from None\n"
        "RuntimeError: something nobody catalogued\n"
    )
    explanation = explain(text)
    assert explanation.title == "Unrecognised RuntimeError"
    assert explanation.cause.startswith("Not in the catalogue.")


def test_findings_only_on_the_frames_lines(tmp_path: Path) -> None:
    """A NumPy call on a tensor (TFI012) two lines above the failing line is not 'there'."""
    source = ("import numpy as np\n"
              "import tensorflow as tf\n\n\n"
              "@tf.function\n"
              "def step(x, config):\n"
              "    total = np.sum(x)\n"
              "    scale = 2\n"
              "    return config['scale'] * scale * total\n")
    (tmp_path / "train.py").write_text(source, encoding="utf-8")
    text = (
        "Traceback (most recent call last):\n"
        f'  File "{tmp_path / "train.py"}", line 9, in step\n'
        "    return config['scale'] * scale * total\n"
        '  File "/venv/lib/python3.11/site-packages/keras/src/utils/traceback_utils.py", '
        "line 122, in error_handler\n"
        "    raise e.with_traceback(filtered_tb) from None\n"
        "KeyError: 'scale'\n"
    )
    assert explain(text, root=tmp_path).findings == ()
    on_the_line = text.replace("line 9, in step", "line 7, in step")
    assert [finding.span.line for finding in explain(on_the_line, root=tmp_path).findings] == [7]
