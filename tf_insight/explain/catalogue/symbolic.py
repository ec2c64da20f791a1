"""Python and NumPy operations applied to symbolic (graph) tensors and Keras tensors."""

from __future__ import annotations

from tf_insight.explain.catalogue import links
from tf_insight.explain.catalogue.entry import Entry, entry

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
    pattern=r"Using a symbolic `tf\.Tensor` as a Python `bool` is not allowed",
    types=("OperatorNotAllowedInGraphError",),
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
    pattern=r"Iterating over a symbolic `tf\.Tensor` is not allowed",
    types=("OperatorNotAllowedInGraphError",),
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
    pattern=r"'SymbolicTensor' object has no attribute 'numpy'",
    types=("AttributeError",),
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

SYMBOLIC_TENSOR_TO_NUMPY = entry(
    "symbolic-tensor-to-numpy",
    title="A symbolic tensor was passed to NumPy",
    rule="TFI012",
    pattern=r"Cannot convert a symbolic (?:tf\.)?Tensor \((?P<tensor>[^)]*)\) to a numpy array",
    types=("NotImplementedError", "TypeError"),
    summary="""
        A graph tensor (`$tensor`) was passed to a NumPy function (`np.array`, `np.sum`, ...)
        while TensorFlow was tracing a graph.
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
    title="A Keras 3 `KerasTensor` was passed to a TensorFlow op",
    rule="TFI015",
    pattern=r"A KerasTensor cannot be used as input to a TensorFlow function",
    types=("ValueError",),
    summary="""
        A raw `tf.*` op was applied to a `KerasTensor` (the output of `keras.Input` or of a layer
        in a functional model).
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

KERAS_OUTPUT_SHAPE_INFERENCE = entry(
    "keras-output-shape-inference",
    title="Keras 3 could not infer a layer's output shape from a symbolic call",
    rule=None,
    pattern=r"",
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
    SYMBOLIC_TENSOR_TO_NUMPY,
    KERAS_TENSOR_TO_TF_FUNCTION,
]

# Matches on Keras's wrapper alone, so it must come after every message-specific entry.
FALLBACKS: list[Entry] = [KERAS_OUTPUT_SHAPE_INFERENCE]
