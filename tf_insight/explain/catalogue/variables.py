"""Variables created in the wrong place and graph tensors that escaped their graph."""

from __future__ import annotations

import re

from tf_insight.explain.catalogue import links
from tf_insight.explain.catalogue.entry import Entry, Locate, entry
from tf_insight.explain.model import Incident, IncidentKind

VARIABLE_CREATED_PER_CALL = entry(
    "variable-created-per-call",
    title="`tf.Variable` created inside a `tf.function` on every call",
    rule="TFI008",
    pattern=(
        r"tf\.function only supports singleton tf\.Variables created on the first call"
        r"|tf\.function-decorated function tried to create variables on non-first call"  # <= 2.4
    ),
    types=("ValueError",),
    phrases=(
        r"tf\.functiononlysupportssingletontf\.variablescreatedonthefirstcall",
        r"tf\.function-decoratedfunctiontriedtocreatevariablesonnon-firstcall",
    ),
    summary="""
        A `tf.Variable(...)` is created in the body of a `tf.function` (or in a Keras `call`)
        each time it runs. The first trace already fails.
    """,
    cause="""
        A traced function becomes a graph that is reused for every call, but a variable is
        state that must exist exactly once. TF traces twice to check that variables are created
        only on the first call; code that creates one unconditionally would make a new variable
        per call in eager mode, so `tf.function` rejects it.
    """,
    fix="""
        Create the variable once, outside the function or behind a guard:

        ```python
        class Scaler(tf.Module):
            def __init__(self):
                self.scale = tf.Variable(1.0)   # once, at construction

            @tf.function
            def __call__(self, x):
                return self.scale * x
        ```

        In a Keras layer use `self.add_weight(...)` in `__init__` or `build`.
    """,
    links=(links.FUNCTION_VARIABLES,),
)

VARIABLE_CREATED_ON_NON_FIRST_CALL = entry(
    "variable-created-on-non-first-call",
    title="A retrace of a `tf.function` created a new variable",
    rule="TFI008",
    pattern=r"Creating variables on a non-first call to a function decorated with tf\.function",
    types=("ValueError",),
    phrases=(
        r"creatingvariablesonanon-firstcalltoafunctiondecoratedwithtf\.function",
    ),
    summary="""
        A `tf.function` created no variable on its first call but did on a later one that was
        traced anew (new input shape, dtype or Python argument).
    """,
    cause="""
        `tf.function` allows variable creation only while tracing its first call. A later
        retrace that creates variables (a lazily built layer or optimizer, a `tf.Variable` behind
        a Python condition that depends on the input) would leave the earlier graphs without
        them.
    """,
    fix="""
        Create every variable before the function runs with other inputs, e.g. build the layer
        or optimizer up front:

        ```python
        layer = keras.layers.Dense(4)
        layer.build((None, 8))                         # variables exist now
        optimizer.build(model.trainable_variables)     # same for optimizer slots

        @tf.function
        def step(x):
            return layer(x)
        ```
    """,
    links=(links.FUNCTION_VARIABLES,),
)

NO_TRAINABLE_WEIGHTS = entry(
    "no-trainable-weights",
    title="The model has no trainable weights (raw `tf.Variable`s are not tracked by Keras 3)",
    rule="TFI009",
    pattern=r"The model does not have any trainable weights",
    kind=IncidentKind.WARNING,
    types=("UserWarning",),
    phrases=(
        r"themodeldoesnothaveanytrainableweights",
    ),
    summary="""
        Keras 3 found no trainable weight in the model, so `fit` will not change anything.
    """,
    cause="""
        Keras 3 tracks only weights created with `add_weight` (or `keras.Variable`). A raw
        `tf.Variable` stored on a layer (as an attribute, in a list or dict) is invisible to it:
        not trained, not saved. tf-keras tracked such variables, so code ported from Keras 2
        silently stops learning.
    """,
    fix="""
        Create weights with `add_weight`:

        ```python
        class Scales(keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.scales = [self.add_weight(shape=(), initializer="ones") for _ in range(3)]
        ```
    """,
    links=(links.KERAS_CUSTOM_LAYERS,),
)

# The graph a tensor was made in, as TF names it: "because it was defined in
# FuncGraph(name=while_body_119, ...)" (TF 2.5+), "Defined in: FuncGraph(name=f, ...)" (<= 2.4).
_DEFINED_IN = re.compile(r"(?:it was defined in|Defined in:) FuncGraph\(name=(?P<graph>[^,)\s]+)")
# The graphs AutoGraph makes of loop bodies and branches (`tf.while_loop`, `tf.cond`,
# `tf.switch_case`); any other FuncGraph is a function's own.
# Scopes prefix them: `while_body_119`, `while_1_body_7`, `while_while_body_55` (a loop in a
# loop), `cond_true_172`, `cond_1_false_9`, `switch_case_indexed_case_branch0_4`.
_CONTROL_FLOW_GRAPH = re.compile(
    r"(?:^|_)(?:while(?:_\d+)?_(?:body|cond)|cond(?:_\d+)?_(?:true|false)|branch\d+)_\d+$")
