"""Python and NumPy operations applied to symbolic (graph) tensors and Keras tensors."""

from __future__ import annotations

import re

from tf_insight.explain.catalogue import links
from tf_insight.explain.catalogue.entry import Entry, entry
from tf_insight.explain.model import Incident

_WHERE_NOT_CONVERTED = """
    AutoGraph rewrites `if`/`for`/`while` on tensors into `tf.cond`/`tf.while_loop`, but only in
    code it converts: a `tf.function` body (not with `autograph=False`), functions it calls
    (not ones marked `@tf.autograph.experimental.do_not_convert`), and tf-keras `Layer.call`.
    Keras 3 never converts `Layer.call`, and AutoGraph cannot convert code whose source it
    cannot read. There the tensor reaches Python's own `if`/`for`, which needs a concrete value
    that a graph tensor does not have yet.
"""

TENSOR_AS_PYTHON_BOOL = entry(
    "tensor-as-python-bool",
    title="A symbolic tensor was used as a Python `bool`",
    rule="TFI013",
    # TF <= 2.4: "using a `tf.Tensor` as a Python `bool` is not allowed in Graph execution";
    # TF 1.x (a TypeError): "... is not allowed. Use `if t is not None:` instead of `if t:`"
    pattern=r"[Uu]sing a (?:symbolic )?`tf\.Tensor` as a Python `bool` is not allowed",
    types=("OperatorNotAllowedInGraphError", "TypeError"),
    phrases=(
        r"usinga(?:symbolic)?tf\.tensorasapythonboolisnotallowed",
    ),
    summary="""
        Python needed `True` or `False` from a graph tensor (`if`, `while`, `and`/`or`, `not`,
        `assert`), but while tracing the tensor has no value.
    """,
    cause=_WHERE_NOT_CONVERTED,
    fix="""
        Use tensor ops for data-dependent choices, which work with or without AutoGraph:

        ```python
        x = tf.where(tf.reduce_sum(x) > 0, x, -x)      # element-wise choice
        x = tf.cond(tf.reduce_sum(x) > 0, lambda: x, lambda: -x)  # branch
        tf.debugging.assert_positive(x)                # instead of `assert x > 0`
        ```

        Or let AutoGraph convert the function: drop `autograph=False`/`do_not_convert`.
    """,
    links=(links.AUTOGRAPH_CONTROL_FLOW, links.AUTOGRAPH_LIMITATIONS),
)

ITERATING_SYMBOLIC_TENSOR = entry(
    "iterating-symbolic-tensor",
    title="A symbolic tensor was iterated with a Python `for`",
    rule="TFI013",
    pattern=(
        r"[Ii]terating over (?:a symbolic )?`tf\.Tensor` is not allowed"
        # TF 1.x (a TypeError)
        r"|Tensor objects are only iterable when eager execution is enabled"
    ),
    types=("OperatorNotAllowedInGraphError", "TypeError"),
    phrases=(
        r"iteratingover(?:asymbolic)?tf\.tensorisnotallowed",
        r"tensorobjectsareonlyiterablewheneagerexecutionisenabled",
    ),
    summary="""
        A Python `for` loop (or unpacking, `list(t)`, `zip`) iterated over a graph tensor whose
        length is unknown while tracing.
    """,
    cause=_WHERE_NOT_CONVERTED,
    fix="""
        Iterate with TensorFlow, or vectorise:

        ```python
        total = tf.reduce_sum(x)                       # instead of summing in a loop
        for i in tf.range(tf.shape(x)[0]):             # converted to tf.while_loop by AutoGraph
            ...
        y = tf.map_fn(lambda item: item * 2.0, x)      # per-element function
        ```
    """,
    links=(links.AUTOGRAPH_CONTROL_FLOW, links.AUTOGRAPH_LIMITATIONS),
)

