"""`model.predict(...)` called once per item of a Python loop.

## What it does
Finds calls of a Keras model's `predict` made on every iteration of a Python `for` or `while`
loop, or in a function that is called on every iteration of one: an image, a file's features, a
frame, a text per call. The model is one this module builds or loads (`keras.Sequential`,
`keras.Model`, a subclass of it, a `keras.applications` model, `keras.models.load_model`), bound
to the name `predict` is called on, or stored on `self` by its class (`self.model.predict(x)` in
a method called in a loop); or a parameter of the function, when the call passes `verbose=`,
which Keras's `predict` takes and scikit-learn's, XGBoost's and LightGBM's do not, on an input
visibly made one sample (`def generate(model, tokens): ... model.predict(np.array([tokens[-8:]]),
verbose=0)`, the model built in another module; not in a module that imports CatBoost,
Ultralytics or PyTorch, whose `predict` takes it too).

Not reported: a name also bound to another library's model (`clf = joblib.load(path)` beside
`clf = keras.models.load_model(path)`: which `predict` runs depends on the branch), loops over a
short literal (`for x in (a, b)`, or a module constant holding one) or over values typed in
the code, however many (`for prefix in ("the ", "i will ", "she was", ...)`: a demo's examples;
also where such a loop calls the function that predicts),
loops over models (`for model in models: model.predict(x)`: a new model each time), loops over
a `tf.data` dataset (`for x, y in test_ds:`, also one a function of the module returns, alone
or in a tuple, or its `as_numpy_iterator()`: each element is a batch, as Keras's dataset
utilities and `.batch` make them, and one
`predict` per batch is what predict is for), loops whose target names the batches they hand
out (`for x_batch, y_batch in loader: model.predict(x_batch)`) or over what a call asked for a
batch size made (`for inputs in make_batches(rows, batch_size=64)`, or a name bound to it: a
generator of batches, a Keras `Sequence`), a `predict` of what a generator's `next` gives,
unpacked into inputs and targets (`x, _ = next(gen)`: a Keras-style generator of batches), a
`predict` given a
`batch_size` other than 1 (its caller expects many samples per input, split into batches),
a `predict` on a range of rows (`subset = images[start:end]`, `stack[z0:z1, y:y + n]`,
`sparse[start:end].toarray()`: a chunk of many samples per call; not a few rows by a written
width, `x[i:i + 8]`),
loops that also train (`fit`,
`train_on_batch`, itself or through a function of the module: one `predict` per epoch, update
interval or trained model, next to the training, also when the `predict` is in a function the
loop calls; not a loop that unpacks one stored sample per iteration, as an experience replay's
does), `predict` in code that runs in a graph, loops that wait for the user (`input(...)`
next to the `predict`, or to the call of the function that makes it) or are paced by slower
work next to it at every step (a recording from the microphone, `time.sleep`, a saved figure:
the `predict`'s set-up is a small share of the iteration), `predict` on a batch an inner loop
fills row by row just before (`batch[j] = ...`, or `rows.append(row)` and then
`np.array(rows)`, for each of many rows), test modules (`test_*.py`, `*_test.py`: the cost
is at scale, a test makes a few calls), and projects that pin TensorFlow 1.x (a session runs
the predict function Keras builds once, with no pipeline per call, and `model(x)` there would
add ops to the graph at every call; TF 1.x names in a project on TF 2 change nothing).

## Why is this bad?
`predict` is made for a large input split into batches: each call wraps its input in a new
data pipeline and iterator, runs Keras's predict function step by step and collects the
results back into NumPy. On one small input per call that set-up is most of the time: on
TF 2.21 (Keras 3), 300 calls on 1-200 rows took ~43 ms each against ~0.8 ms for `model(x)`,
and the process grew by ~29 MB (`bench/precision/checks/predict_per_item_in_loop.py`). Users
report scripts that slow down and run out of memory this way. Keras's own docs say to call the
model directly on inputs that fit in one batch.

## Example
```python
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((16,)), tf.keras.layers.Dense(1)])
images = [np.random.rand(1, 16).astype("float32") for _ in range(1000)]

scores = []
for image in images:
    scores.append(model.predict(image, verbose=0))
```

## Use instead
```python
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((16,)), tf.keras.layers.Dense(1)])
images = [np.random.rand(1, 16).astype("float32") for _ in range(1000)]

scores = []
for image in images:
    scores.append(model(image, training=False).numpy())
# or, when every input is at hand first: one call on all of them
scores = model.predict(np.concatenate(images), verbose=0)
```

## References
- [keras.Model.predict](https://keras.io/api/models/model_training_apis/#predict-method)
  ("for small numbers of inputs that fit in one batch, directly use `__call__()`")
- [Keras FAQ: what's the difference between `predict()` and `__call__()`?](https://keras.io/getting_started/faq/#whats-the-difference-between-model-methods-predict-and-call)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.imports import keyword
from tf_insight.check.index import FunctionInfo, ScopeNodes, self_attribute
from tf_insight.check.rules import Hit
from tf_insight.check.rules._attributes import attribute_stores
from tf_insight.check.rules._keras import (
    makes_keras_model,
    model_bindings,
    trains,
    trains_each_iteration,
)
from tf_insight.check.rules._tf_functions import (
    Loop,
    Scope,
    bounded_loop,
    called_in_loop,
    derived_from,
    enclosing_loops,
    literal_behind,
    waits_each_step,
)
from tf_insight.findings import Related, Severity

CODE = "TFI023"
NAME = "predict-in-loop"
SEVERITY = Severity.WARNING
HOLDS_IN_TF1 = True  # about how Keras is used, the same in TF 1.x code

# libraries whose models' `predict` takes `verbose=` as Keras's does
VERBOSE_PREDICTORS = ("catboost", "ultralytics", "torch", "lightning", "pytorch_lightning",
                      "autogluon", "darts")
# a chunk this wide or narrower is a handful of rows: the set-up of a predict per chunk counts
FEW_ROWS = 64
# Methods that return the same rows in another array: a sparse slice densified, a cast, a copy.
SAME_ROWS = frozenset({"toarray", "todense", "astype", "copy"})
# what else makes or loads a model with a `predict`: another library's, or unpickled
OTHER_MODELS = ("joblib.", "pickle.", "dill.", "cloudpickle.", "sklearn.", "xgboost.",
                "lightgbm.", "catboost.", "torch.")


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("predict") or module.test_module or module.pinned_tensorflow_1:
        return
    for call, scope in module.focused_calls():
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "predict") or (
                module.graph.in_graph(scope) is not None):
            continue
        if isinstance(func.value, ast.Name):
            receiver = func.value.id
            if not (_is_model(module, receiver, scope)
                    or _given_keras_model(module, call, receiver, scope)):
                continue
        elif (attribute := _model_attribute(module, func.value, scope)) is not None:
            receiver = f"self.{attribute}"
        else:
            continue
        loops = enclosing_loops(module, call)
        if isinstance(func.value, ast.Name) and _made_each_time(module, receiver, scope, loops):
            continue  # a new model each time: TFI027's
        if loops:
            loop = loops[0]
            if _per_item(module, loop, receiver) and not (
                    _assembled_batch(call, loop) or _over_dataset(module, loop, scope)
                    or _named_batch(call, loop) or _from_batcher(module, loop, scope)
                    or _next_batch(call, loop) or waits_each_step(module, call, loop)
                    or _split_into_batches(call) or _chunk_of_rows(module, call, scope)):
                yield _in_loop(module, call, loop)
        elif scope is not None and not (trains(scope.calls) or _split_into_batches(call)
                                        or _chunk_of_rows(module, call, scope)):
            repeated = called_in_loop(module, scope)
            if repeated is not None and not _site_spared(module, repeated[0]):
                yield _in_repeated_function(module, call, scope, repeated)


def _is_model(module: ModuleContext, name: str, scope: Scope) -> bool:
    """Whether `name` is bound to a Keras model here (in the scope, or at module level when the
    scope does not bind it), and to no other library's model (`clf = joblib.load(path)` in the
    branch for scikit-learn models: the `predict` may be theirs)."""
    owner = _owner(name, scope)
    if name not in model_bindings(module, owner):
        return False
    nodes = owner.nodes if owner is not None else module.index.module_nodes
    return not any(isinstance(assign.value, ast.Call) and (
        module.qualname(assign.value.func) or "").startswith(OTHER_MODELS)
        for assign in nodes.assignments_to(name))


def _given_keras_model(module: ModuleContext, call: ast.Call, name: str, scope: Scope) -> bool:
    """`model.predict(x, verbose=0)` on one sample, where `model` is a parameter of the
    function (a model its caller built or loaded, often in another module; not `self`):
    `verbose=` is Keras's `predict`'s (scikit-learn's, XGBoost's and LightGBM's take none), in
    a module that imports Keras or TensorFlow and none of the libraries whose models' `predict`
    takes it too. Only on an input made one sample (`_one_sample`): what such a function is
    given per call is not known otherwise, and a batch per call is what predict is for."""
    return (scope is not None and name in scope.parameter_names[scope.cls is not None:]
            and keyword(call, "verbose") is not None
            and module.imports.uses_tensorflow_or_keras
            and not module.imports.imports_any(*VERBOSE_PREDICTORS)
            and _one_sample(call, scope))


def _one_sample(call: ast.Call, scope: FunctionInfo) -> bool:
    """The input (an element of it, for a model of several inputs), or a name of the function
    it is made from, is visibly one sample: `x.reshape((1, n))`, `np.expand_dims(x, 0)`,
    `x[None]`, `x[np.newaxis, ...]`, `np.array([x])`, `pad_sequences(seqs([text]))`."""
    return any(_makes_one_sample(part) for node in _made_from(call, scope.nodes)
               for part in ast.walk(node))


def _made_from(call: ast.Call, nodes: ScopeNodes) -> Iterator[ast.expr]:
    """The `predict`'s input, then what the scope assigns to each name it is made from, and so
    on (each name followed once)."""
    given = call.args[0] if call.args else keyword(call, "x")
    seen: set[str] = set()
    todo = [given] if given is not None else []
    while todo:
        node = todo.pop()
        yield node
        for part in ast.walk(node):
            if isinstance(part, ast.Name) and part.id not in seen:
                seen.add(part.id)
                todo.extend(assign.value for assign in nodes.assignments_to(part.id)
                            if assign.value is not None)


def _makes_one_sample(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        func = node.func
        last = func.attr if isinstance(func, ast.Attribute) else (
            func.id if isinstance(func, ast.Name) else "")
        if last == "expand_dims":
            return True
        if last == "reshape" and node.args:
            shape = node.args[0]  # x.reshape((1, n)), x.reshape(1, n)
            if not isinstance(shape, ast.Tuple | ast.List | ast.Constant) and len(node.args) > 1:
                shape = node.args[1]  # np.reshape(x, (1, n))
            if isinstance(shape, ast.Tuple | ast.List) and shape.elts:
                shape = shape.elts[0]
            if isinstance(shape, ast.Constant) and shape.value == 1:
                return True
        return any(isinstance(a, ast.List | ast.Tuple) and len(a.elts) == 1 for a in node.args)
    if isinstance(node, ast.Subscript):
        first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts \
            else node.slice
        return (isinstance(first, ast.Constant) and first.value is None) or (
            isinstance(first, ast.Attribute) and first.attr == "newaxis")
    return False


def _chunk_of_rows(module: ModuleContext, call: ast.Call, scope: Scope) -> bool:
    """The input is a range of rows, or a name bound to one in the same scope
    (`subset = images[start:end]`, `tile = stack[z0:z1, y:y + n, x:x + n]`, then
    `model.predict(subset)`): many samples per call, as predict expects; not one row
    (`x[i:i + 1]`), nor anything the way to it makes one sample (`crop = frame[100:324]`, then
    `crop.reshape(1, 32, 32, 3)`: pixels of one image)."""
    nodes = scope.nodes if scope is not None else module.index.module_nodes
    sources = list(_made_from(call, nodes))
    if any(_makes_one_sample(part) for node in sources for part in ast.walk(node)):
        return False
    return any(_range_of_rows(module, node, nodes) for node in sources)


def _range_of_rows(module: ModuleContext, node: ast.expr, nodes: ScopeNodes) -> bool:
    """`images[start:end]`, `stack[z0:z1, y:y + n]`, also with an axis added at the end or
    turned into another array of the same rows (`sparse[start:end].toarray()`)."""
    while True:
        if isinstance(node, ast.Subscript) and _rows_of_new_axis(node):
            node = node.value  # `tile[..., None]`: the same rows, a channel added
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in SAME_ROWS:
            node = node.func.value  # `.toarray()`: the same rows, dense
        else:
            break
    if not isinstance(node, ast.Subscript):
        return False
    first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts \
        else node.slice
    return isinstance(first, ast.Slice) and _many_rows(module, first, nodes)


def _rows_of_new_axis(node: ast.Subscript) -> bool:
    """`x[..., None]`, `x[..., np.newaxis]`: every row kept, an axis added at the end."""
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return bool(parts) and isinstance(parts[0], ast.Constant) and parts[0].value is Ellipsis


def _many_rows(module: ModuleContext, part: ast.Slice, nodes: ScopeNodes) -> bool:
    """`start:end`, `i * size:(i + 1) * size`: both ends given, and not a few rows by a
    written width (`i:i + 1`, `i:i + 8`, `i:i + step` with `step = 8`: `FEW_ROWS` or fewer,
    a predict's set-up per handful of rows)."""
    if part.lower is None or part.upper is None or part.step is not None:
        return False
    upper, lower = part.upper, part.lower
    if isinstance(upper, ast.Constant) and isinstance(lower, ast.Constant) and isinstance(
            upper.value, int) and isinstance(lower.value, int):
        return upper.value - lower.value > FEW_ROWS  # `x[0:8]`
    if not (isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Add)):
        return True
    width = upper.right
    if isinstance(width, ast.Name):
        bound = nodes.assignments_to(width.id) or module.index.module_nodes.assignments_to(
            width.id)
        width = bound[0].value if len(bound) == 1 and bound[0].value is not None else width
    return not (isinstance(width, ast.Constant) and isinstance(width.value, int)
                and width.value <= FEW_ROWS)


def _model_attribute(module: ModuleContext, node: ast.expr, scope: Scope) -> str | None:
    """`model` for `self.model` in a method, where the class's methods store a Keras model
    in it (and nothing else)."""
    attribute = self_attribute(node)
    if attribute is None or scope is None or scope.cls is None:
        return None
    stores = attribute_stores(module, scope.cls).get(attribute, [])
    if stores and all(store.value is not None and makes_keras_model(module, store.value)
                      for store in stores):
        return attribute
    return None


def _owner(name: str, scope: Scope) -> Scope:
    return scope if scope is not None and name in scope.local_names else None


def _made_each_time(module: ModuleContext, name: str, scope: Scope, loops: list[Loop]) -> bool:
    """The model is made anew where `predict` runs: in the same loop, or in the same function
    when no loop of it repeats the call (the function is called in one)."""
    owner = _owner(name, scope)
    for assign in model_bindings(module, owner).get(name, []):
        if not loops and owner is not None:
            return True
        if loops and loops[0] in enclosing_loops(module, assign):
            return True
    return False


def _per_item(module: ModuleContext, loop: Loop, receiver: str) -> bool:
    """A loop that predicts on new data each time: not a handful of literal values, not a loop
    over models, not an epoch loop that also trains."""
    if _over_records(loop):
        return True  # one stored sample per iteration (from `self.memory` too), trained on or not
    if bounded_loop(module, loop) or _over_typed_values(module, loop) or receiver in loop.bound:
        return False
    return not trains_each_iteration(module, loop)


def _over_dataset(module: ModuleContext, loop: Loop, scope: Scope) -> bool:
    """`for x, y in test_ds:` over a `tf.data` dataset (or a comprehension over one): one
    batch per iteration; also over its
    elements as NumPy (`test_ds.as_numpy_iterator()`, `tfds.as_numpy(test_ds)`) or an
    iterator of it (`iter(test_ds)`)."""
    iterable = loop.iter
    if iterable is None:
        return False
    if isinstance(iterable, ast.Call) and len(iterable.args) <= 1:
        func = iterable.func
        if isinstance(func, ast.Attribute) and func.attr == "as_numpy_iterator" and (
                not iterable.args):
            iterable = func.value
        elif iterable.args and ((isinstance(func, ast.Name) and func.id == "iter") or (
                module.qualname(func) == "tensorflow_datasets.as_numpy")):
            iterable = iterable.args[0]
    return module.is_dataset(iterable, scope)


def _named_batch(call: ast.Call, loop: Loop) -> bool:
    """`for x_batch, y_batch in loader: model.predict(x_batch)`: the loop hands out what its
    author calls batches (a `keras.utils.Sequence`, a generator of batches), one per call;
    also what the body takes from one (`for batch in loader: x, y = batch`)."""
    given = call.args[0] if call.args else None
    while isinstance(given, ast.Subscript):
        given = given.value
    node = loop.node
    if not (isinstance(given, ast.Name) and isinstance(node, ast.For | ast.AsyncFor)):
        return False
    batches = {name for name in loop.targets if "batch" in name.lower()}
    return given.id in derived_from(loop.body_nodes, batches)


SAMPLERS = frozenset({"sample", "choice", "choices"})  # k items drawn, handed out one by one


def _from_batcher(module: ModuleContext, loop: Loop, scope: Scope) -> bool:
    """`for inputs in batches: model.predict(inputs)` where `batches` is what a call asked for
    a batch size made (`make_batches(rows, batch_size=64)`, `gen, _ = make_input(data,
    batch_size)`: a generator of batches, a Keras `Sequence`), or that call itself: one
    `predict` per batch."""
    iterable = loop.iter
    if isinstance(iterable, ast.Name):
        nodes = scope.nodes if scope is not None else module.index.module_nodes
        made = [a.value for a in nodes.of(ast.Assign)  # also `gen, _ = make(...)`
                if _binds(a, iterable.id)]
    else:
        made = [iterable] if iterable is not None else []
    return bool(made) and all(isinstance(value, ast.Call) and _asks_batch_size(value)
                              for value in made)


def _next_batch(call: ast.Call, loop: Loop) -> bool:
    """`x, _ = next(gen)` then `model.predict(x)` in the loop: what `next` gives, unpacked into
    inputs and targets, is the next batch of a Keras-style data generator."""
    given = call.args[0] if call.args else None
    if not isinstance(given, ast.Name):
        return False
    last = max((node for node in loop.body_nodes if isinstance(node, ast.Assign)
                and node.lineno < call.lineno and _binds(node, given.id)),
               key=lambda node: node.lineno, default=None)
    return last is not None and isinstance(last.value, ast.Call) and isinstance(
        last.value.func, ast.Name) and last.value.func.id == "next" and len(last.targets) == 1 and (
        isinstance(last.targets[0], ast.Tuple) and len(last.targets[0].elts) >= 2)


def _binds(assign: ast.Assign, name: str) -> bool:
    """Whether the assignment binds `name`, alone or unpacked (`x, _ = ...`)."""
    return any(isinstance(n, ast.Name) and n.id == name for t in assign.targets
               for n in ast.walk(t))


def _asks_batch_size(call: ast.Call) -> bool:
    """`batch_size=n` with `n` not 1, or a batch size passed by name (`f(data, batch_size)`);
    not a draw of that many items (`random.sample(memory, batch_size)`: one item at a time)."""
    func = call.func
    if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in SAMPLERS:
        return False
    size = keyword(call, "batch_size")
    if size is not None:
        return not (isinstance(size, ast.Constant) and size.value in (1, None))
    return any(isinstance(argument, ast.Name) and argument.id.lower().endswith("batch_size")
               for argument in call.args)


def _split_into_batches(call: ast.Call) -> bool:
    """`predict(x, batch_size=n)` with `n` not 1: the caller expects each input to hold many
    samples, which predict splits into batches of `n`; its set-up is paid once per many."""
    size = keyword(call, "batch_size")
    return size is not None and not (isinstance(size, ast.Constant) and size.value in (1, None))


def _site_spared(module: ModuleContext, site: ast.AST) -> bool:
    """The loop that calls the function holding `predict` is not one per item: it asks the
    user or does slower work at every step (`sentence = input(); bot.answer(sentence)`),
    trains a model on every iteration (`for name, model in architectures.items(): train(model,
    ...); compare(model, x_val)`: one `predict` per training run), or goes over values typed in
    the code (`for prefix in ("the ", "i will ", ...): suggest(model, prefix)`)."""
    loops = enclosing_loops(module, site)
    if not loops:
        return False
    return ((isinstance(site, ast.Call) and waits_each_step(module, site, loops[0]))
            or trains_each_iteration(module, loops[0]) or _over_typed_values(module, loops[0]))


def _over_typed_values(module: ModuleContext, loop: Loop) -> bool:
    """`for prefix in ("the ", "i will ", "she was", ...)`: a loop over values typed in the
    code (constants, or tuples of them; a module constant holding them too), however many: a
    demo's handful of examples, each predicted once."""
    if loop.iter is None:
        return False
    iterable = literal_behind(module, loop.iter)
    items = iterable.keys if isinstance(iterable, ast.Dict) else (
        iterable.elts if isinstance(iterable, ast.List | ast.Tuple | ast.Set) else None)
    if not items:
        return False
    return all(isinstance(item, ast.Constant) or (isinstance(item, ast.Tuple) and all(
        isinstance(part, ast.Constant) for part in item.elts)) for item in items)


def _over_records(loop: Loop) -> bool:
    """`for state, action, reward, next_state, done in sample:`: each iteration unpacks one
    stored sample (an experience replay), not an epoch or a batch."""
    node = loop.node
    return (isinstance(node, ast.For | ast.AsyncFor) and isinstance(node.target, ast.Tuple)
            and len(node.target.elts) >= 3
            and not (isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
                     and node.iter.func.id in ("enumerate", "zip")))


def _assembled_batch(call: ast.Call, loop: Loop) -> bool:
    """`predict` is given a batch that an inner loop of this iteration fills row by row
    (`batch[j, ...] = ...`, or `rows.append(row)` and then `np.array(rows)`, then
    `model.predict(batch)`): one call per many rows."""
    given = call.args[0] if call.args else None
    names = _rows_of(given)
    if not names:
        return False
    body = loop.node.body if isinstance(loop.node, ast.For | ast.AsyncFor | ast.While) else []
    for node in (n for statement in body for n in ast.walk(statement)):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id in names for t in node.targets):
            names |= _rows_of(node.value)  # `good = batch[mask]`, `batch = np.array(rows)`
    return any(_fills(node, names)
               for inner in (n for statement in body for n in ast.walk(statement))
               if isinstance(inner, ast.For | ast.AsyncFor | ast.While)
               for node in ast.walk(inner))


