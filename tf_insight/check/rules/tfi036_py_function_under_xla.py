"""`tf.py_function`/`tf.numpy_function` in a function compiled with XLA (`jit_compile=True`).

## What it does
Finds calls of `tf.py_function`, `tf.numpy_function` and `tf.compat.v1.py_func` in a
`tf.function` made with `jit_compile=True` (`@tf.function(jit_compile=True)`, or
`tf.function(step, jit_compile=True)`), and in the module's functions it calls (a few calls
deep).

Not reported: the same calls in a `tf.function` without `jit_compile` (they run, in Python, at
each step), and functions compiled elsewhere (Keras's `compile(jit_compile=True)` is not
followed).

## Why is this bad?
XLA compiles the whole function to device code and has no kernel for a call back into Python:
the first call fails with `InvalidArgumentError: Detected unsupported operations when trying to
compile graph ... EagerPyFunc` (TF 2.21; `PyFunc` for `numpy_function`). The same step without
`jit_compile` works, so switching XLA on for speed breaks a training loop that ran.

## Example
```python
import numpy as np
import tensorflow as tf


def median_of(values):
    return np.float32(np.median(values.numpy()))


@tf.function(jit_compile=True)
def scaled(values):
    return values / tf.py_function(median_of, [values], tf.float32)
```

## Use instead
```python
import tensorflow as tf


@tf.function(jit_compile=True)
def scaled(values):
    ordered = tf.sort(values)
    return values / ordered[tf.size(values) // 2]
```

## References
- [XLA](https://www.tensorflow.org/xla)
- [tf.function jit_compile](https://www.tensorflow.org/api_docs/python/tf/function)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._tf_functions import reached_functions, tf_function_calls
from tf_insight.findings import Related, Severity

CODE = "TFI036"
NAME = "py-function-under-xla"
SEVERITY = Severity.ERROR

PYTHON_CALLS = frozenset({"tensorflow.py_function", "tensorflow.numpy_function",
                          "tensorflow.compat.v1.py_func", "tensorflow.compat.v1.py_function",
                          "tensorflow.compat.v1.numpy_function"})


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("jit_compile") or not module.mentions("py_func", "numpy_function"):
        return
    reported: set[ast.AST] = set()
    for compiled, origin in _compiled_functions(module):
        for function in reached_functions(module, compiled):
            for call in function.calls:
                if call in reported or not module.refers_to(call.func, PYTHON_CALLS):
                    continue
                reported.add(call)
                op = module.source.segment(call.func)
                through = "" if function is compiled else f" (through `{function.qualname}`)"
                yield Hit(
                    call,
                    f"`{op}` runs in `{compiled.qualname}`, which is compiled with XLA "
                    f"(`jit_compile=True`){through}",
                    related=(Related(module.path, module.span(origin),
                                     "jit_compile=True here"),),
                    detail="XLA has no kernel for a call back into Python: the first call fails "
                    "with `InvalidArgumentError: Detected unsupported operations when trying to "
                    "compile graph ... EagerPyFunc`",
                    help="write the computation with TensorFlow ops, or leave this function "
                    "out of `jit_compile` (compile the parts around it)")


def _compiled_functions(module: ModuleContext) -> Iterator[tuple[FunctionInfo, ast.AST]]:
    """Each function made a `tf.function` with `jit_compile=True`, with where it is said."""
    for function in module.index.functions:
        for decorator in function.decorators:
            if isinstance(decorator, ast.Call) and module.is_tf_function(decorator.func) and (
                    _jit_compiled(decorator)):
                yield function, decorator
    for call, scope in tf_function_calls(module):
        target = module.function_named(call.args[0], scope)
        if target is not None and _jit_compiled(
                call.func if isinstance(call.func, ast.Call) else call):
            yield target, call


def _jit_compiled(options: ast.Call) -> bool:
    """`tf.function(..., jit_compile=True)` (`experimental_compile=True` before TF 2.5)."""
    return any(k.arg in ("jit_compile", "experimental_compile")
               and isinstance(k.value, ast.Constant) and k.value.value is True
               for k in options.keywords)