NUMPY_ON_SYMBOLIC_TENSOR = entry(
    "numpy-on-symbolic-tensor",
    title="`.numpy()` called on a symbolic tensor",
    rule="TFI012",
    pattern=r"'(?:Symbolic)?Tensor' object has no attribute 'numpy'",  # 'Tensor': TF < 2.13
    types=("AttributeError",),
    phrases=(
        r"(?:symbolic)?tensorobjecthasnoattributenumpy",
    ),
    summary="""
        `.numpy()` was called on a tensor inside a graph (a `tf.function`, `fit`, `Dataset.map`),
        where tensors are symbolic and have no value to return.
    """,
    cause="""
        Inside a graph the code runs once to *trace* the computation; tensors are placeholders
        (`SymbolicTensor`) and only `EagerTensor`s outside graphs have `.numpy()`. Keras runs
        `call`, `train_step` and losses as graphs unless `run_eagerly=True`.
    """,
    fix="""
        Stay in TensorFlow ops inside the graph, and convert only results outside it:

        ```python
        @tf.function
        def step(x):
            return x * 2          # not x.numpy() * 2

        result = step(x).numpy()  # outside the function
        ```

        For debugging only: `tf.print(x)` prints values at run time inside the graph.
    """,
    links=(links.FUNCTION_GUIDE, links.DEBUGGING),
)

_NUMPY_CALL = re.compile(r"\b(?:np|numpy|onp)\.|\.numpy\(|__array__")


def _no_numpy_call_of_yours(incident: Incident) -> bool:
    return not any(
        frame.is_user and _NUMPY_CALL.search(frame.code or "") for frame in incident.frames
    )


NUMPY_TOO_NEW_FOR_RNN = entry(
    "numpy-too-new-for-rnn",
    title="NumPy >= 1.20 with TensorFlow <= 2.4: Keras RNN layers cannot be built",
    rule=None,
    # TF <= 2.4 builds an RNN's initial state with `np.prod` on a symbolic shape tensor.
    pattern=(
        r"Cannot convert a symbolic (?:tf\.)?Tensor \((?P<tensor>[^)\n]*"
        r"(?:lstm|gru|rnn|recurrent)[^)\n]*strided_slice[^)\n]*)\) to a numpy array"
    ),
    types=("NotImplementedError",),
    phrases=(r"cannotconvertasymbolic(?:tf\.)?tensor\([^)]*(?:lstm|gru|rnn|recurrent)[^)]*strided_slice",),
    when=_no_numpy_call_of_yours,
    summary="""
        Building a Keras recurrent layer failed on `$tensor`, a tensor Keras itself made: no
        NumPy call of yours is involved. This is the known incompatibility of TensorFlow 2.4
        and older with NumPy 1.20 and newer.
    """,
    cause="""
        To create an RNN's zero initial state, TensorFlow <= 2.4 calls `np.prod` on the batch
        size taken from the input's shape (`strided_slice`). NumPy 1.20 started converting
        such arguments with `__array__`, which symbolic tensors refuse. Your model code is
        fine; the installed versions do not fit together.
    """,
    fix="""
        Install versions that fit: a newer TensorFlow, or a NumPy older than 1.20 for an old
        TensorFlow:

        ```bash
        pip install --upgrade "tensorflow>=2.5"
        # or, to stay on TensorFlow <= 2.4:
        pip install "numpy<1.20"
        ```
    """,
    links=(links.TF_PIP,),
)

# TensorFlow's `Tensor.__array__` (`framework/ops.py`, `framework/tensor.py` since 2.13), which
# raises this error, entered from a NumPy function.
_TENSOR_ARRAY = re.compile(r"tensorflow(?:_core)?[\\/]python[\\/]framework[\\/](?:ops|tensor)\.py$")
_NUMPY_FRAME = re.compile(r"[\\/]numpy[\\/]|^<__array_function__ internals>$")


def _numpy_into_tensor_array(incident: Incident) -> bool:
    """The innermost frame is TensorFlow's `__array__`, or a frame of its file cut before the
    function's name and called from NumPy."""
    *outer, last = incident.frames
    return _TENSOR_ARRAY.search(last.path) is not None and (
        last.function == "__array__"
        or (not last.function and any(_NUMPY_FRAME.search(frame.path) for frame in outer[-3:])))


