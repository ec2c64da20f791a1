"""Tracing and graph execution: retracing, AutoGraph, signatures, shapes, runtime op errors."""

from __future__ import annotations

import re

from tf_insight.explain.catalogue import links
from tf_insight.explain.catalogue.entry import Entry, entry, squash
from tf_insight.explain.model import Incident, IncidentKind

_RETRACING = (
    r"(?P<count>\d+) out of the last (?P<total>\d+) calls to <(?:function|bound method)"
    r" (?P<function>\S+)(?: at 0x[0-9a-fA-F]+| of <[^\n]{0,500}?>)> triggered tf\.function"
    r" retracing"
)
_RETRACING_PHRASE = r"\d+outofthelast\d+callsto<.{1,500}?>triggeredtf\.functionretracing"
# The functions Keras (2 and 3) wraps its own steps in: `Model.make_predict_function.<locals>.
# predict_function`, `TensorFlowTrainer.make_train_function.<locals>.one_step_on_iterator`,
# TF 2.0-2.1's `_make_execution_function.<locals>.distributed_function`...
_KERAS_STEP = r"make_(?:predict|train|test|execution)_function"

KERAS_STEP_RETRACING = entry(
    "keras-step-retracing",
    title="Keras retraces its own predict/train step: a model or `predict` call in a loop",
    # a step function made anew per model/compile (TFI014), or called with new inputs (TFI004)
    rule="TFI014",
    also_rules=("TFI004",),
    pattern=_RETRACING,
    kind=IncidentKind.WARNING,
    types=("WARNING",),
    phrases=(_RETRACING_PHRASE,),
    when=lambda incident: re.search(_KERAS_STEP, squash(incident.message)) is not None,
    summary="""
        The function retraced ($count of the last $total calls) is Keras's own step,
        `$function`, not one of yours. Keras builds it once per model; it is traced again
        when models are created repeatedly, or when `predict`/`fit`/`evaluate` is called many
        times with inputs of new shapes.
    """,
    cause="""
        Typical causes: calling `model.predict(x)` inside a loop on single samples or on
        batches of changing size (each new shape is a new trace), or building a new model
        (or calling `compile`) inside a loop, which makes a new step function each time.
        Your own `tf.function` arguments are not involved.
    """,
    fix="""
        For many small inputs, call the model directly instead of `predict`; build the model
        once, outside the loop, and keep input shapes fixed:

        ```python
        model = build_model()                  # once, not per iteration
        for batch in batches:
            outputs = model(batch, training=False)   # instead of model.predict(batch)
        ```

        When models must be rebuilt in a loop, free the old ones with
        `keras.backend.clear_session()`.
    """,
    links=(links.RETRACING, links.KERAS_PREDICT),
)

RETRACING_WARNING = entry(
    "retracing-warning",
    title="`tf.function` retracing on most calls",
    rule="TFI004",
    also_rules=("TFI014", "TFI016"),
    pattern=_RETRACING,
    kind=IncidentKind.WARNING,
    types=("WARNING",),
    phrases=(_RETRACING_PHRASE,),
    summary="""
        `$function` was traced again (a new graph built) on $count of its last $total calls.
        Each trace runs the Python body again, which is slow and grows memory.
    """,
    cause="""
        A `tf.function` reuses a graph only when the new call matches an earlier signature.
        Three common reasons it does not: (1) the `tf.function` object itself is created again
        in a loop or per call (TFI014), so it has no cache; (2) Python scalars as arguments
        (`f(step)` with `step` from `range`), each distinct value is a new signature (TFI004);
        (3) tensors whose shapes keep changing, including `SparseTensor`s with a varying
        `dense_shape` (TFI016).
    """,
    fix="""
        Pass tensors instead of Python numbers, create the function once, and relax shapes:

        ```python
        @tf.function(reduce_retracing=True)   # or input_signature=[tf.TensorSpec([None], tf.float32)]
        def $function_name(x):
            ...

        for step in range(100):
            $function_name(tf.constant(step, tf.int64))   # not $function_name(step)
        ```

        Check with `$function_name.experimental_get_tracing_count()`.
    """,
    links=(links.RETRACING,),
)

