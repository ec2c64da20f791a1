"""A Keras model built (or loaded) anew on every iteration of a loop, only to be used.

## What it does
Finds a Keras model made — `keras.Sequential(...)`, `keras.Model(inputs, outputs)`, a subclass
of it, a `keras.applications` model, `load_model(...)`, or a function of the module that
returns one — and then used to compute (`model.predict(...)`, `model.evaluate(...)`,
`model(x)`), where the making runs on every iteration of a Python loop, or in a function
called on every iteration of one (a `classify(image)` helper that builds its model inside).

Not reported: a model that is trained where it is made (`fit`/`train_on_batch` on it: a sweep
over seeds or folds trains a new model each time on purpose), or made of one that is (`encoder =
Model(inputs, encoded)` beside the `autoencoder` trained on the same layers), a model made in a
loop whose every iteration trains one, itself or through a function of the module (greedy
layer-wise pretraining: `dae = train_autoencoder(x)`, then an encoder with its weights to
encode `x` for the next layer; its trace is a small share beside a whole fit), a model
made under a create-once guard in the loop (`if model is None: model = load_model(path)`: made
on the first iteration only) or by a function that keeps it (cached with `functools.lru_cache`,
or in a module variable it returns once set: `global _model; if _model is None: ...`), loops
over a literal list of settings (`for op in ["mul", "l1", "l2"]`: one model per variant; also a
few a module constant holds, `for name, load in DATASETS.items()`), code that runs in a graph,
models made but not used there (a call on `tf.zeros(...)` or `np.ones(...)` only builds the
weights, `x = block(x)` stacks a new block on the network being built: a model per layer),
models made (not loaded) and only called (`features = sub_model(x)`: called eagerly, a model
traces nothing, and making one from existing layers is cheap), a model loaded or made from
the loop's item (`for checkpoint in checkpoints: load_model(checkpoint)`, `for idx in convs:
Model(model.inputs, model.layers[idx].output)`: another model each time; one made, where the
loop itself is not repeated for each item of another), or
from what the loop computes from it (`meta = joblib.load(todo["meta"])`, then
`load_model(meta["model_file"])`), also in a function the loop calls with its item
(`forecast(canton)` loading `f"model_{label}.h5"`), a function an interactive loop calls
when someone asks (`choice = input()`, then `if choice == "2": show_results()`: made on
request, not per item), and test modules (`test_*.py`, `*_test.py`).

## Why is this bad?
Each new model traces its own predict (or call) function: the work a model does once is done
again for every item, and every traced graph is kept. TensorFlow warns `5 out of the last 5
calls to <function ...make_predict_function...> triggered tf.function retracing`, the loop is
many times slower than one model used throughout, and memory grows (TF 2.21, Keras 3: a helper
that builds its classifier per call, called 40 times, warns from the 5th call on).

## Example
```python
import numpy as np
import tensorflow as tf


def make_classifier():
    return tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(2)])


def classify(batch):
    classifier = make_classifier()
    return classifier.predict(batch, verbose=0)


for _ in range(100):
    classify(np.random.rand(4, 8))
```

## Use instead
```python
import numpy as np
import tensorflow as tf


def make_classifier():
    return tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(2)])


classifier = make_classifier()


def classify(batch):
    return classifier(batch, training=False).numpy()


for _ in range(100):
    classify(np.random.rand(4, 8))
```

## References
- [tf.function: controlling retracing](https://www.tensorflow.org/guide/function#controlling_retracing)
- [Keras FAQ: predict vs __call__](https://keras.io/getting_started/faq/#whats-the-difference-between-model-methods-predict-and-call)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._keras import (
    MODEL_LOADERS,
    TRAINING,
    model_bindings,
    trains_each_iteration,
)
from tf_insight.check.rules._tf_functions import (
    Loop,
    Scope,
    bounded_loop,
    call_arguments,
    called_in_loop,
    derived_from,
    enclosing_loops,
    waits_each_step,
)
from tf_insight.findings import Related, Severity

CODE = "TFI027"
NAME = "model-rebuilt-in-loop"
SEVERITY = Severity.WARNING
HOLDS_IN_TF1 = True  # about how Keras is used, the same in TF 1.x code

USES = frozenset({"predict", "evaluate", "predict_on_batch", "__call__"})
DUMMIES = frozenset({"zeros", "ones", "zeros_like", "ones_like", "empty"})


def check(module: ModuleContext) -> Iterator[Hit]:
    if module.test_module or not module.mentions(
            "predict", "evaluate", "Model", "Sequential", "load_model"):
        return
    for scope, nodes in module.focused_scopes():
        if scope is not None and module.graph.in_graph(scope) is not None:
            continue
        made = model_bindings(module, scope)
        if not made:
            continue
        uses_of = _uses(module, nodes.of(ast.Call), _stacking(nodes.of(ast.Assign)), set(made))
        trained = {call.func.value.id for call in nodes.of(ast.Call)
                   if isinstance(call.func, ast.Attribute) and call.func.attr in TRAINING
                   and isinstance(call.func.value, ast.Name)}
        parts = trained | {part for name in trained for assign in made.get(name, [])
                           for part in _given(assign.value)}
        for name, assigns in made.items():
            uses, first = uses_of.get(name, (set(), None))
            if uses & TRAINING or not uses & USES or first is None:
                continue
            if any(_given(assign.value) & parts for assign in assigns):
                continue  # made of a model trained here (`encoder` of the `autoencoder`)
            why = _WHY
            if uses & USES == {"__call__"}:  # called eagerly, a model traces nothing
                if not any(_loads(module, assign.value) for assign in assigns):
                    continue  # only its making is redone, and that is cheap
                why = _WHY_LOADED
            used = Related(module.path, module.span(first), f"`{name}` is used here")
            for assign in assigns:
                yield from _made_per_iteration(module, assign, name, scope, used, why)


def _made_per_iteration(module: ModuleContext, assign: ast.Assign, name: str, scope: Scope,
                        used: Related, why: str) -> Iterator[Hit]:
    if _kept_by_factory(module, assign.value):
        return
    loops = enclosing_loops(module, assign)
    if loops:
        if not _over_variants(module, loops[0]) and name not in loops[0].targets \
                and not _made_once(module, assign, name, loops[0]) \
                and not trains_each_iteration(module, loops[0]) \
                and not _another_per_item(module, assign, scope, loops):
            yield Hit(assign.value, f"`{name}` is a new Keras model made on every iteration of "
                      f"`{loops[0].header(module)}`, and used there", related=(used,),
                      detail=why, help=_HELP)
    elif scope is not None and (repeated := called_in_loop(module, scope)) is not None \
            and not _loaded_from_item(module, assign, scope, repeated[0]) \
            and not _on_request(module, repeated[0]):
        yield _in_repeated_function(module, assign, name, scope, repeated, used, why)


def _on_request(module: ModuleContext, site: ast.AST) -> bool:
    """The loop that calls the function waits for a person or the clock at every step (a menu:
    `choice = input()`, then `if choice == "3": show_results()`): the model is made when
    someone asks for it, not once per item."""
    loops = enclosing_loops(module, site)
    return isinstance(site, ast.Call) and bool(loops) and waits_each_step(module, site, loops[0])


def _made_once(module: ModuleContext, assign: ast.Assign, name: str, loop: Loop) -> bool:
    """Made under a create-once guard inside the loop (`if model is None: model = ...`,
    `if not model:`): made on the first iteration, reused on the others."""
    child: ast.AST = assign
    parent = module.index.parent(assign)
    while parent is not None and parent is not loop.node:
        if isinstance(parent, ast.If) and (
                (child in parent.body and _unset(parent.test, name))
                or (child in parent.orelse and _set(parent.test, name))):
            return True
        child, parent = parent, module.index.parent(parent)
    return False


def _kept_by_factory(module: ModuleContext, value: ast.expr) -> bool:
    """A function of the module that keeps the model it makes: cached (`@lru_cache`), or
    holding it in a module variable it returns once set (`global _model; if _model is not
    None: return _model`): made on the first call, the same model after."""
    factory = _factory(module, value)
    if factory is None:
        return False
    if factory.cached:
        return True
    kept = {name for statement in factory.nodes.of(ast.Global) for name in statement.names}
    returned = {node.value.id for node in factory.nodes.of(ast.Return)
                if isinstance(node.value, ast.Name) and node.value.id in kept}
    return any(_unset(test, name) or _set(test, name)
               for test in (node.test for node in factory.nodes.of(ast.If)) for name in returned)


def _unset(test: ast.expr, name: str) -> bool:
    """`name is None`, `not name`, or either of them in an `or`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return any(_unset(value, name) for value in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Name) and test.operand.id == name
    return _compared_to_none(test, name, ast.Is)


