"""A raw `tf.Variable` stored on a Keras 3 layer or model, which Keras 3 never tracks.

## What it does
Finds `tf.Variable(...)` objects stored on a Keras 3 `Layer` or `Model` from one of its methods:
as an attribute (`self.b = tf.Variable(...)`), in a list or dict attribute
(`self.w = [None] * n; self.w[i] = tf.Variable(...)`, `self.w.append(tf.Variable(...))`,
`self.w = [tf.Variable(...) for ...]`, a list or dict built first and then assigned), or with
`setattr(self, ...)`.

Not reported in tf-keras code (`tf_keras`, or `tf.keras` under `TF_USE_LEGACY_KERAS=1`), which
tracks raw variables in attributes, lists and dicts; not `keras.Variable` or
`self.add_weight(...)`; not variables kept in local names only; not classes that override
`__call__` (used as a `tf.Module`, whose checkpoints and SavedModels do track them) or that
override `trainable_variables`/`weights` (they list their variables themselves), nor methods
decorated with `track_tf1_style_variables`; not Metric or Loss classes. A variable `__init__`
stores in an attribute that `build` sets again is reported in `build` only (Keras runs `build`
before the first `call`, so the first one is replaced before any use). Not a variable the
module names nowhere but where it stores it (made, never used), nor a private one it only
updates and never reads (`self._steps.assign_add(1)`): losing it on save or leaving it out of
the weights loses nothing.

The fix (`self.add_weight(name=..., shape=(), initializer=..., trainable=...)`) is offered only
for a Python number as initial value, in `__init__` after `super().__init__()` or in `build`.

## Why is this bad?
Keras 3 only tracks its own variables (`self.add_weight`, `keras.Variable`). A raw
`tf.Variable` is missing from `layer.weights` and `layer.trainable_weights`, so `fit` never
updates it (if it was the only weight, Keras warns `The model does not have any trainable
weights`; otherwise nothing is said) and `model.save()`/`save_weights()` don't store it. The
same code trains correctly in tf-keras, so the bug appears when moving to TF ≥ 2.16.

## Example
```python
import tensorflow as tf


class Polynomial(tf.keras.layers.Layer):
    def __init__(self, order, **kwargs):
        super().__init__(**kwargs)
        self.w = [None] * order
        for i in range(order):
            self.w[i] = tf.Variable(0.1, trainable=True, name=f"coefficient_{i}")

    def call(self, inputs):
        return sum(w * inputs ** (i + 1) for i, w in enumerate(self.w))
```

## Use instead
```python
import tensorflow as tf


class Polynomial(tf.keras.layers.Layer):
    def __init__(self, order, **kwargs):
        super().__init__(**kwargs)
        self.w = [None] * order
        for i in range(order):
            self.w[i] = self.add_weight(
                name=f"coefficient_{i}", shape=(),
                initializer=tf.keras.initializers.Constant(0.1), trainable=True)

    def call(self, inputs):
        return sum(w * inputs ** (i + 1) for i, w in enumerate(self.w))
```

## References
- [Keras: making new layers and models via subclassing](https://keras.io/guides/making_new_layers_and_models_via_subclassing/)
- [keras.layers.Layer.add_weight](https://keras.io/api/layers/base_layer/#addweight-method)
- [Migrating to Keras 3](https://keras.io/guides/migrating_to_keras_3/)
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.imports import callee
from tf_insight.check.index import ClassInfo, FunctionInfo, self_attribute
from tf_insight.check.rules import Hit
from tf_insight.check.rules._attributes import VARIABLE_ASSIGNS
from tf_insight.check.rules._keras import first_parameter, is_static, name_for
from tf_insight.findings import Edit, Fix, Related, Severity

CODE = "TFI009"
NAME = "untracked-raw-variable"
SEVERITY = Severity.WARNING
FLAVOR_DEPENDENT = True  # Keras 2 and Keras 3 differ here
HOLDS_EAGERLY = True  # Keras's tracking, whatever the mode

RAW_VARIABLES = frozenset({"tensorflow.Variable", "tensorflow.compat.v1.Variable"})
CONTAINER_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})
FIXABLE_KEYWORDS = frozenset({"initial_value", "trainable", "name", "dtype"})


# overriding one of these, a class lists its weights by hand
WEIGHT_LISTS = frozenset({"trainable_variables", "trainable_weights", "weights", "variables"})


def check(module: ModuleContext) -> Iterator[Hit]:
    if module.flavor != "3" or not module.mentions("Variable"):
        return
    for cls in module.focused_classes():
        kind = module.keras_kind(cls)
        if kind not in ("layer", "model") or "__call__" in cls.methods:
            continue  # a class overriding `__call__` is used as a tf.Module, which tracks them
        if WEIGHT_LISTS & cls.methods.keys():
            continue  # it lists its variables itself, and its training code uses that list
        rebuilt = _set_in_build(module, cls)
        for method in cls.methods.values():
            me = first_parameter(method)
            if me is None or is_static(method) or _tracks_tf1_variables(module, method):
                continue
            yield from _stored_variables(module, cls, kind, method, me,
                                         rebuilt if method.name == "__init__" else set())


def _set_in_build(module: ModuleContext, cls: ClassInfo) -> set[str]:
    """The attributes `build` sets: Keras calls it before the first `call`, so a variable
    `__init__` stored there first is replaced before anything uses it."""
    build = cls.methods.get("build")
    me = first_parameter(build) if build is not None else None
    if build is None or me is None:
        return set()
    finder = _Finder(module, me)
    return {attribute for node in build.nodes.of(ast.Assign, ast.AnnAssign, ast.Call)
            for attribute, _value, _where in finder.stores(node)}


def _stored_variables(module: ModuleContext, cls: ClassInfo, kind: str,
                      method: FunctionInfo, me: str, replaced: set[str]) -> Iterator[Hit]:
    finder = _Finder(module, me)
    finder.learn_locals(method.nodes.of(ast.Assign, ast.Call))
    seen: set[ast.Call] = set()
    for node in method.nodes.of(ast.Assign, ast.AnnAssign, ast.Call):
        for attribute, value, where in finder.stores(node):
            if attribute in replaced:
                continue  # `build` sets it anew before any use: its finding is there
            if _only_written(module, cls, me, attribute):
                continue  # nothing reads it: nothing is lost when Keras leaves it out
            for creation in finder.variables_in(value):
                if creation in seen:
                    continue
                seen.add(creation)
                related: tuple[Related, ...] = ()
                if module.span(where).line != module.span(creation).line:
                    related = (Related(module.path, module.span(where),
                                       f"stored in `{me}.{attribute}` here"),)
                fix = _add_weight_fix(module, method, me, creation)
                yield Hit(
                    creation,
                    f"Keras 3 does not track the raw `tf.Variable` in `{me}.{attribute}` of the "
                    f"{kind} `{cls.name}`",
                    detail="it is missing from "
                    + (f"`{kind}.weights` and `save`/`save_weights` don't store it"
                       if _not_trainable(creation) else
                       f"`{kind}.weights`/`trainable_weights`, `fit` never trains it and `save`/"
                       "`save_weights` don't store it"),
                    help="create it with "
                    + ("`self.add_weight(...)`" if fix else
                       "`self.add_weight(name=..., shape=..., initializer=..., trainable=...)` "
                       "(or `keras.Variable`)"),
                    fix=fix,
                    related=related,
                )


def _only_written(module: ModuleContext, cls: ClassInfo, me: str, attribute: str) -> bool:
    """Whether `me.attribute` is only stored: the module names it nowhere else (a variable
    made and never used), or it is private, updated by an assign statement
    (`self._steps.assign_add(1)`) and otherwise only stored: a counter nobody reads (code
    outside the module has no business reading a private name)."""
    named = len(re.findall(rf"\.{re.escape(attribute)}\b", module.source.text))
    writes = updates = 0
    for method in cls.methods.values():
        for node in method.nodes.of(ast.Assign, ast.Expr):
            if isinstance(node, ast.Assign):
                writes += sum(1 for t in node.targets if self_attribute(t, me) == attribute)
            elif (isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
                  and node.value.func.attr in VARIABLE_ASSIGNS
                  and self_attribute(node.value.func.value, me) == attribute):
                updates += 1
    if writes and named == writes:
        return True
    return attribute.startswith("_") and updates > 0 and named == writes + updates


class _Finder:
    def __init__(self, module: ModuleContext, me: str) -> None:
        self.module = module
        self.me = me
        self.locals: dict[str, list[ast.Call]] = {}

    def is_raw(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and self.module.qualname(node.func) in RAW_VARIABLES

    def variables_in(self, value: ast.AST) -> list[ast.Call]:
        """The `tf.Variable(...)` calls whose results a value holds: the call itself, the
        elements of a list/tuple/dict display or comprehension, or a local built from them."""
        if self.is_raw(value):
            assert isinstance(value, ast.Call)
            return [value]
        if isinstance(value, ast.Name):
            return self.locals.get(value.id, [])
        if isinstance(value, ast.List | ast.Tuple | ast.Set):
            return [c for elt in value.elts for c in self.variables_in(elt)]
        if isinstance(value, ast.Dict):
            return [c for v in value.values for c in self.variables_in(v)]
        if isinstance(value, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            return self.variables_in(value.elt)
        if isinstance(value, ast.DictComp):
            return self.variables_in(value.value)
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id in ("list", "tuple", "dict") and value.args):
            return self.variables_in(value.args[0])
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            return self.variables_in(value.left) + self.variables_in(value.right)
        return []

    def learn_locals(self, nodes: list[ast.Assign | ast.Call]) -> None:
        """Local lists/dicts (or single variables) that end up holding raw variables, from a
        method's assignments and calls."""
        for _ in range(2):  # `ws = []; ws.append(v)`; `all = ws + more`
            for node in nodes:
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            self._add(target.id, self.variables_in(node.value))
                        elif isinstance(target, ast.Subscript) and isinstance(
                            target.value, ast.Name
                        ):
                            self._add(target.value.id, self.variables_in(node.value))
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and node.func.attr in CONTAINER_METHODS
                      and isinstance(node.func.value, ast.Name)
                      and node.func.value.id != self.me):
                    for argument in node.args:
                        self._add(node.func.value.id, self.variables_in(argument))

    def _add(self, name: str, calls: list[ast.Call]) -> None:
        known = self.locals.setdefault(name, [])
        known.extend(c for c in calls if c not in known)
        if not known:
            del self.locals[name]

    def attribute_of_me(self, node: ast.AST) -> str | None:
        """`self.x` → 'x'; `self.x[i]` → 'x' (also nested)."""
        while isinstance(node, ast.Subscript):
            node = node.value
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id == self.me):
            return node.attr
        return None

    def stores(self, node: ast.AST) -> Iterator[tuple[str, ast.AST, ast.AST]]:
        """(attribute, value stored, where) for every store onto `self` in a statement."""
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Tuple | ast.List) and isinstance(
                    node.value, ast.Tuple | ast.List
                ) and len(target.elts) == len(node.value.elts):
                    pairs = list(zip(target.elts, node.value.elts, strict=True))
                else:
                    pairs = [(target, node.value)]
                for one, value in pairs:
                    attribute = self.attribute_of_me(one)
                    if attribute is not None:
                        yield attribute, value, node
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in CONTAINER_METHODS):
            attribute = self.attribute_of_me(node.func.value)
            if attribute is not None:
                for argument in node.args:
                    yield attribute, argument, node
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "setattr" and len(node.args) == 3
                and isinstance(node.args[0], ast.Name) and node.args[0].id == self.me):
            label = node.args[1]
            name = label.value if isinstance(label, ast.Constant) else "<name>"
            yield str(name), node.args[2], node


