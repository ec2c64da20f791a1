"""The real-TF cases: which script and case produce which catalogue entry, under which Keras.

Expected lines are marked in the scripts, never hard-coded: `# @raise: NAME` on the line the
explanation must point at, `# @warns: NAME` where a warning is triggered (warnings carry no
user frame), `# @finding: TFI001` where the static analyzer must report the cause.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

SCRIPTS = Path(__file__).parent / "scripts"
MARKER = re.compile(r"#\s*@(?P<kind>raise|warns|finding):\s*(?P<name>[\w-]+)")


@dataclass(frozen=True)
class Case:
    """Run `scripts/<script> <arguments>` under `keras` ("3" or "2") and expect `entry`."""

    script: str
    arguments: tuple[str, ...]
    keras: str
    entry: str
    marker: str  # name in `# @raise: NAME` / `# @warns: NAME`
    message: str  # the unwrapped message must start with this

    @property
    def id(self) -> str:
        return f"{self.entry}[{' '.join(self.arguments) or self.script}/keras{self.keras}]"

    @property
    def path(self) -> Path:
        return SCRIPTS / self.script


def graph(case: str, entry: str, message: str) -> Case:
    return Case("graph_errors.py", (case,), "3", entry, case, message)


def keras(case: str, entry: str, message: str, version: str, marker: str | None = None) -> Case:
    return Case("keras_errors.py", (case,), version, entry, marker or case, message)


CUSTOM_GRADIENT_MESSAGE = (
    "The custom_gradient decorator currently supports keywords arguments only when eager"
)

CASES: list[Case] = [
    # custom_gradient / recompute_grad / remat (TFI001, TFI002)
    Case(
        "custom_gradient.py",
        ("functional_build",),
        "3",
        "custom-gradient-keyword-arguments",
        "functional_build",
        CUSTOM_GRADIENT_MESSAGE,
    ),
    Case(
        "custom_gradient.py",
        ("sequential_fit",),
        "3",
        "custom-gradient-keyword-arguments",
        "sequential_fit",
        CUSTOM_GRADIENT_MESSAGE,
    ),
    Case(
        "custom_gradient.py",
        ("sequential_fit",),
        "2",
        "custom-gradient-keyword-arguments",
        "sequential_build_tfk",
        CUSTOM_GRADIENT_MESSAGE,
    ),
    Case(
        "remat_scope.py",
        (),
        "3",
        "remat-scope-keyword-arguments",
        "remat_scope",
        CUSTOM_GRADIENT_MESSAGE,
    ),
    Case(
        "custom_gradient.py",
        ("recompute_method",),
        "3",
        "recompute-grad-on-method",
        "recompute_method",
        "Failed to convert elements of <RecomputedDense name=recomputed_dense",
    ),
    Case(
        "custom_gradient.py",
        ("recompute_method", "eager"),
        "3",
        "recompute-grad-on-method",
        "recompute_method",
        "Attempt to convert a value (<RecomputedDense name=recomputed_dense",
    ),
    Case(
        "custom_gradient.py",
        ("recompute_method", "eager"),
        "2",
        "recompute-grad-on-method",
        "recompute_method",
        "Attempt to convert a value (<__main__.RecomputedDense object at",
    ),
    # symbolic tensors in Python and NumPy (TFI012, TFI013, TFI015)
    graph(
        "tensor_bool", "tensor-as-python-bool", "Using a symbolic `tf.Tensor` as a Python `bool`"
    ),
    keras(
        "layer_tensor_bool",
        "tensor-as-python-bool",
        "Using a symbolic `tf.Tensor` as a Python `bool`",
        "3",
    ),
    graph(
        "tensor_iter",
        "iterating-symbolic-tensor",
        "Iterating over a symbolic `tf.Tensor` is not allowed",
    ),
    graph(
        "numpy_attr", "numpy-on-symbolic-tensor", "'SymbolicTensor' object has no attribute 'numpy'"
    ),
    graph(
        "numpy_convert",
        "symbolic-tensor-to-numpy",
        "Cannot convert a symbolic tf.Tensor (x:0) to a numpy",
    ),
    keras(
        "keras_tensor", "keras-tensor-to-tf-function", "A KerasTensor cannot be used as input", "3"
    ),
    keras("output_shape", "keras-output-shape-inference", "int() argument must be a string", "3"),
    # variables and escaped tensors (TFI006, TFI008, TFI009)
    graph(
        "singleton_variable",
        "variable-created-per-call",
        "tf.function only supports singleton tf.Variables",
    ),
    graph(
        "nonfirst_variable",
        "variable-created-on-non-first-call",
        "Creating variables on a non-first call",
    ),
    keras(
        "no_trainable_weights",
        "no-trainable-weights",
        "The model does not have any trainable weights",
        "3",
    ),
    graph(
        "out_of_scope",
        "out-of-scope-tensor",
        "<tf.Tensor 'mul:0' shape=() dtype=float32> is out of scope",
    ),
    graph(
        "inaccessible",
        "inaccessible-tensor",
        "<tf.Tensor 'while/add:0' shape=() dtype=float32> is out of",
    ),
    # summaries (TFI005)
    graph(
        "summary_int32",
        "summary-step-dtype",
        "Tensor conversion requested dtype int64 for Tensor with dtype int32",
    ),
    graph("summary_unreachable", "summary-step-unreachable", "Unreachable"),
    # fit arguments, datasets, losses (TFI010, TFI011)
    keras(
        "squeeze",
        "squeeze-sample-weight",
        "Can not squeeze dim[0], expected a dimension of 1, got 4",
        "2",
    ),
    keras(
        "dataset_sample_weight",
        "dataset-with-sample-weight",
        "When providing `x` as a tf.data.Dataset, `sample_weights` should not be passed",
        "3",
    ),
    keras(
        "dataset_sample_weight",
        "dataset-with-sample-weight",
        "`sample_weight` argument is not supported when using dataset as input",
        "2",
    ),
    keras(
        "dataset_y",
        "dataset-with-targets",
        "When providing `x` as a tf.data.Dataset, `y` should not be",
        "3",
    ),
    keras(
        "dataset_y",
        "dataset-with-targets",
        "`y` argument is not supported when using dataset as input",
        "2",
    ),
    keras(
        "dataset_validation_split",
        "dataset-with-validation-split",
        "Argument `validation_split` is only supported for tensors or NumPy arrays",
        "3",
    ),
    keras(
        "dataset_validation_split",
        "dataset-with-validation-split",
        "`validation_split` is only supported for Tensors or NumPy arrays",
        "2",
    ),
    keras("unbatched_dataset", "dataset-not-batched", "Invalid input shape for input Tensor", "3"),
    keras(
        "unbatched_dataset",
        "dataset-not-batched",
        'Input 0 of layer "dense" is incompatible with the layer',
        "2",
    ),
    keras(
        "dataset_shuffle",
        "dataset-shuffle-ignored",
        "`shuffle=True` was passed, but will be ignored",
        "3",
    ),
    keras("no_gradients", "no-gradients-provided", "No gradients provided for any variable.", "3"),
    keras(
        "no_gradients",
        "no-gradients-provided",
        "No gradients provided for any variable: (['dense/kernel:0'",
        "2",
    ),
    # tracing and graph execution (TFI004)
    graph("retracing", "retracing-warning", "5 out of the last 5 calls to <function train_step at"),
    graph(
        "autograph_lambda",
        "autograph-could-not-transform",
        "AutoGraph could not transform <function two_lambdas_on_one_line.<locals>.<lambda> at",
    ),
    graph(
        "run_eagerly_tfdata",
        "run-functions-eagerly-tf-data",
        "Even though the `tf.config.experimental_run_functions_eagerly` option is set",
    ),
    graph(
        "input_signature",
        "input-signature-mismatch",
        "Binding inputs to tf.function failed due to `Can not cast",
    ),
    graph(
        "shape_inference",
        "graph-shape-mismatch",
        "Dimension size must be evenly divisible by 3 but is 4",
    ),
    keras("keras_tensor_numpy", "keras-tensor-to-tf-function", "A KerasTensor is symbolic", "3"),
    keras(
        "keras_tensor_numpy",
        "keras-symbolic-tensor-to-tf",
        "You are passing KerasTensor(type_spec=TensorSpec(shape=(None, 4)",
        "2",
    ),
    keras(
        "predict_new_models",
        "keras-step-retracing",
        "5 out of the last 5 calls to <function TensorFlowTrainer.make_predict_function.",
        "3",
    ),
    keras(
        "predict_new_models",
        "keras-step-retracing",
        "5 out of the last 5 calls to <function Model.make_predict_function.<locals>.",
        "2",
    ),
    graph(
        "invalid_argument",
        "graph-execution-error",
        "Input to reshape is a tensor with 4 values, but the requested shape requires a multiple of 3",
    ),
]

# Errors only an old TensorFlow raises. The suite cannot run them (no old TF here); their real
# output is in the paste corpus (`pastes/terminal-tf2.4/`, made by `pastes/make.py`).
OLD_TF_CASES: list[Case] = [
    Case(
        "old_tensorflow.py",
        ("lstm_numpy",),
        "2",
        "numpy-too-new-for-rnn",
        "lstm_numpy",
        "Cannot convert a symbolic Tensor (lstm/strided_slice:0) to a numpy array",
    ),
]


def markers(path: Path) -> dict[tuple[str, str], int]:
    """(kind, name) -> line number of every `# @kind: name` marker in a script."""
    found: dict[tuple[str, str], int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            found[(match["kind"], match["name"])] = number
    return found


def run_case(case: Case, workdir: Path) -> str:
    """Run the case's script with this interpreter, exactly as a user would; return stderr."""
    environment = {key: value for key, value in os.environ.items() if key != "TF_USE_LEGACY_KERAS"}
    if case.keras == "2":
        environment["TF_USE_LEGACY_KERAS"] = "1"
    completed = subprocess.run(
        [sys.executable, str(case.path), *case.arguments],
        cwd=workdir,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return completed.stderr


def run_all(cases: list[Case], workdir: Path, workers: int = 2) -> dict[Case, str]:
    """stderr of every case; TF startup dominates, so two at a time keeps 2 cores busy."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        outputs = pool.map(lambda case: run_case(case, workdir), cases)
        return dict(zip(cases, outputs, strict=True))