_OUT_OF_SCOPE = (
    r"is out of scope and cannot be used here"
    r"|cannot be accessed from (?:here|FuncGraph\(name=[^\n]*?\)), because it was defined in"
    r" FuncGraph\([^\n]*?\), which is out of scope"
    r"|cannot be accessed here: it is defined in another function or code block"  # <= 2.4
)
_OUT_OF_SCOPE_PHRASES = (
    r"isoutofscopeandcannotbeusedhere",
    r"cannotbeaccessedfrom(?:here|funcgraph\(.{0,300}?\)),becauseitwasdefinedinfuncgraph",
    r"cannotbeaccessedhere:itisdefinedinanotherfunctionorcodeblock",
)


def _defining_graph(incident: Incident) -> str | None:
    found = _DEFINED_IN.search(incident.message)
    return found["graph"] if found else None


def _leaked_from_a_function(incident: Incident) -> bool:
    """A tensor that TensorFlow says was defined in a function's graph, not in a loop body
    or branch; without that name, a TypeError (the tensor was used eagerly or by another
    function) rather than an InaccessibleTensorError (used outside its loop or branch)."""
    graph = _defining_graph(incident)
    if graph is not None:
        return _CONTROL_FLOW_GRAPH.search(graph) is None
    return incident.type != "InaccessibleTensorError"


OUT_OF_SCOPE_TENSOR = entry(
    "out-of-scope-tensor",
    title="A graph tensor leaked out of its `tf.function`",
    rule="TFI006",
    pattern=(
        _OUT_OF_SCOPE
        + r"|An op outside of the function building code is being passed\s+a \"Graph\" tensor"
    ),
    types=("TypeError", "InaccessibleTensorError"),
    when=_leaked_from_a_function,
    phrases=(
        *_OUT_OF_SCOPE_PHRASES,
        r"anopoutsideofthefunctionbuildingcodeisbeingpassedagraphtensor",
    ),
    summary="""
        A tensor created while tracing a `tf.function` was kept outside it (in a list, a global,
        an attribute) and then used after the function returned.
    """,
    cause="""
        Tensors made during tracing belong to that function's graph (`FuncGraph`); they are
        symbolic and only valid inside it. Stashing one via a Python side effect (`append`,
        assignment to an outer variable) runs once, at trace time, and leaves a dead symbolic
        tensor behind. Only return values leave a `tf.function`.
    """,
    fix="""
        Return what you need instead of storing it:

        ```python
        @tf.function
        def step(x):
            y = x * 2.0
            return x, y            # not: leaked.append(y)

        x, y = step(tf.constant(1.0))
        ```

        For values collected over steps use a `tf.Variable` (`.assign`) or `tf.TensorArray`.
    """,
    links=(links.FUNCTION_OUTPUTS,),
)

INACCESSIBLE_TENSOR = entry(
    "inaccessible-tensor",
    title="A tensor from a loop or branch body was used outside it",
    rule="TFI006",
    pattern=_OUT_OF_SCOPE,
    types=("InaccessibleTensorError",),
    # TF names the loop body or branch it was defined in, or (the message cut) does not say
    when=lambda incident: not _leaked_from_a_function(incident),
    phrases=_OUT_OF_SCOPE_PHRASES,
    locate=Locate.DEFINITION,
    summary="""
        A tensor created inside a `tf.while_loop`/`tf.cond` body (a `for ... in tf.range(...)`
        loop or an `if` on a tensor, converted by AutoGraph) was kept in a Python object and used
        outside that body.
    """,
    cause="""
        AutoGraph turns the loop body or branch into its own graph (`while_body_*`,
        `cond_true_*`). Tensors created there exist only inside it. Appending them to a Python
        list or assigning them to an outer Python object happens once at trace time, so the
        outer graph refers to a tensor it cannot reach.
    """,
    fix="""
        Carry values out through loop variables or a `tf.TensorArray`:

        ```python
        @tf.function
        def loop(n):
            items = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            for i in tf.range(n):
                items = items.write(i, tf.cast(i, tf.float32) + 1.0)
            return items.stack()[-1]
        ```
    """,
    links=(links.FUNCTION_OUTPUTS, links.AUTOGRAPH_CONTROL_FLOW),
)

ENTRIES: list[Entry] = [
    VARIABLE_CREATED_PER_CALL,
    VARIABLE_CREATED_ON_NON_FIRST_CALL,
    NO_TRAINABLE_WEIGHTS,
    OUT_OF_SCOPE_TENSOR,
    INACCESSIBLE_TENSOR,
]
