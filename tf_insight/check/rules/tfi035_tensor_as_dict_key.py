"""A Python dict looked up with a tensor in traced code.

## What it does
Finds `table[key]`, `table.get(key)` and `key in table` in graph code (a `Dataset.map`
function, a `tf.function`, a Keras `call`, and helpers called from them) where `table` is a
Python dict — a name the module or the function binds to a dict literal, a dict comprehension
or `dict(...)` — and `key` is a tensor (a parameter graph mode fills with tensors, an item of
one, the result of a `tf.*` op: as TFI013 decides).

Not reported: dicts keyed by Python values (`table["stars"]`, `table[name]` with a string
parameter), dicts of tensors indexed by strings (the features of a `tf.data` element), and
lookups outside graph code.

## Why is this bad?
A dict hashes its key, and a tensor cannot be hashed: TensorFlow raises `TypeError: Tensor is
unhashable. Instead, use tensor.ref() as the key.` (TF 2.21). `tensor.ref()` does not help
either: it hashes the tensor's identity, not its value, so no entry matches. Called eagerly on
Python values the same function works, so a relabelling function that passes a quick test fails
once `Dataset.map` or `tf.function` traces it.

## Example
```python
import tensorflow as tf

STARS_TO_CLASS = {1: 0, 3: 1, 5: 2}


def relabel(stars):
    return STARS_TO_CLASS[stars]


labels = tf.data.Dataset.from_tensor_slices([1, 3, 5]).map(relabel)
```

## Use instead
```python
import tensorflow as tf

STARS_TO_CLASS = tf.lookup.StaticHashTable(
    tf.lookup.KeyValueTensorInitializer([1, 3, 5], [0, 1, 2]), default_value=-1)


def relabel(stars):
    return STARS_TO_CLASS.lookup(stars)


labels = tf.data.Dataset.from_tensor_slices([1, 3, 5]).map(relabel)
```

## References
- [tf.lookup.StaticHashTable](https://www.tensorflow.org/api_docs/python/tf/lookup/StaticHashTable)
- [tf.data: preprocessing with tf ops](https://www.tensorflow.org/guide/data#preprocessing_data)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import FunctionInfo, ScopeNodes
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import traced_expecting_error
from tf_insight.check.rules._tensors import tensor_facts
from tf_insight.check.shared import Shared
from tf_insight.findings import Severity

CODE = "TFI035"
NAME = "tensor-as-dict-key"
SEVERITY = Severity.ERROR
FAILS_TRACING = True  # TensorFlow raises while it traces the function
HOLDS_IN_TF1 = True  # TF 1.x tensors are unhashable too

MODULE_DICTS: Shared[frozenset[str]] = Shared("tfi035.module_dicts")


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("{", "dict("):
        return
    module_dicts = module.shared(MODULE_DICTS, lambda: _dict_names(module.index.module_nodes))
    for function, context in module.graph.focused_functions():
        if traced_expecting_error(module, context) or isinstance(function.node, ast.Lambda):
            continue
        local = _dict_names(function.nodes)
        dicts = (module_dicts - set(function.local_names)) | local
        if not dicts:
            continue
        for table, key in _lookups(function, dicts):
            facts = tensor_facts(module, function, context)
            if not facts.is_tensor(key) or _is_reference(key):
                continue
            text = module.source.segment(key)
            yield Hit(
                key,
                f"the Python dict `{table}` is looked up with the tensor `{text}` in "
                f"`{function.qualname}`",
                detail=f"a dict hashes its key, and a tensor cannot be hashed: while "
                f"`{function.qualname}` is traced ({context.reason}) this raises `TypeError: "
                "Tensor is unhashable`",
                help="make the table a `tf.lookup.StaticHashTable` (`.lookup(key)`), or index "
                "a tensor of the values with `tf.gather`")


def _dict_names(nodes: ScopeNodes) -> frozenset[str]:
    """The names a scope binds to a dict and nothing else."""
    dicts: set[str] = set()
    others: set[str] = set()
    for statement in nodes.of(ast.Assign, ast.AnnAssign):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for target in targets:
            if isinstance(target, ast.Name):
                (dicts if _is_dict(statement.value) else others).add(target.id)
    return frozenset(dicts - others)


def _is_reference(key: ast.expr) -> bool:
    """`x.ref()`: a hashable reference to the tensor itself (a cache keyed by identity)."""
    return isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute) and (
        key.func.attr in ("ref", "experimental_ref"))


def _is_dict(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Dict | ast.DictComp) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
        and value.func.id == "dict")


def _lookups(function: FunctionInfo, dicts: frozenset[str] | set[str]
             ) -> Iterator[tuple[str, ast.expr]]:
    for node in function.nodes.of(ast.Subscript, ast.Call, ast.Compare):
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Name) and node.value.id in dicts and isinstance(
                    node.ctx, ast.Load):
                yield node.value.id, node.slice
        elif isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr == "get" and node.args
                    and isinstance(func.value, ast.Name) and func.value.id in dicts):
                yield func.value.id, node.args[0]
        elif (len(node.ops) == 1 and isinstance(node.ops[0], ast.In | ast.NotIn)
              and isinstance(node.comparators[0], ast.Name)
              and node.comparators[0].id in dicts):
            yield node.comparators[0].id, node.left