def _set(test: ast.expr, name: str) -> bool:
    """`name is not None`, `name`: the `else` branch runs while the model is not made."""
    if isinstance(test, ast.Name):
        return test.id == name
    return _compared_to_none(test, name, ast.IsNot)


def _compared_to_none(test: ast.expr, name: str, op: type[ast.cmpop]) -> bool:
    return (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], op)
            and isinstance(test.left, ast.Name) and test.left.id == name
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None)


def _another_per_item(module: ModuleContext, assign: ast.Assign, scope: Scope,
                      loops: list[Loop]) -> bool:
    """The model is loaded or made from the loop's item (`load_model(checkpoint)`,
    `Model(model.inputs, layer.output)` for each `layer`): another model each time, on purpose.
    A model made (not loaded) so counts only where the loop runs once: not inside another loop,
    nor in a function called in one (a probe per layer for each profiled input rebuilds the
    same models for every input: fastmachinelearning/hls4ml#359)."""
    if not _mentions(assign.value, loops[0].from_item):
        return False
    if _loads(module, assign.value):
        return True
    return len(loops) == 1 and (scope is None or called_in_loop(module, scope) is None)


def _loaded_from_item(module: ModuleContext, assign: ast.Assign, scope: FunctionInfo,
                      site: ast.AST) -> bool:
    """`load_model(f"model_{label}.h5")` in `forecast(label)`, called as `forecast(canton)` in
    `for canton in cantons`: each call loads another item's model, on purpose."""
    loops = enclosing_loops(module, site)
    if not (loops and isinstance(site, ast.Call) and _loads(module, assign.value)):
        return False
    targets = loops[0].targets
    given = {parameter for argument, parameter in call_arguments(site, scope)
             if parameter is not None and _mentions(argument, targets)}
    return _mentions(assign.value, derived_from(scope.nodes.of(ast.Assign), given))


