"""What a class's methods store on `self`, for the rules that ask about instance attributes
(TFI001, TFI003, TFI006, TFI013; not a rule).

`attribute_stores(module, cls)` maps each attribute name to its stores (`self.name = value`
in any method, in source order); `variable_value` says whether a value makes a variable
(`tf.Variable(...)`, `self.add_weight(...)`, `keras.Variable(...)`), `makes_keras_layer`
whether it makes a Keras layer (calling it gives a tensor), `never_read` whether the module names
an attribute only in the statements that store it.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import ClassInfo, FunctionInfo, self_attribute
from tf_insight.check.names import keras_class_kind
from tf_insight.check.shared import Shared

# Canonical names (every Keras spelling is `keras.…`: tf_insight.check.imports).
VARIABLES = frozenset({
    "tensorflow.Variable", "tensorflow.compat.v1.Variable", "keras.Variable",
    "keras.backend.Variable", "keras.backend.variable",
})
VARIABLE_FACTORIES = VARIABLES | {"tensorflow.compat.v1.get_variable"}
# a variable's methods that update it in place
VARIABLE_ASSIGNS = frozenset({"assign", "assign_add", "assign_sub"})
WEIGHT_METHODS = frozenset({"add_weight", "add_variable"})


@dataclass(frozen=True)
class AttributeStore:
    method: FunctionInfo
    statement: ast.stmt
    value: ast.expr | None  # None: an augmented assignment's target, or a `del`


ATTRIBUTE_STORES: Shared[dict[int, dict[str, list[AttributeStore]]]] = Shared("attribute stores")


def attribute_stores(module: ModuleContext, cls: ClassInfo) -> dict[str, list[AttributeStore]]:
    """`self.<name> = ...` in the methods of `cls`, by name (once per class)."""
    tables = module.shared(ATTRIBUTE_STORES, dict)
    found = tables.get(id(cls))
    if found is None:
        found = tables[id(cls)] = {}
        for method in cls.methods.values():
            for node in method.nodes.of(ast.Assign, ast.AugAssign, ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = None if isinstance(node, ast.AugAssign) else node.value
                for target in targets:
                    name = self_attribute(target)
                    if name is not None:
                        found.setdefault(name, []).append(AttributeStore(method, node, value))
    return found


def makes_keras_layer(module: ModuleContext, value: ast.AST | None) -> bool:
    """Whether `value` constructs a Keras layer or model (`keras.layers.Dense(4)`, a layer
    class of this module)."""
    if not isinstance(value, ast.Call):
        return False
    qualname = module.qualname(value.func)
    if qualname is not None and keras_class_kind(qualname) in ("layer", "model"):
        return True
    if isinstance(value.func, ast.Name):
        cls = module.index.module_classes().get(value.func.id)
        return cls is not None and module.keras_kind(cls) in ("layer", "model")
    return False


def variable_value(module: ModuleContext, value: ast.AST | None) -> bool:
    """Whether `value` makes a variable (a Keras weight, a `tf.Variable`)."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr in WEIGHT_METHODS:
        return True
    return module.qualname(func) in VARIABLE_FACTORIES


ATTRIBUTE_READS: Shared[dict[str, int]] = Shared("attribute names outside their own stores")


def never_read(module: ModuleContext, attribute: str) -> bool:
    """`self.nb_train += 1` where the module names `.nb_train` only in statements that store it
    (`self.nb_train = 0` in `__init__`, the update itself) and never as a string
    (`getattr(self, "nb_train")`): state nothing reads, so that it stops at the first trace
    changes nothing anyone sees."""
    if f'"{attribute}"' in module.source.text or f"'{attribute}'" in module.source.text:
        return False
    return module.shared(ATTRIBUTE_READS, lambda: _attribute_reads(module)).get(attribute, 0) == 0


def _attribute_reads(module: ModuleContext) -> dict[str, int]:
    """How often the module names each attribute outside the statements that store it (one
    walk of the module)."""
    named: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Attribute):
            named[node.attr] += 1
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            stored = {t.attr for t in targets if isinstance(t, ast.Attribute)}
            own.update(part.attr for part in ast.walk(node)
                       if isinstance(part, ast.Attribute) and part.attr in stored)
    return {attribute: count - own[attribute] for attribute, count in named.items()}
