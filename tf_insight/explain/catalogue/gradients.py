"""Gradient machinery: custom_gradient, recompute_grad, RematScope, missing gradients."""

from __future__ import annotations

from tf_insight.explain.catalogue import links
from tf_insight.explain.catalogue.entry import Entry, entry
from tf_insight.explain.model import Incident

_CUSTOM_GRADIENT_KWARGS = (
    r"The custom_gradient decorator currently supports keywords arguments only when eager"
    r" execution is enabled"
)

# Layers Keras itself defines: when one of them is named, the user's own code holds no
# custom_gradient, so Keras applied it (RematScope / keras.remat).
_KERAS_BUILTIN_LAYERS = frozenset(
    {
        "Functional",
        "Sequential",
        "Dense",
        "EinsumDense",
        "Dropout",
        "BatchNormalization",
        "LayerNormalization",
        "Conv1D",
        "Conv2D",
        "Conv3D",
        "Embedding",
        "MultiHeadAttention",
        "LSTM",
        "GRU",
    }
)


def _keras_applied_remat(incident: Incident) -> bool:
    # tf-keras has no RematScope/remat: its wrapper means a user-made gradient wrapper, even
    # on a user class that happens to share a built-in's name (bert4keras's LayerNormalization).
    return (
        incident.layer is not None
        and incident.layer.type in _KERAS_BUILTIN_LAYERS
        and "tf-keras-call" not in incident.wrappers
    )


REMAT_SCOPE_KEYWORD_ARGUMENTS = entry(
    "remat-scope-keyword-arguments",
    title="RematScope / keras.remat wrapped a layer that receives `training` or `mask`",
    rule="TFI001",
    pattern=_CUSTOM_GRADIENT_KWARGS,
    types=("ValueError",),
    phrases=(
        r"custom_gradientdecoratorcurrentlysupportskeywordsargumentsonly",
    ),
    when=_keras_applied_remat,
    summary="""
        Keras rematerialisation (`keras.RematScope` or `keras.remat`) wrapped the call of
        `$layer_type` in `tf.custom_gradient`, and Keras then called it with keyword arguments
        (`training=`/`mask=`) while `fit` traced its graph. The traceback names no line of yours
        below the `fit` call.
    """,
    cause="""
        On the TensorFlow backend remat uses `tf.recompute_grad`, which is built on
        `tf.custom_gradient`. In graph mode `custom_gradient` rejects any keyword argument
        (`tensorflow/python/ops/custom_gradient.py`, `_graph_mode_decorator`). Inside `fit`,
        Keras 3 passes `training=True` to every layer whose `call` names `training` — not only
        Dropout and BatchNormalization but also `Dense` — and `mask=` to layers that take a
        mask, so a `RematScope` around such layers fails on the first training step. Building
        the model works because no keyword is passed then.
    """,
    fix="""
        Remove the scope and rematerialise a function of tensors instead, inside a layer
        (`keras.remat` and `tf.recompute_grad` both work on a tensor-only function):

        ```python
        class Block(keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.dense = keras.layers.Dense(8)

            def call(self, inputs):
                return keras.remat(lambda x: self.dense(x))(inputs)

        inputs = keras.Input((3,))
        hidden = keras.layers.Dropout(0.5)(Block()(inputs))
        model = keras.Model(inputs, keras.layers.Dense(3)(hidden))
        ```
    """,
    links=(links.KERAS_REMAT, links.RECOMPUTE_GRAD, links.CUSTOM_GRADIENT),
)

CUSTOM_GRADIENT_KEYWORD_ARGUMENTS = entry(
    "custom-gradient-keyword-arguments",
    title="`tf.custom_gradient` function called with keyword arguments in graph mode",
    rule="TFI001",
    pattern=_CUSTOM_GRADIENT_KWARGS,
    types=("ValueError",),
    phrases=(
        r"custom_gradientdecoratorcurrentlysupportskeywordsargumentsonly",
    ),
    summary="""
        A function decorated with `tf.custom_gradient` (or `tf.recompute_grad`, which uses it)
        was called with keyword arguments while TensorFlow was building a graph. Keras called
        `$layer_type.call` with the arguments listed below.
    """,
    cause="""
        `custom_gradient` supports keyword arguments only in eager mode. Keras runs `call` as a
        graph when it builds a functional/Sequential model and inside `fit`/`predict`, and it
        passes context arguments as keywords: tf-keras always passes `training=` (even `None`)
        when `call` accepts `training` or `**kwargs`; Keras 3 passes `training=` when the
        signature names it and the value is known (always inside `fit`), and `mask=None`
        whenever the signature names `mask`. Any keyword reaching the decorated function raises.
    """,
    fix="""
        Decorate an inner function that takes tensors positionally, not `call` itself:

        ```python
        class MyLayer(keras.layers.Layer):
            def call(self, inputs, training=None):
                @tf.custom_gradient
                def forward(x):
                    y = tf.identity(x)
                    def grad(dy):
                        return dy
                    return y, grad
                return forward(inputs)
        ```

        The same holds for `tf.recompute_grad`: `return tf.recompute_grad(self._block)(inputs)`
        where `_block` takes only tensors.
    """,
    links=(links.CUSTOM_GRADIENT, links.RECOMPUTE_GRAD, links.KERAS_CUSTOM_LAYERS),
)