SYMBOLIC_TENSOR_TO_NUMPY = entry(
    "symbolic-tensor-to-numpy",
    title="A symbolic tensor was passed to NumPy",
    rule="TFI012",
    pattern=r"Cannot convert a symbolic (?:tf\.)?Tensor \((?P<tensor>[^)]*)\) to a numpy array",
    types=("NotImplementedError", "TypeError"),
    # retyped or cut: without the tensor's name, "NumPy"
    phrases=(
        r"cannotconvertasymbolic(?:tf\.)?tensor(?:\(|toanumpyarray)",
    ),
    defaults={"tensor": "its name is not in the paste"},
    stack=_numpy_into_tensor_array,
    summary="""
        A NumPy function (`np.array`, `np.sum`, ...) was given a graph tensor ($tensor) while
        TensorFlow was tracing a graph.
    """,
    cause="""
        NumPy needs concrete values, but during tracing tensors are symbolic: their values exist
        only when the graph runs. NumPy code in a `tf.function`, a Keras `call`/loss or a
        `Dataset.map` function runs once at trace time, never per step.
    """,
    fix="""
        Replace NumPy calls with their TensorFlow equivalents (or `keras.ops` in Keras 3):

        ```python
        @tf.function
        def total(x):
            return tf.reduce_sum(x)        # not np.sum(np.array(x))
        ```

        If a NumPy-only routine is unavoidable, wrap it:
        `tf.numpy_function(my_numpy_fn, [x], tf.float32)` (runs eagerly, not differentiable).
    """,
    links=(links.FUNCTION_GUIDE,),
)

KERAS_TENSOR_TO_TF_FUNCTION = entry(
    "keras-tensor-to-tf-function",
    title="A Keras 3 `KerasTensor` was passed to a TensorFlow op or NumPy",
    rule="TFI015",
    pattern=(
        r"A KerasTensor cannot be used as input to a TensorFlow function"
        r"|A KerasTensor is symbolic: it's a placeholder for a shape an(?:d)? a dtype"
    ),
    types=("ValueError",),
    phrases=(
        r"akerastensorcannotbeusedasinputtoatensorflowfunction",
        r"akerastensorissymbolic:itsaplaceholderforashapeand?adtype",
        r"whatyoushoulddoinsteadiswraptf_fninalayer:",  # the end of the same message
    ),
    summary="""
        A raw `tf.*` op or a NumPy conversion was applied to a `KerasTensor` (the output of
        `keras.Input` or of a layer in a functional model).
    """,
    cause="""
        In the functional API, `keras.Input` and layer outputs are `KerasTensor`s: symbolic
        placeholders that record a shape and dtype so Keras can build the model graph. Keras 3
        does not wrap raw TensorFlow ops into layers (tf-keras did, as `TFOpLambda`), so
        TensorFlow cannot consume them.
    """,
    fix="""
        Use `keras.ops`, or wrap the TensorFlow code in a layer:

        ```python
        inputs = keras.Input((4,))
        total = keras.ops.sum(inputs, axis=-1)           # instead of tf.reduce_sum(inputs, -1)

        class ReduceSum(keras.layers.Layer):
            def call(self, x):
                return tf.reduce_sum(x, axis=-1)
        total = ReduceSum()(inputs)
        ```
    """,
    links=(links.KERAS_FUNCTIONAL,),
)

