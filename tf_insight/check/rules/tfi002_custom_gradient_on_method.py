"""`tf.recompute_grad` applied to a method, so `self` becomes one of its tensor arguments.

## What it does
Finds `tf.recompute_grad` applied to the plain function of a method, so that the instance
(`self`) is passed to the wrapper as its first positional argument:
- `@tf.recompute_grad` (or Keras 3's `@keras.remat`, which is `tf.recompute_grad` on the
  TensorFlow backend) on a method of any class (a Keras `Layer.call`, a helper method, a
  `__call__`), also through a decorator defined in another module or package that applies
  `tf.recompute_grad` to the function it decorates;
- `name = tf.recompute_grad(method)` in a class body;
- `tf.recompute_grad(ClassName.method)` / `tf.recompute_grad(type(self).method)`: the unbound
  function, later called with the instance.

Not reported: `tf.recompute_grad(self.method)` (a bound method: the wrapper only sees the
tensors), `tf.recompute_grad` on an inner function of the tensors or on a static method, and
`tf.custom_gradient` on methods (its own problems with keyword arguments are TFI001's).

## Why is this bad?
`tf.recompute_grad` treats every positional argument as a tensor. Its backward pass runs
`tf.identity` over them, so as soon as a gradient is computed (`fit`, `GradientTape.gradient`)
it tries to convert the layer object: `TypeError: Failed to convert elements of <Block ...> to
Tensor` (Keras 3 `fit`) or `ValueError: Attempt to convert a value (<Block ...>) with an
unsupported type ... to a Tensor`. This happens in both Keras 3 and tf-keras, and the forward
pass works, so the model builds and predicts fine and fails only in training.

## Example
```python
import tensorflow as tf


class Block(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 4), initializer="ones")

    @tf.recompute_grad
    def call(self, inputs):
        return tf.nn.relu(tf.matmul(inputs, self.kernel))
```

## Use instead
```python
import tensorflow as tf


class Block(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 4), initializer="ones")

    def call(self, inputs):
        @tf.recompute_grad
        def forward(inputs):
            return tf.nn.relu(tf.matmul(inputs, self.kernel))
        return forward(inputs)
```

## References
- [tf.recompute_grad](https://www.tensorflow.org/api_docs/python/tf/recompute_grad)
- [custom_gradient.py: recompute_grad](https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/ops/custom_gradient.py)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check import names
from tf_insight.check.context import ModuleContext
from tf_insight.check.imports import callee
from tf_insight.check.index import ClassInfo, FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._inner_function import wrap_inner_function
from tf_insight.check.rules._keras import first_parameter, function_definition, is_static
from tf_insight.findings import Related, Severity, Span

CODE = "TFI002"
NAME = "custom-gradient-on-method"
SEVERITY = Severity.ERROR

WHY = ("its backward pass converts every positional argument to a tensor, so computing a "
       "gradient fails with `Failed to convert elements of <{cls} ...> to Tensor`")


def check(module: ModuleContext) -> Iterator[Hit]:
    yield from _decorated_methods(module)
    yield from _class_body_assignments(module)
    yield from _unbound_methods(module)


# Keras 3's `remat` is `tf.recompute_grad` on the TensorFlow backend.
KERAS_REMAT = frozenset({"keras.remat", "keras.src.backend.common.remat.remat",
                         "keras.src.backend.tensorflow.core.remat"})
RECOMPUTING = names.RECOMPUTE_GRAD | KERAS_REMAT


def _recompute(module: ModuleContext, node: ast.AST) -> bool:
    return (module.qualname(callee(node)) in KERAS_REMAT
            or "recompute_grad" in module.decorator_effects(node))


def _decorated_methods(module: ModuleContext) -> Iterator[Hit]:
    for function in module.focused_functions():
        if function.cls is None or is_static(function):
            continue
        for decorator in function.decorators:
            if not _recompute(module, decorator):
                continue
            related = _wrapping_decorator(module, decorator)
            if related is None:
                continue
            label = module.source.segment(decorator)
            instance = _instance(function)
            what = "class" if _is_classmethod(function) else "instance"
            yield Hit(
                decorator,
                f"`@{label}` wraps the method `{function.qualname}`, so it receives "
                f"`{instance}` as a tensor argument",
                fix=wrap_inner_function(module, function, decorator),
                related=related,
                detail=f"tf.recompute_grad receives `{instance}` (the `{function.cls.name}` "
                f"{what}) as a positional argument and " + WHY.format(cls=function.cls.name),
                help="apply it to an inner function of the tensors, called positionally",
            )
            break


def _wrapping_decorator(module: ModuleContext, decorator: ast.expr) -> tuple[Related, ...] | None:
    """() for `tf.recompute_grad` itself; for a decorator defined elsewhere, its definition when
    it applies tf.recompute_grad to the function it decorates; None when it doesn't (it
    wraps a closure or a partial that hides `self` from tf.recompute_grad)."""
    target = callee(decorator)
    if module.qualname(target) in RECOMPUTING:
        return ()
    found = function_definition(module, target)
    if found is None:
        return ()  # unresolved: trust decorator_effects
    other, definition = found
    if not _applies_to_parameter(other, definition):
        return None
    if other is module:
        return (Related(module.path, module.span(definition),
                        "applies tf.recompute_grad to the function it decorates"),)
    return (Related(other.path, Span(definition.lineno, 0, definition.lineno, 0),
                    f"`{module.source.segment(target)}` applies tf.recompute_grad to the "
                    "function it decorates here"),)


def _applies_to_parameter(module: ModuleContext, definition: ast.AST) -> bool:
    """Does a decorator (or decorator factory) apply tf.recompute_grad to a function it is
    given — `return tf.recompute_grad(f)` — or return an inner function it decorated with it?"""
    parameters: set[str] = set()
    for node in ast.walk(definition):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            parameters.update(a.arg for a in [*node.args.posonlyargs, *node.args.args])
    returned = {
        node.value.id for node in ast.walk(definition)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name)
    }
    for node in ast.walk(definition):
        if (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name)
                and node.args[0].id in parameters and _recompute(module, node.func)):
            return True
        if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node is not definition
                and node.name in returned
                and any(_recompute(module, d) for d in node.decorator_list)):
            return True
    return False


def _class_body_assignments(module: ModuleContext) -> Iterator[Hit]:
    """`call = tf.recompute_grad(_call)` in a class body: the same as decorating `_call`."""
    for cls in module.focused_classes():
        for statement in cls.node.body:
            if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)):
                continue
            call = statement.value
            if not (call.args and isinstance(call.args[0], ast.Name)
                    and _recompute(module, call.func)):
                continue
            method = cls.methods.get(call.args[0].id)
            if method is None or is_static(method):
                continue
            yield _method_reference_hit(module, call, cls, method)


def _unbound_methods(module: ModuleContext) -> Iterator[Hit]:
    """`tf.recompute_grad(Block.forward)`, `tf.recompute_grad(type(self).forward)`."""
    if not module.mentions("recompute_grad", "remat"):
        return  # how every name of RECOMPUTING is spelled
    classes = module.index.module_classes()
    for scope, nodes in module.focused_scopes():
        for node in nodes.of(ast.Call):
            if not (node.args and isinstance(node.args[0], ast.Attribute)
                    and module.refers_to(node.func, RECOMPUTING)):
                continue
            owner = node.args[0].value
            cls: ClassInfo | None = None
            if isinstance(owner, ast.Name) and owner.id in classes:
                cls = classes[owner.id]
            elif scope is not None and _is_type_of_self(owner, scope):
                cls = module.enclosing_class(scope)
            if cls is None:
                continue
            method = cls.methods.get(node.args[0].attr)
            if method is None or is_static(method) or _is_classmethod(method):
                continue
            yield _method_reference_hit(module, node, cls, method)


def _method_reference_hit(module: ModuleContext, call: ast.Call, cls: ClassInfo,
                          method: FunctionInfo) -> Hit:
    return Hit(
        call,
        f"`{module.source.segment(call.func)}` is applied to the plain function of the method "
        f"`{method.qualname}`",
        related=(Related(module.path, module.span(method.node.args), "the method's parameters"),),
        detail=f"its `{_instance(method)}` parameter then receives the `{cls.name}` instance as "
        "a positional argument; " + WHY.format(cls=cls.name),
        help=f"wrap a bound method (`self.{method.name}`) or an inner function of the tensors",
    )


def _is_type_of_self(node: ast.expr, scope: FunctionInfo) -> bool:
    """`type(self)` or `self.__class__` inside a method."""
    while scope.cls is None and scope.outer is not None:
        scope = scope.outer
    me = first_parameter(scope)
    if me is None:
        return False
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"
            and len(node.args) == 1 and isinstance(node.args[0], ast.Name)):
        return node.args[0].id == me
    return (isinstance(node, ast.Attribute) and node.attr == "__class__"
            and isinstance(node.value, ast.Name) and node.value.id == me)


def _is_classmethod(function: FunctionInfo) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "classmethod" for d in function.decorators)


def _instance(function: FunctionInfo) -> str:
    return first_parameter(function) or "self"