def _rows_of(node: ast.expr | None) -> set[str]:
    """The name whose rows `node` holds: `batch`, `batch[mask]`, `np.array(rows)`."""
    if isinstance(node, ast.Call) and len(node.args) == 1:
        node = node.args[0]
    elif isinstance(node, ast.Subscript):
        node = node.value
    return {node.id} if isinstance(node, ast.Name) else set()


def _fills(node: ast.AST, names: set[str]) -> bool:
    """`batch[j] = row` or `rows.append(row)` on one of `names`."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
        target = node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "append":
        target = node.func.value
    else:
        return False
    return isinstance(target, ast.Name) and target.id in names


def _advice() -> tuple[str, str]:
    return ("each call sets up a data pipeline, an iterator and Keras's step loop for its input, "
            "which on one item costs tens of milliseconds (model(x) takes about one), and the "
            "process grows call after call",
            "call the model directly (`model(x, training=False)`) on inputs that fit in one "
            "batch, or predict once on all the items")


def _in_loop(module: ModuleContext, call: ast.Call, loop: Loop) -> Hit:
    detail, help_ = _advice()
    return Hit(call, f"`{module.source.segment(call.func)}(...)` runs on every iteration of "
               f"`{loop.header(module)}`", detail=detail, help=help_)


def _in_repeated_function(module: ModuleContext, call: ast.Call, scope: Scope,
                          repeated: tuple[ast.AST, str]) -> Hit:
    assert scope is not None
    site, why = repeated
    detail, help_ = _advice()
    return Hit(call, f"`{module.source.segment(call.func)}(...)` runs on every call of "
               f"`{scope.qualname}`, which is {why}",
               related=(Related(module.path, module.span(site),
                                f"`{scope.qualname}` runs repeatedly"),),
               detail=detail, help=help_)