# ---- the fix --------------------------------------------------------------------------------

def _add_weight_fix(module: ModuleContext, method: FunctionInfo, me: str,
                    creation: ast.Call) -> Fix | None:
    """`tf.Variable(0.1, trainable=True, name="b")` →
    `self.add_weight(name="b", shape=(), initializer=Constant(0.1), trainable=True)`, only for a
    Python number (its shape and initializer are then known)."""
    keywords = {k.arg: k.value for k in creation.keywords}
    if None in keywords or not set(keywords) <= FIXABLE_KEYWORDS or len(creation.args) > 1:
        return None
    initial = creation.args[0] if creation.args else keywords.get("initial_value")
    number = _number(initial)
    if initial is None or number is None:
        return None
    if method.name not in ("__init__", "build"):
        return None  # Keras 3 refuses new variables once the layer is built
    if method.name == "__init__" and not _after_super_init(method, creation):
        return None  # add_weight needs the Layer initialised
    name = keywords.get("name")
    if isinstance(name, ast.Constant) and (not isinstance(name.value, str) or "/" in name.value):
        return None  # Keras 3 rejects '/' in variable names
    if number == 0:
        initializer = '"zeros"'
    elif number == 1:
        initializer = '"ones"'
    else:
        initializers = name_for(module, "keras.initializers", through_tf=False)
        keras = name_for(module, "keras")
        if initializers is None and keras is not None:
            initializers = f"{keras}.initializers"
        if initializers is None:
            return None
        initializer = f"{initializers}.Constant({module.source.segment(initial)})"
    segment = module.source.segment
    parts = []
    if name is not None:
        parts.append(f"name={segment(name)}")
    parts += ["shape=()", f"initializer={initializer}"]
    if "trainable" in keywords:
        parts.append(f"trainable={segment(keywords['trainable'])}")
    if "dtype" in keywords:
        parts.append(f"dtype={segment(keywords['dtype'])}")
    elif isinstance(number, int):
        parts.append('dtype="int32"')  # tf.Variable(0) is int32; add_weight defaults to float
    return Fix(
        description="Create it with `add_weight` so Keras 3 tracks, trains and saves it",
        edits=(Edit(module.span(creation), f"{me}.add_weight({', '.join(parts)})"),),
    )


def _not_trainable(creation: ast.Call) -> bool:
    flag = next((k.value for k in creation.keywords if k.arg == "trainable"), None)
    return isinstance(flag, ast.Constant) and flag.value is False


def _number(node: ast.AST | None) -> int | float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _number(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if (isinstance(node, ast.Constant) and isinstance(node.value, int | float)
            and not isinstance(node.value, bool)):
        return node.value
    return None


def _after_super_init(method: FunctionInfo, creation: ast.Call) -> bool:
    for node in method.calls:
        if (isinstance(node.func, ast.Attribute)
                and node.func.attr == "__init__" and node.lineno < creation.lineno):
            return True
    return False


def _tracks_tf1_variables(module: ModuleContext, method: FunctionInfo) -> bool:
    """`@tf.compat.v1.keras.utils.track_tf1_style_variables` manages the variables itself."""
    return any(
        (module.qualname(callee(d)) or "").endswith("track_tf1_style_variables")
        for d in method.decorators
    )
