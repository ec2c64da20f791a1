"""A Python side effect in traced code that the user expects at every step: printing or logging a
value, counting, accumulating, or keeping a tensor after the trace.

## What it does
Finds, inside a graph context (a `tf.function`, a Keras `call`/`train_step`, a loss or
metric, a `tf.data` function, or a helper called from one), the Python side effects whose
point is to happen at every step:
- `print(...)`, logging (`logging`, absl, `tf.get_logger()`, `logging.getLogger` loggers),
  `sys.stdout.write(...)` and file writes that show a **value**: a tensor, or what only running
  code knows (`tf.executing_eagerly()`, `.numpy()`, the time);
- **counting and accumulating**: `global n; n += 1`, `self.calls += 1`, `o.count += 1` on a
  `tf.function`'s parameter (the caller's object), `self.total = self.total + x`,
  `self.losses.append(loss)`, and a tensor written to an attribute the same call read before
  (`gap = self.threshold - y; self.threshold = tf.reduce_min(y)`: state from the last call;
  not when the call restores it afterwards), and, in tf-keras code, tensors one branch of a
  layer's `call` keeps on `self` for a later call's other branch to read (`if not restore:
  self.stats = (mean, std); return ...` then `mean, std = self.stats`: tf-keras traces each
  call apart to save a SavedModel, and the second reads the first's graph);
- a **tensor put into a container that outlives the trace** (`history.append(loss)`,
  `cache[k] = x` on module-level or enclosing-function containers, or a `tf.function`
  parameter's), or **kept on a Keras model by its traced step for a callback**
  (`self.last_batch = (y, y_pred)` in `train_step`, read as `self.model.last_batch` in
  `on_train_batch_end`), or given to `self.add_loss`/`self.add_metric` in a Keras layer's
  method the user decorates with `@tf.function` (the tensor belongs to that function's graph,
  and Keras's own traced step cannot read it: tensorflow/tensorflow#34556);
- a `tf.function` that **modifies a container it is given** (`features[name] = tf.cast(...)` on
  its own dict parameter, `found.append(x)` on its list, not a copy): TensorFlow checks, and
  tracing raises `ValueError: ... should not modify its Python input arguments`, in
  `Dataset.map` too (a plain function given to `map` may: its dict is made for the trace);
- any print, log or write under an `if`/`while` on a tensor that AutoGraph converts: it runs
  while tracing every branch, whatever the data (not a tf.function's parameter that every call
  gives a Python bool, `step(x, i == 0)`: that `if` is Python's, one trace per value).

Not reported: trace-time logging of what cannot change from step to step (constant text,
shapes, dtypes, names, devices, Python settings: TFI022, opt-in), code that cannot see a symbolic
tensor (see `tf_insight/check/guards.py`: under `with tf.init_scope():`,
`if tf.executing_eagerly():`, type guards), `tf.py_function` callbacks, writes to the
function's own locals, one-off warnings with constant text, a `nonlocal` counter of an
enclosing function that runs in the graph too and calls this one directly or through
`tf.nest` (`i = -1; def c2t(x): nonlocal i; i += 1`: the count starts anew at each call of
it, as written; not one given to `tf.while_loop`), a flag set once per trace
(`nonlocal first; first = False`) or `and`-ed with Python truth values (`self.frozen =
self.frozen and self.trainable`), a default filled in from what the trace knows
(`self.k = self.k if self.k else classes`, `classes` from a static shape), a tensor kept on `self` and read back within the same call,
a list on `self` made anew earlier in the same call and then appended to, a count on `self`
that nothing reads (`self.nb_train += 1` where the module names `.nb_train` only in the
statements that set it, and never as a string: nobody sees it stop), values that are
not tensors (modules, variables, shapes) put into outer containers, a variable of the class
stored itself on `self` (`self.mean = self.moving_mean`: a reference, whose value each later
read sees as it is then), and, in tf-keras code,
`self.total = self.total.assign_add(x)` (a `tf.Variable`'s `assign_add` returns the variable;
Keras 3's returns a tensor, which then replaces the variable), and a file opened to be read
(`open(path)`, `open(path, "rb")`: configuration read as the graph is built, the same at every
step). Logging in a serving
signature (a `tf.function` with a fixed `input_signature` that is returned by the function that
defines it, or given to `save(signatures=...)`) is trace-time logging too: it is traced once, at
export, and logs the structure of its inputs on purpose. A `print` whose own argument calls
`.numpy()` never prints while tracing (the argument raises first: TFI012 reports it). Nor is
a print, log or write in a test module (`test_*.py`, `*_test.py`): a test case runs once, and
a print in its traced function is its author's look at the trace (TFI022); a test's counter or
a tensor it keeps after the trace is reported.

## Why is this bad?
Python code in a graph function runs only while TensorFlow traces it — once, or once per
retrace — not at every step. A `print` shows up once with a symbolic `Tensor("add:0", ...)`
instead of values; a counter incremented with `global step; step += 1` stops at 1; a loss
appended to a Python list is a graph tensor that leaks out of the trace, and using it later
raises `TypeError: <tf.Tensor ...> is out of scope and cannot be used here`; a warning under
`if tf.reduce_any(x > limit):` is printed while tracing, whether or not any `x` is over.

## Example
```python
import tensorflow as tf

losses = []


@tf.function
def train_step(x):
    loss = tf.reduce_mean(x * x)
    print("loss", loss)
    losses.append(loss)
    return loss
```

## Use instead
```python
import tensorflow as tf

losses = []


@tf.function
def train_step(x):
    loss = tf.reduce_mean(x * x)
    tf.print("loss", loss)
    return loss


for batch in [tf.ones((2, 2))]:
    losses.append(float(train_step(batch)))
```

## References
- [tf.function: Python side effects](https://www.tensorflow.org/guide/function#executing_python_side_effects)
- [All outputs of a tf.function must be return values](https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values)
- [tf.print](https://www.tensorflow.org/api_docs/python/tf/print)
"""

from __future__ import annotations

from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.rules import Hit, Reads
from tf_insight.check.rules._side_effects import side_effects
from tf_insight.findings import Severity

CODE = "TFI006"
NAME = "trace-time-side-effect"
SEVERITY = Severity.WARNING
# a serving signature's log is trace-time logging; a callback's `self.model.x` reads what a
# traced step keeps
READS = Reads(calls=frozenset({"save"}), model_reads=True)


def check(module: ModuleContext) -> Iterator[Hit]:
    for effect in side_effects(module):
        if effect.per_step:
            yield Hit(effect.node, effect.message, fix=effect.fix, detail=effect.detail,
                      help=effect.help)
