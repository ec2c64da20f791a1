"""A `tf.custom_gradient`/`tf.recompute_grad`-wrapped callable that graph mode calls with keyword
arguments.

## What it does
Finds callables wrapped by `tf.custom_gradient` or `tf.recompute_grad` (directly, through a
decorator defined in another module or package that is built on them, or through
`keras.RematScope`/`keras.remat`) that TensorFlow will call with keyword arguments while
building a graph:
- a Keras `Layer.call` carrying such a decorator: tf-keras always passes `training=` (and
  `mask=`) to a `call` that accepts `**kwargs`, `training` or `mask`; Keras 3 passes `training`
  and `mask` when the signature names them;
- such a callable called with keyword arguments inside a graph context (`tf.function`, a Keras
  `call`, `train_step`, a `tf.data` function...), including one kept on the object
  (`self.forward = tf.recompute_grad(self._forward)`, then `self.forward(x, training=t)`);
- layers that take `training`/`mask` (`Dense`, `Dropout`, `BatchNormalization`, RNNs,
  attention...) built inside `keras.RematScope(...)` or wrapped by `keras.remat` on the TensorFlow backend.

And, in eager code, a `custom_gradient` function called with keyword arguments only
(`scaled(pred=p, target=t)`): TensorFlow then records no custom gradient, and the tape
differentiates the body as if it were not decorated, without an error.

A `custom_gradient` on an inner function of tensors called positionally is the safe pattern and
is not reported; nor is a decorator whose wrapper takes `**kwargs` and passes none on
(`def wrapped(self, *args, **kwargs): return tf.custom_gradient(lambda *a: f(self, *a))(*args)`):
the keywords Keras adds never reach `custom_gradient`.

## Why is this bad?
In graph mode `custom_gradient`'s `_graph_mode_decorator` rejects any keyword argument:
`ValueError: The custom_gradient decorator currently supports keywords arguments only when eager
execution is enabled.` The error is raised deep inside TensorFlow, behind Keras's filtered
traceback, often from `model.fit` or from building a functional model, and it does not name
the keyword (usually `training`) that Keras added.

## Example
```python
import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    @tf.custom_gradient
    def call(self, inputs, training=None):
        def grad(dy):
            return dy * 2.0
        return inputs * 2.0, grad
```

## Use instead
```python
import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def call(self, inputs, training=None):
        @tf.custom_gradient
        def forward(inputs):
            def grad(dy):
                return dy * 2.0
            return inputs * 2.0, grad
        return forward(inputs)
```

## References
- [tf.custom_gradient](https://www.tensorflow.org/api_docs/python/tf/custom_gradient)
- [tf.recompute_grad](https://www.tensorflow.org/api_docs/python/tf/recompute_grad)
- [keras.RematScope](https://keras.io/api/models/model_training_apis/#rematscope)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import ContextKind
from tf_insight.check.imports import keyword
from tf_insight.check.index import FunctionInfo, self_attribute
from tf_insight.check.names import CUSTOM_GRADIENT, RECOMPUTE_GRAD
from tf_insight.check.rules import Hit, Reads
from tf_insight.check.rules._attributes import attribute_stores
from tf_insight.check.rules._inner_function import wrap_inner_function
from tf_insight.findings import Related, Severity, Span

CODE = "TFI001"
NAME = "custom-gradient-keyword-args"
SEVERITY = Severity.ERROR
FLAVOR_DEPENDENT = True  # Keras 2 and Keras 3 differ here

GRADIENT_WRAPPERS = {"custom_gradient", "recompute_grad"}
REMAT = frozenset({"keras.remat", "keras.RematScope", "keras.src.backend.common.remat.remat",
                   "keras.src.backend.common.remat.RematScope"})
WRAPPERS = CUSTOM_GRADIENT | RECOMPUTE_GRAD | REMAT
# A name bound to a wrapped callable in any function (`clip = tf.custom_gradient(f)`) is looked
# up by name in every graph function.
READS = Reads(calls=frozenset(name.rsplit(".", 1)[-1] for name in WRAPPERS))
# Keras 3.15 built-in layers whose `call` names `training` or `mask` (inherited included):
# Keras passes those to them, so under rematerialization they reach custom_gradient.
CONTEXT_ARG_LAYERS = frozenset({
    "AdditiveAttention", "AlphaDropout", "Attention", "AugMix", "AutoContrast",
    "BatchNormalization", "Bidirectional", "CenterCrop",
    "ContrastLimitedAdaptiveHistogramEqualization", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D",
    "CutMix", "Dense", "Dropout", "EinsumDense", "Equalization", "GRU", "GRUCell",
    "GaussianDropout", "GaussianNoise", "GlobalAveragePooling1D", "LSTM", "LSTMCell", "Lambda",
    "MaxNumBoundingBoxes", "MixUp", "MultiHeadAttention", "Pipeline", "RNN", "RandAugment",
    "RandomBrightness", "RandomColorDegeneration", "RandomColorJitter", "RandomContrast",
    "RandomCrop", "RandomElasticTransform", "RandomErasing", "RandomFlip", "RandomGaussianBlur",
    "RandomGrayscale", "RandomHue", "RandomInvert", "RandomPerspective", "RandomPosterization",
    "RandomRotation", "RandomSaturation", "RandomSharpness", "RandomShear", "RandomTranslation",
    "RandomZoom", "Resizing", "SimpleRNN", "SimpleRNNCell", "Softmax", "Solarization",
    "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "SpectralNormalization",
    "StackedRNNCells", "TimeDistributed",
})


def check(module: ModuleContext) -> Iterator[Hit]:
    yield from _decorated_layer_calls(module)
    yield from _keyword_calls_in_graph(module)
    yield from _keyword_only_calls_eagerly(module)
    if module.flavor == "3" and module.mentions("remat", "Remat"):
        yield from _remat_layers(module)


def _gradient_decorator(module: ModuleContext, function: FunctionInfo) -> tuple[ast.expr, str] | None:
    """The decorator that wraps `function` in custom_gradient/recompute_grad and lets its
    keyword arguments reach them (not one whose wrapper drops `**kwargs`)."""
    for decorator in function.decorators:
        every = module.decorator_effects(decorator)
        effects = every & GRADIENT_WRAPPERS
        if effects and "drops keywords" not in every:
            return decorator, "recompute_grad" if "recompute_grad" in effects else "custom_gradient"
    return None


def _decorated_layer_calls(module: ModuleContext) -> Iterator[Hit]:
    for function, context in module.graph.focused_functions():
        if context.kind is not ContextKind.KERAS_CALL:
            continue
        found = _gradient_decorator(module, function)
        if found is None:
            continue
        decorator, wrapper = found
        names = set(function.parameter_names)
        takes_kwargs = function.node.args.kwarg is not None
        context_args = sorted(names & {"training", "mask"})
        direct = module.qualname(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if module.flavor == "2":
            if not (context_args or takes_kwargs or wrapper == "recompute_grad"):
                continue
            passed = ", ".join(f"{a}=" for a in (context_args or ["training"]))
            why = f"tf-keras passes `{passed}` to it whenever it runs in graph mode"
        else:
            # Keras 3 inspects the signature it sees: the decorated function's own, unless a
            # decorator from elsewhere put a wrapper of its own in front.
            if not context_args or direct is None:
                continue
            passed = ", ".join(f"{a}=" for a in context_args)
            why = f"Keras 3 passes `{passed}` because the signature names {_names(context_args)}"
        label = module.source.segment(decorator)
        related: tuple[Related, ...] = ()
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if direct is None or not direct.startswith("tensorflow."):
            definition = module.project.external_definition_path(module, target)
            if definition is not None:
                related = (Related(definition.path, _line_span(definition.line),
                                   f"`{label}` is built on `tf.{wrapper}` here"),)
        built_on = "" if label.endswith(wrapper) else f" (built on tf.{wrapper})"
        yield Hit(
            decorator,
            f"`{function.qualname}` is wrapped by `@{label}`{built_on}, and Keras passes it "
            f"`{passed}`",
            fix=wrap_inner_function(module, function, decorator),
            related=related,
            detail=f"{why}, and custom_gradient rejects keyword arguments in graph mode",
            help="apply it to an inner function of the tensors, called positionally",
        )


def _wrapped_callables(module: ModuleContext) -> dict[str, str]:
    """Local names bound to gradient-wrapped callables → how they were wrapped."""
    wrapped: dict[str, str] = {}
    for function in module.index.functions:
        found = _gradient_decorator(module, function)
        if found is not None and function.cls is None:
            wrapped[function.name] = f"@{module.source.segment(found[0])}"
    # `clip = tf.custom_gradient(f)`: module scope first, then each function's (the last wins),
    # only direct TF/Keras wrappers (resolving every call is too costly)
    order: dict[FunctionInfo | None, int] = {
        function: position for position, function in enumerate(module.index.functions)}
    assignments = sorted(module.assigned_calls(*READS.calls),
                         key=lambda found: order.get(found[2], -1))
    for node, call, _scope in assignments:
        if (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and module.refers_to(call.func, WRAPPERS)):
            wrapped[node.targets[0].id] = module.source.segment(call.func)
    return wrapped


def _keyword_calls_in_graph(module: ModuleContext) -> Iterator[Hit]:
    wrapped = (_wrapped_callables(module)
               if module.mentions("custom_gradient", "recompute_grad", "remat") else {})
    for function, context in module.graph.focused_functions():
        for node in function.calls:
            if not node.keywords:
                continue
            if isinstance(node.func, ast.Name):
                if _rebound_here(module, function, node.func.id):
                    continue  # `op = tf.keras.layers.Conv2D` in this function: not the wrapped one
                how = wrapped.get(node.func.id) or _imported_wrapper(module, node.func)
            else:
                how = _wrapped_attribute(module, function, node.func)
            if how is None:
                continue
            yield Hit(
                node,
                f"`{module.source.segment(node.func)}` (wrapped by `{how}`) is called with "
                f"keyword argument(s) {_keywords(node)} in graph mode",
                detail=f"`{function.qualname}` runs as a graph ({context.kind.value}), and "
                "custom_gradient rejects keyword arguments there",
                help="pass them positionally or close over them",
            )


def _rebound_here(module: ModuleContext, function: FunctionInfo, name: str) -> bool:
    """`name` is assigned in `function`, and not from a gradient wrapper: the call is of that."""
    assignments = function.nodes.assignments_to(name)
    return bool(assignments) and not any(
        isinstance(a.value, ast.Call) and module.refers_to(a.value.func, WRAPPERS)
        for a in assignments)


def _keyword_only_calls_eagerly(module: ModuleContext) -> Iterator[Hit]:
    """`f(x=a, y=b)` of a `custom_gradient` function in eager code: no positional input, so
    TensorFlow records no custom gradient at all, and the tape differentiates the body."""
    if not module.mentions("custom_gradient"):
        return
    wrapped = {name: how for name, how in _wrapped_callables(module).items()
               if "custom_gradient" in how}
    for node, scope in module.focused_calls():
        if node.args or not node.keywords or not isinstance(node.func, ast.Name) or (
                node.func.id not in wrapped or module.graph.in_graph(scope) is not None) or (
                scope is not None and _rebound_here(module, scope, node.func.id)):
            continue
        yield Hit(
            node,
            f"`{node.func.id}` (wrapped by `{wrapped[node.func.id]}`) is called with keyword "
            f"argument(s) {_keywords(node)} only: its custom gradient is never used",
            detail="eagerly, custom_gradient records its gradient function for the positional "
            "arguments only; with none, the tape differentiates the body as written and the "
            "gradient silently differs (in a graph, the call raises)",
            help="pass the tensors positionally",
        )


def _wrapped_attribute(module: ModuleContext, function: FunctionInfo, func: ast.expr
                       ) -> str | None:
    """`self.forward(...)` where a method of the class set `self.forward =
    tf.recompute_grad(self._forward)` (or `tf.custom_gradient(...)`)."""
    name = self_attribute(func)
    if name is None or function.cls is None:
        return None
    for store in attribute_stores(module, function.cls).get(name, []):
        value = store.value
        if isinstance(value, ast.Call) and module.refers_to(value.func, WRAPPERS):
            return module.source.segment(value.func)
    return None


def _imported_wrapper(module: ModuleContext, func: ast.Name) -> str | None:
    """`@tf.custom_gradient def clip(...)` in another module, imported and called here."""
    if func.id not in module.imports.aliases and func.id not in module.imports.relative:
        return None
    if not module.is_imported(func):
        return None
    found = module.project.external_function(module, func)
    if found is None:
        return None
    other, definition = found
    for decorator in definition.decorator_list:
        if other.decorator_effects(decorator) & GRADIENT_WRAPPERS:
            return f"@{other.source.segment(decorator)}"
    return None


def _remat_layers(module: ModuleContext) -> Iterator[Hit]:
    user_layers = {
        cls.name for cls in module.index.classes
        if module.keras_kind(cls) == "layer" and "call" in cls.methods
        and {"training", "mask"} & set(cls.methods["call"].parameter_names)
    }
    for _scope, nodes in module.focused_scopes():
        for node in nodes:
            if isinstance(node, ast.With | ast.AsyncWith):
                for item in node.items:
                    scope = item.context_expr
                    if (isinstance(scope, ast.Call)
                            and module.qualname(scope.func) in REMAT and _remats_all(scope)):
                        yield from _layers_built_in(module, node.body, scope, user_layers)
            elif (isinstance(node, ast.Call) and node.args
                  and module.qualname(node.func) in REMAT - {"keras.RematScope"}):
                yield from _layers_built_in(module, [node.args[0]], node, user_layers)


def _remats_all(scope: ast.Call) -> bool:
    mode = keyword(scope, "mode") or (scope.args[0] if scope.args else None)
    return not (isinstance(mode, ast.Constant) and mode.value == "activations")


def _layers_built_in(module: ModuleContext, body: list[ast.stmt] | list[ast.expr],
                     scope: ast.Call, user_layers: set[str]) -> Iterator[Hit]:
    label = module.source.segment(scope)
    for statement in body:
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            qualname = module.qualname(node.func) or ""
            layer = qualname.rsplit(".", 1)[-1] if qualname.startswith("keras.") else None
            if layer is None and isinstance(node.func, ast.Name) and node.func.id in user_layers:
                layer = node.func.id
            if layer in CONTEXT_ARG_LAYERS or (layer is not None and layer in user_layers):
                yield Hit(
                    node,
                    f"`{layer}` is built under `{label}`, and Keras calls it with `training=`",
                    related=(Related(module.path, module.span(scope),
                                     "rematerialization scope"),),
                    detail="on the TensorFlow backend its call is wrapped in "
                    "tf.recompute_grad, and Keras calls it with `training=`/`mask=` in graph "
                    "mode, which custom_gradient rejects",
                    help="exclude it from rematerialization (build it outside the scope, or use "
                    "mode='list_of_layers' without it)",
                )


def _keywords(call: ast.Call) -> str:
    """A call's keyword arguments, as the messages name them (`**` for `**kwargs`)."""
    return _names([k.arg or "**" for k in call.keywords])


def _names(items: list[str]) -> str:
    return ", ".join(f"`{item}`" for item in items)


def _line_span(line: int) -> Span:
    return Span(line, 0, line, 0)