_WHY = ("each new model traces its own predict/call function (TensorFlow warns of retracing "
        "from the fifth), so the work done once per model is redone for every item and every "
        "graph is kept")
_WHY_LOADED = ("the model is loaded from its file again for every item, with its weights: work "
               "done once per model, redone in every iteration")
_HELP = "make the model once, before the loop, and reuse it"


def _uses(module: ModuleContext, calls: list[ast.Call], stacking: set[ast.Call], names: set[str]
          ) -> dict[str, tuple[set[str], ast.Call | None]]:
    """What is done with each model of `names` in the scope: its methods called, `__call__`
    (not a call on a dummy input that only builds its weights: `model(tf.zeros((1, 8)))`, nor
    one that stacks it on the network being built), and the first call that computes with it."""
    found: dict[str, tuple[set[str], ast.Call | None]] = {}
    for call in calls:
        func = call.func
        if isinstance(func, ast.Name) and func.id in names:
            name, method = func.id, "__call__"
            if call in stacking or (call.args and _dummy(module, call.args[0])):
                continue
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and (
                func.value.id in names):
            name, method = func.value.id, func.attr
        else:
            continue
        methods, first = found.setdefault(name, (set(), None))
        methods.add(method)
        if first is None and method in USES:
            found[name] = (methods, call)
    return found


def _loads(module: ModuleContext, value: ast.expr) -> bool:
    """A call that loads a model from a file (`load_model(...)`, a `keras.applications` model
    with its weights), directly or in a function of the module it calls."""
    if not isinstance(value, ast.Call):
        return False
    qualname = module.qualname(value.func) or ""
    if qualname in MODEL_LOADERS or qualname.startswith("keras.applications."):
        return True
    factory = _factory(module, value)
    return factory is not None and any(
        (module.qualname(call.func) or "") in MODEL_LOADERS for call in factory.nodes.of(ast.Call))


def _factory(module: ModuleContext, value: ast.expr) -> FunctionInfo | None:
    """The function of the module that a call by its bare name runs (`make_model()`)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return module.index.module_functions().get(value.func.id)
    return None


def _given(value: ast.expr) -> set[str]:
    """The names a call making a model is given (`input_layer`, `encoded` in `Model(inputs=
    input_layer, outputs=encoded)`; `base` in `Model(base.input, ...)`), not its callee's."""
    if not isinstance(value, ast.Call):
        return set()
    given = [*value.args, *(k.value for k in value.keywords)]
    return {n.id for argument in given for n in ast.walk(argument) if isinstance(n, ast.Name)}


def _stacking(assigns: list[ast.Assign]) -> set[ast.Call]:
    """Calls that put a block on the network being built: `x = block(x)` rebinds its input to
    its output, so a loop of them makes one deeper network (a block per layer, on purpose)."""
    found = set()
    for assign in assigns:
        call = assign.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.args:
            targets = {n.id for t in assign.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if isinstance(call.args[0], ast.Name) and call.args[0].id in targets:
                found.add(call)
    return found


def _dummy(module: ModuleContext, node: ast.AST) -> bool:
    """`tf.zeros(...)`, `np.ones(...)`, `keras.ops.zeros(...)`: an input made to build."""
    return isinstance(node, ast.Call) and (module.qualname(node.func) or "").rsplit(
        ".", 1)[-1] in DUMMIES


def _over_variants(module: ModuleContext, loop: Loop) -> bool:
    """A loop over a literal list of settings (`for op in ["mul", "l1", "l2"]`: a model per
    variant, on purpose), or one that does not repeat per step (`bounded_loop`)."""
    return isinstance(loop.iter, ast.List | ast.Tuple | ast.Set) or bounded_loop(module, loop)


def _mentions(node: ast.AST, names: set[str]) -> bool:
    """`load_model(checkpoint)` in `for checkpoint in ...`: each iteration loads another model
    (an evaluator going through checkpoints), one model per item on purpose."""
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _in_repeated_function(module: ModuleContext, assign: ast.Assign, name: str, scope: Scope,
                          repeated: tuple[ast.AST, str], used: Related, why: str) -> Hit:
    assert scope is not None
    site, how = repeated
    return Hit(assign.value, f"`{name}` is a new Keras model made on every call of "
               f"`{scope.qualname}`, which is {how}",
               related=(Related(module.path, module.span(site),
                                f"`{scope.qualname}` runs repeatedly"), used),
               detail=why, help=_HELP)