AUTOGRAPH_COULD_NOT_TRANSFORM = entry(
    "autograph-could-not-transform",
    title="AutoGraph could not convert a function and ran it as plain Python",
    rule=None,
    pattern=(
        # TF 2.0-2.2: "Entity <function f at 0x...> could not be transformed and will be
        # executed as-is."; methods print as `<bound method Layer.call of <...>>`.
        r"(?:AutoGraph could not transform|Entity) <(?:function|bound method)"
        r" (?P<function>\S+)(?: at 0x[0-9a-fA-F]+| of <[^\n]{0,500}?>)>"
        r" (?:and will run it as-is|could not be transformed and will be executed as-is)"
        r"\.(?:[^\n]*\n){0,3}?\s*(?:Cause: (?P<reason>[^\n]*))?"
    ),
    kind=IncidentKind.WARNING,
    types=("WARNING",),
    phrases=(
        r"autographcouldnottransform<.{1,500}?>andwillrunitas-is",
        r"entity<.{1,500}?>couldnotbetransformedandwillbeexecutedas-is",
    ),
    defaults={"reason": "see the warning text"},
    summary="""
        AutoGraph gave up converting `$function` and traced it unconverted: Python `if`/`for`
        on tensors inside it will not become graph control flow. Reason: $reason
    """,
    cause="""
        AutoGraph converts a function by re-parsing its source code. It cannot when the source
        is unavailable (defined in `exec`, a REPL, or shipped as `.pyc` only) or ambiguous:
        several lambdas with the same signature on one source line (typical in chained
        `dataset.map(lambda x: ...).map(lambda x: ...)`) cannot be told apart. The function
        still runs, but only as traced Python.
    """,
    fix="""
        Give the function its own definition (or a distinct lambda per line):

        ```python
        def double(x):
            return x * 2

        def add_one(x):
            return x + 1

        dataset = tf.data.Dataset.range(3).map(double).map(add_one)
        ```

        If it needs no conversion, mark it `@tf.autograph.experimental.do_not_convert` to
        silence the warning.
    """,
    links=(links.AUTOGRAPH_LIMITATIONS,),
)

RUN_FUNCTIONS_EAGERLY_TF_DATA = entry(
    "run-functions-eagerly-tf-data",
    title="`run_functions_eagerly(True)` does not apply to `tf.data` functions",
    rule=None,
    pattern=r"this option does not apply to tf\.data functions",
    kind=IncidentKind.WARNING,
    types=("UserWarning",),
    phrases=(
        r"thisoptiondoesnotapplytotf\.datafunctions",
    ),
    summary="""
        `tf.config.run_functions_eagerly(True)` is on, but functions passed to
        `Dataset.map/filter/...` still run as graphs.
    """,
    cause="""
        `tf.data` always traces its functions into graphs that run inside the input pipeline
        (possibly on other threads), regardless of the eager setting. Breakpoints, `print` and
        `.numpy()` in a `map` function therefore behave as in graph mode even while debugging.
    """,
    fix="""
        Turn on the tf.data debug mode as well while debugging:

        ```python
        tf.config.run_functions_eagerly(True)
        tf.data.experimental.enable_debug_mode()   # before building the datasets
        ```
    """,
    links=(links.TF_DATA_DEBUG,),
)