RECOMPUTE_GRAD_ON_METHOD = entry(
    "recompute-grad-on-method",
    title="`tf.recompute_grad` applied to a method: the layer itself is treated as a tensor",
    rule="TFI002",
    pattern=(
        r"Attempt to convert a value \(<[\w.]+ (?:name=\w+, built=\w+|object at 0x[0-9a-f]+)>\)"
        r"|Failed to convert elements of <\w+ name=\w+, built=\w+>"
    ),
    types=("ValueError", "TypeError"),
    phrases=(
        r"attempttoconvertavalue\(<[\w.]+(?:name=\w+,built=\w+|objectat0x[0-9a-f]+)>\)",
        r"failedtoconvertelementsof<\w+name=\w+,built=\w+>",
    ),
    summary="""
        The backward pass of a `tf.recompute_grad`-wrapped method tried to convert the layer
        object (`self`) to a tensor.
    """,
    cause="""
        `tf.recompute_grad(f)` recomputes `f` in the gradient pass from the saved arguments,
        and converts every positional argument to a tensor
        (`nest.map_structure(identity, args)`). On a method the first argument is `self`, a
        Layer, which cannot be converted: Keras 3 graph mode reports `Failed to convert
        elements of <Layer ...>`, eager mode and tf-keras report `Attempt to convert a value
        (<Layer ...>)`. The forward pass works, so the error appears only once gradients are
        computed (the first `fit` step).
    """,
    fix="""
        Recompute an inner function of tensors, not the method:

        ```python
        class MyDense(keras.layers.Layer):
            def call(self, inputs):
                def block(x):
                    return tf.matmul(x, self.kernel)
                return tf.recompute_grad(block)(inputs)
        ```
    """,
    links=(links.RECOMPUTE_GRAD,),
)

NO_GRADIENTS_PROVIDED = entry(
    "no-gradients-provided",
    title="No gradient reached any trainable variable",
    rule=None,
    pattern=r"^No gradients provided for any variable",
    types=("ValueError",),
    phrases=(
        r"nogradientsprovidedforanyvariable",
    ),
    summary="""
        The optimizer received `None` gradients for every variable: the loss is not
        differentiably connected to the model's weights.
    """,
    cause="""
        `GradientTape` only differentiates through TensorFlow ops recorded between the weights
        and the loss. `tf.argmax`, `tf.round`, `tf.cast` to an integer type, comparisons,
        `.numpy()`/NumPy round trips and Python scalars all cut the path; so does computing
        the loss from the targets only, or from tensors created outside the tape. In graph
        mode (`fit`, `tf.function`) this only surfaces when `apply_gradients` filters the
        `None`s.
    """,
    fix="""
        Compute the loss from the model output with differentiable ops, e.g. use
        probabilities instead of predicted classes:

        ```python
        def loss(y_true, y_pred):
            return keras.losses.sparse_categorical_crossentropy(y_true, y_pred)
            # not: tf.cast(tf.argmax(y_pred, -1), tf.float32)
        ```

        To find the break: `grads = tape.gradient(loss, model.trainable_variables)` in an
        eager step and print which entries are `None`.
    """,
    links=(links.GRADIENT_TAPE,),
)

ENTRIES: list[Entry] = [
    REMAT_SCOPE_KEYWORD_ARGUMENTS,  # before the general entry: same message, narrower case
    CUSTOM_GRADIENT_KEYWORD_ARGUMENTS,
    RECOMPUTE_GRAD_ON_METHOD,
    NO_GRADIENTS_PROVIDED,
]