KERAS_SYMBOLIC_TENSOR_TO_TF = entry(
    "keras-symbolic-tensor-to-tf",
    title="A tf-keras symbolic tensor was passed to a TensorFlow op or NumPy",
    rule="TFI015",
    also_rules=("TFI012",),
    pattern=(
        r"Inputs to eager execution function cannot be Keras symbolic tensors"  # TF 2.0-2.3
        r"|Cannot convert a symbolic Keras input/output to a numpy array"
        r"|Keras symbolic inputs/outputs do not implement `(?P<attribute>\w+)`"
        r"|an intermediate (?:TF-)?Keras symbolic input/output, to a TF API that does not allow"
    ),
    types=("_SymbolicException", "TypeError", "ValueError"),
    phrases=(
        r"inputstoeagerexecutionfunctioncannotbekerassymbolictensors",
        r"cannotconvertasymbolickerasinput/outputtoanumpyarray",
        r"kerassymbolicinputs/outputsdonotimplement",
        r"anintermediate(?:tf-)?kerassymbolicinput/output,toatfapithatdoesnotallow",
    ),
    summary="""
        A symbolic input or output of a functional tf-keras model (a placeholder with no value)
        reached code that needs a real tensor: a TensorFlow op that Keras does not wrap into a
        layer, a NumPy call, or a loss or metric computed outside the model.
    """,
    cause="""
        In the functional API, `Input(...)` and layer outputs are Keras symbolic tensors. Keras
        turns most TensorFlow ops on them into layers automatically, but not every API
        (ops without dispatch support, NumPy, Python `len`/`assert`), and they cannot be used
        after the model is built, for example in a loss closed over a layer's output.
    """,
    fix="""
        Put such code in a layer, so it runs on real tensors when the model is called:

        ```python
        class Normalise(tf.keras.layers.Layer):
            def call(self, x):
                return x / tf.norm(x, axis=-1, keepdims=True)

        outputs = Normalise()(inputs)
        ```

        For a loss that needs intermediate outputs, call `self.add_loss(...)` inside a layer's
        `call`, or compute it in a custom `train_step`.
    """,
    links=(links.KERAS_FUNCTIONAL, links.KERAS_CUSTOM_LAYERS),
)

KERAS_OUTPUT_SHAPE_INFERENCE = entry(
    "keras-output-shape-inference",
    title="Keras 3 could not infer a layer's output shape from a symbolic call",
    rule=None,
    pattern=r"",
    generic=True,
    when=lambda incident: "keras3-symbolic-build" in incident.wrappers,
    summary="""
        Building the functional model, Keras 3 called `$layer_type.call()` on symbolic
        `KerasTensor`s (batch size `None`) to infer its output shape, and `call` raised
        `$type`.
    """,
    cause="""
        The functional API runs `call` once symbolically at construction time. Python code that
        needs concrete values fails there: `int(x.shape[0])` (the batch size is `None`),
        NumPy calls, `if` on tensors (Keras 3 does not AutoGraph-convert `call`), `.numpy()`.
        Keras wraps the error in "Could not automatically infer the output shape / dtype"; the
        message below the wrapper is the real error.
    """,
    fix="""
        Make `call` work when the batch size is unknown: let ops infer it (`-1`) or read it
        dynamically with `keras.ops.shape(x)[0]`, and use static sizes only for the other axes:

        ```python
        class BatchSized(keras.layers.Layer):
            def call(self, inputs):
                return keras.ops.reshape(inputs, (-1, inputs.shape[-1]))  # not int(inputs.shape[0])
        ```

        If inference still fails, declare the result with `compute_output_shape`.
    """,
    links=(links.KERAS_CUSTOM_LAYERS, links.KERAS_FUNCTIONAL),
)

ENTRIES: list[Entry] = [
    TENSOR_AS_PYTHON_BOOL,
    ITERATING_SYMBOLIC_TENSOR,
    NUMPY_ON_SYMBOLIC_TENSOR,
    NUMPY_TOO_NEW_FOR_RNN,  # before the general message it shares
    SYMBOLIC_TENSOR_TO_NUMPY,
    KERAS_TENSOR_TO_TF_FUNCTION,
    KERAS_SYMBOLIC_TENSOR_TO_TF,
]

# Matches on Keras's wrapper alone, so it must come after every message-specific entry.
FALLBACKS: list[Entry] = [KERAS_OUTPUT_SHAPE_INFERENCE]