INPUT_SIGNATURE_MISMATCH = entry(
    "input-signature-mismatch",
    title="Arguments do not match the `tf.function`'s `input_signature`",
    rule=None,
    pattern=(
        r"Binding inputs to tf\.function failed due to `(?P<reason>[^`\n]*)`"
        # TF <= 2.12
        r"|Python inputs incompatible with input_signature"
        r"|Structure of Python function inputs does not match input_signature"
        r"|When input_signature is provided, all inputs to the Python function must be"
    ),
    defaults={"reason": "see the message"},
    types=("TypeError", "ValueError"),
    phrases=(
        r"bindinginputstotf\.functionfaileddueto",
        r"pythoninputsincompatiblewithinput_signature",
        r"structureofpythonfunctioninputsdoesnotmatchinput_signature",
    ),
    summary="The call does not fit the function's declared `input_signature`: $reason.",
    cause="""
        With `input_signature`, a `tf.function` has exactly one graph and never retraces, so
        every call must match the declared `TensorSpec`s: same dtype (no implicit casts, e.g.
        int32 to float32), compatible shape, same number of arguments.
    """,
    fix="""
        Convert the arguments to the declared spec, or widen the spec:

        ```python
        scale(tf.constant([1, 2, 3], dtype=tf.float32))        # or tf.cast(x, tf.float32)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def scale(x):
            ...
        ```
    """,
    links=(links.INPUT_SIGNATURE,),
)

GRAPH_SHAPE_MISMATCH = entry(
    "graph-shape-mismatch",
    title="An op's shapes are incompatible while tracing",
    rule=None,
    pattern=r"for '\{\{node (?P<node>[^}]+)\}\} = (?P<op>\w+)\[[^\n]*with input shapes: ",
    types=("ValueError",),
    phrases=(
        r"for\{\{node[^}]{1,500}\}\}=\w+\[.{0,2000}?withinputshapes:",
    ),
    summary="""
        While tracing the graph, TensorFlow's shape inference found that op `$op` (node
        `$node`) cannot accept the shapes it was given.
    """,
    cause="""
        Graph construction checks static shapes as ops are added. The shapes in the message are
        those known at trace time (`?`/`None` for unknown dimensions): fixed sizes come from
        the first call's inputs or from `input_signature`. The same code may succeed eagerly
        with other data, or fail only once `fit` traces with `None` batch size.
    """,
    fix="""
        Make the shapes agree, using dynamic shapes for sizes known only at run time:

        ```python
        rows = tf.shape(x)[0] * tf.shape(x)[1] // 3
        y = tf.reshape(x, [rows, 3])          # instead of constants that must divide exactly
        ```

        Run the function eagerly on a sample input to see the concrete shapes.
    """,
    links=(links.FUNCTION_GUIDE,),
)


def _graph_execution(incident: Incident) -> bool:
    return "graph-execution" in incident.wrappers


GRAPH_EXECUTION_ERROR = entry(
    "graph-execution-error",
    title="An op failed while the graph was running",
    rule=None,
    pattern=r"",
    generic=True,
    when=_graph_execution,
    summary="""
        `$type` while a traced graph ran: the op created at the line shown below failed on the
        actual values of this step.
    """,
    cause="""
        In a `tf.function` (and in `fit`), Python runs once to build the graph; the ops run
        later, so the Python traceback shows only the call into the graph. TensorFlow
        reconstructs where the failing op was *defined* ("Detected at node ... defined at"):
        that line is where to look. The values causing it (shapes, indices, NaN checks) are
        known only at run time, which is why tracing succeeded.
    """,
    fix="""
        Reproduce with eager execution to get a normal Python traceback at the failing op:

        ```python
        tf.config.run_functions_eagerly(True)   # or model.compile(..., run_eagerly=True)
        ```

        Then guard the values: `tf.debugging.assert_equal(tf.size(x) % 3, 0)`,
        `tf.ensure_shape(x, [None, 3])`, or fix the data that reaches the op.
    """,
    links=(links.DEBUGGING,),
)

ENTRIES: list[Entry] = [
    KERAS_STEP_RETRACING,  # before the general warning it shares
    RETRACING_WARNING,
    AUTOGRAPH_COULD_NOT_TRANSFORM,
    RUN_FUNCTIONS_EAGERLY_TF_DATA,
    INPUT_SIGNATURE_MISMATCH,
    GRAPH_SHAPE_MISMATCH,
]

# Match on the "Graph execution error" wrapper alone: after every message-specific entry.
FALLBACKS: list[Entry] = [GRAPH_EXECUTION_ERROR]
