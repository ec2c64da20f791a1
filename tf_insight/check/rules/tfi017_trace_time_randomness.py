"""Python `random` / `np.random` called in code that TensorFlow traces into a graph.

## What it does
Finds calls that draw random numbers with Python's `random` module or NumPy's `np.random`
(module functions such as `np.random.uniform`, `random.random`, and the methods of generators
made by `np.random.default_rng()`, `np.random.RandomState()` or `random.Random()`) inside a graph
context: a `tf.function`, a Keras `call`/`train_step`, a loss or metric, a `tf.data` function,
or a helper called from one.

Draws inside `tf.py_function`/`tf.numpy_function` callbacks run at every step and are not
reported; seeding (`np.random.seed`) is not a draw, nor is a draw right after it seeds the
same generator with constants or a `range` loop's counter (`np.random.seed(i + 1)` then
`np.random.shuffle(order)`: every call draws the same, eagerly too); neither is a number
drawn only to make a unique name (`"grad" + str(np.random.randint(1e8))`), nor one given only
as the `seed=` of a stateful TensorFlow random op (`tf.random.uniform`, `K.random_uniform`,
`tf.nn.dropout`: the op still draws anew at every step; a stateless op's seed is reported). A
function's draws are one finding, at the first, with the others as its related locations:
they have one cause and one fix.

## Why is this bad?
Python code in a graph function runs once, while TensorFlow traces it. The number drawn then
is baked into the graph as a constant and every later step reuses it: a "random" augmentation
that always flips, a dropout mask that never changes, noise that is identical across batches.
Nothing warns; training just silently loses its randomness (and gets a new constant whenever
the function is retraced).

## Example
```python
import numpy as np
import tensorflow as tf


@tf.function
def augment(image):
    if np.random.uniform() < 0.5:
        image = tf.image.flip_left_right(image)
    return image + np.random.normal(0.0, 0.1)
```

## Use instead
```python
import tensorflow as tf

generator = tf.random.Generator.from_seed(42)


@tf.function
def augment(image):
    flip = generator.uniform([]) < 0.5
    image = tf.where(flip, tf.image.flip_left_right(image), image)
    return image + generator.normal(tf.shape(image), 0.0, 0.1)
```
In a Keras 3 layer, draw with `keras.random.uniform(..., seed=self.seed_generator)` where
`self.seed_generator = keras.random.SeedGenerator(seed)` is created in `__init__`.

## References
- [tf.function: Python side effects](https://www.tensorflow.org/guide/function#executing_python_side_effects)
- [Random number generation](https://www.tensorflow.org/guide/random_numbers)
- [keras.random](https://keras.io/api/random/)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import GraphContext
from tf_insight.check.guards import guarded_nodes
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit, Reads
from tf_insight.check.rules._tensors import context_label
from tf_insight.findings import Related, Severity

CODE = "TFI017"
NAME = "trace-time-randomness"
SEVERITY = Severity.WARNING
HOLDS_IN_TF1 = True  # a TF 1.x graph keeps the draw made while it is built

PY_RANDOM = frozenset({
    "random", "randint", "uniform", "choice", "choices", "sample", "shuffle", "gauss",
    "normalvariate", "randrange", "betavariate", "expovariate", "triangular", "getrandbits",
    "lognormvariate", "vonmisesvariate", "paretovariate", "weibullvariate", "randbytes",
    "gammavariate", "binomialvariate",
})
NOT_DRAWS = frozenset({
    "seed", "get_state", "set_state", "default_rng", "RandomState", "Generator",
    "SeedSequence", "bit_generator", "spawn", "getstate", "setstate", "Random", "PCG64",
    "MT19937", "Philox", "SFC64", "BitGenerator", "jumped",
})
GENERATOR_FACTORIES = frozenset({
    "numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator",
    "random.Random", "random.SystemRandom",
})
# A name bound to a generator in any function (`rng = np.random.default_rng()`) is looked up
# by name in every graph function.
READS = Reads(calls=frozenset(name.rsplit(".", 1)[-1] for name in GENERATOR_FACTORIES))
# Stateful random ops: with an op seed they still draw anew at every run of the graph
STATEFUL_RANDOM = {
    "tensorflow.random": frozenset({"uniform", "normal", "truncated_normal", "gamma", "poisson",
                                    "categorical", "shuffle"}),
    "tensorflow.nn": frozenset({"dropout"}),
    "keras.backend": frozenset({"random_uniform", "random_normal", "truncated_normal",
                                "random_binomial", "random_bernoulli", "dropout"}),
}
SUGGESTIONS = {
    "normal": "normal", "randn": "normal", "standard_normal": "normal", "gauss": "normal",
    "normalvariate": "normal", "randint": "uniform(..., dtype=int)", "integers":
    "uniform(..., dtype=int)", "randrange": "uniform(..., dtype=int)", "choice": "categorical",
    "choices": "categorical", "shuffle": "shuffle", "permutation": "shuffle",
    "truncated_normal": "truncated_normal", "binomial": "binomial", "gamma": "gamma",
    "poisson": "poisson",
}


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("random") or not (
        module.imports.imports_any("numpy", "random") or "random" in module.imports.aliases
    ):
        return
    generators = _generator_names(module)
    for function, context in module.graph.focused_functions():
        draws = [(node, draw) for node in function.calls
                 if (draw := _draw(module, node, generators)) is not None
                 and node not in guarded_nodes(module, function) and not _in_text(module, node)
                 and not _seeds_stateful_op(module, function, node)
                 and not _reseeded(module, function, node)]
        if draws:
            yield _draws_hit(module, function, context, draws)


def _draws_hit(module: ModuleContext, function: FunctionInfo, context: GraphContext,
               draws: list[tuple[ast.Call, str]]) -> Hit:
    """One finding per function: its draws share one cause (the function is traced) and one
    fix, so the first is reported and the others are its related locations."""
    node, draw = min(draws, key=lambda d: (d[0].lineno, d[0].col_offset))
    others = sorted((d for d, _ in draws if d is not node), key=lambda d: (d.lineno, d.col_offset))
    tf_name = SUGGESTIONS.get(draw, "uniform").split("(")[0]
    keras_op = "keras.random.categorical" if tf_name == "categorical" else f"keras.random.{tf_name}"
    more = ""
    if others:
        lines = ", ".join(str(o.lineno) for o in others)
        more = f" (as do the draws at lines {lines})" if len(others) > 1 else \
            f" (as does the draw at line {lines})"
    return Hit(
        node,
        f"`{module.source.segment(node.func)}(...)` in {context_label(function, context)} "
        f"draws its number once, while the function is traced{more}",
        related=tuple(Related(module.path, module.span(o),
                              f"`{module.source.segment(o.func)}(...)` draws once per trace too")
                      for o in others),
        detail="the value is baked into the graph and reused at every step",
        help=f"draw with `tf.random.{tf_name}`/a `tf.random.Generator` or "
        f"`{keras_op}(..., seed=seed_generator)`",
    )


def _in_text(module: ModuleContext, call: ast.Call) -> bool:
    """`"PyFuncGrad" + str(np.random.randint(1e8))`, `f"tmp_{random.random()}"`: a number
    drawn to make a unique name, not a value the graph computes with."""
    parent = module.index.parent(call)
    return isinstance(parent, ast.FormattedValue) or (
        isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
        and parent.func.id == "str")


def _seeds_stateful_op(module: ModuleContext, function: FunctionInfo, call: ast.Call) -> bool:
    """`seed = np.random.randint(1e7)` given only as the `seed=` of a stateful TensorFlow random
    op (`tf.random.uniform`, `K.random_uniform`, `tf.nn.dropout`): the op seed fixes the op's
    sequence, and the op still draws anew at every step (not a stateless op's `seed=`)."""
    parent = module.index.parent(call)
    if isinstance(parent, ast.keyword):
        return _stateful_seed(module, parent)
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    uses = [node for node in function.nodes.of(ast.Name)
            if node.id == name and isinstance(node.ctx, ast.Load)]
    return bool(uses) and all(_stateful_seed(module, module.index.parent(use)) or _none_test(
        module.index.parent(use)) for use in uses)


def _reseeded(module: ModuleContext, function: FunctionInfo, call: ast.Call) -> bool:
    """`np.random.seed(i + 1)` earlier in the draw's own block (`np.random.shuffle(order)`
    after it), seeded with constants and the counters of `range` loops: every call draws the
    same numbers, eagerly too, so drawing them once per trace changes nothing."""
    rng, _, _ = (module.qualname(call.func) or "").rpartition(".")
    if rng not in ("numpy.random", "random"):
        return False  # a generator object's draw: the module's seed does not fix it
    statement = module.index.statement_of(call)
    holder = module.index.parent(statement)
    if holder is None:
        return False
    # the statement list holding the draw's statement: a body, an `else`, a handler's body...
    block = next(value for _, value in ast.iter_fields(holder)
                 if isinstance(value, list) and statement in value)
    seeds = [earlier.value for earlier in block[:block.index(statement)]
             if isinstance(earlier, ast.Expr) and isinstance(earlier.value, ast.Call)
             and module.qualname(earlier.value.func) == f"{rng}.seed" and earlier.value.args]
    if not seeds:
        return False
    counters = {loop.target.id for loop in function.nodes.of(ast.For)
                if isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)
                and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range"}
    return any(all(isinstance(node, ast.Constant | ast.operator | ast.expr_context | ast.BinOp)
                   or (isinstance(node, ast.Name) and node.id in counters)
                   for node in ast.walk(seed.args[0])) for seed in seeds)


def _stateful_seed(module: ModuleContext, node: ast.AST | None) -> bool:
    call = module.index.parent(node) if isinstance(node, ast.keyword) else None
    if not (isinstance(node, ast.keyword) and node.arg == "seed" and isinstance(call, ast.Call)):
        return False
    module_name, _, op = (module.qualname(call.func) or "").rpartition(".")
    return op in STATEFUL_RANDOM.get(module_name, ())


def _none_test(node: ast.AST | None) -> bool:
    """`if seed is None:`: a look at the name, not a use of its value."""
    return isinstance(node, ast.Compare) and any(
        isinstance(c, ast.Constant) and c.value is None for c in node.comparators)


def _draw(module: ModuleContext, call: ast.Call, generators: set[str]) -> str | None:
    """The sampling function's name when `call` draws Python/NumPy random numbers."""
    qualname = module.qualname(call.func)
    if qualname is not None:
        parts = qualname.split(".")
        if len(parts) == 2 and parts[0] == "random" and parts[1] in PY_RANDOM:
            return parts[1]
        if len(parts) == 3 and parts[:2] == ["numpy", "random"] and parts[2] not in NOT_DRAWS:
            return parts[2] if parts[2][:1].islower() else None
        if qualname in GENERATOR_FACTORIES:
            return None
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr not in NOT_DRAWS:
        receiver = func.value
        if isinstance(receiver, ast.Call) and module.qualname(receiver.func) in (
            "numpy.random.default_rng", "numpy.random.RandomState", "random.Random"
        ):
            return func.attr  # np.random.default_rng().normal()
        key = _receiver_key(receiver)
        if key is not None and key in generators:
            return func.attr
    return None


def _receiver_key(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
        node.value.id == "self"
    ):
        return f"self.{node.attr}"
    return None


def _generator_names(module: ModuleContext) -> set[str]:
    """Names (`rng`) and attributes (`self.rng`) bound to NumPy/Python random generators."""
    found: set[str] = set()
    if not module.mentions("default_rng", "Random", "Generator"):
        return found  # no factory spelled
    for node, call, _scope in module.assigned_calls(*READS.calls):
        if module.qualname(call.func) in GENERATOR_FACTORIES:
            for target in node.targets:
                key = _receiver_key(target)
                if key is not None:
                    found.add(key)
    return found
