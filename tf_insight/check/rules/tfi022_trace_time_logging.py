"""Printing or logging, in traced code, what is fixed at trace time (opt-in).

## What it does
Finds, inside a graph context (see TFI006), `print(...)`, logging, `sys.stdout.write(...)` and
file writes whose arguments cannot change from step to step: constant text, static shapes,
dtypes, names, devices, Python settings. They run once per trace. In a test module (`test_*.py`,
`*_test.py`), also those that show a tensor: a test case runs once, and a print in its traced
function is its author's look at the trace.

Off by default: in library and research code this is usually trace-time logging on purpose
(`logging.info("building head %s", name)`). Select `TFI022` to see it, for instance while
learning where your code runs in graph mode. Printing a value (a tensor), counting and
accumulating are TFI006.

## Why is this bad?
It is not, when it is meant to run once per trace. When it is meant to run at every step
(`print("epoch done")` in a `train_step`), it runs once, while `fit` traces the step, and
never again.

## Example
```python
import tensorflow as tf


@tf.function
def train_step(x):
    print("running a step")
    return x * 2
```

## Use instead
```python
import tensorflow as tf


@tf.function
def train_step(x):
    tf.print("running a step")
    return x * 2
```

## References
- [tf.function: Python side effects](https://www.tensorflow.org/guide/function#executing_python_side_effects)
- [tf.print](https://www.tensorflow.org/api_docs/python/tf/print)
"""

from __future__ import annotations

from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.rules import Hit, Reads
from tf_insight.check.rules._side_effects import side_effects
from tf_insight.findings import Severity

CODE = "TFI022"
NAME = "trace-time-logging"
SEVERITY = Severity.INFO
READS = Reads(calls=frozenset({"save"}))  # a serving signature's log is trace-time logging
DEFAULT = False  # opt-in: select TFI022


def check(module: ModuleContext) -> Iterator[Hit]:
    for effect in side_effects(module):
        if not effect.per_step and not effect.one_off:
            yield Hit(effect.node, effect.message, fix=effect.fix, detail=effect.detail,
                      help=effect.help)
