"""`tf.random.set_seed` after a `tf.function` that draws random numbers was first called.

## What it does
Finds a call of `tf.random.set_seed` (`tf.compat.v1.set_random_seed`,
`keras.utils.set_random_seed`) in code that runs eagerly, when earlier in the same function
(or module) a `tf.function` of the module was called that draws with a stateful random op and
no op seed (`tf.random.normal(shape)`, `tf.random.uniform`, `tf.nn.dropout`,
`tf.image.random_flip_left_right`, ..., in it or in the functions it calls), and the same
`tf.function` is called again after the seed is set (later, or in the next iteration of a loop
around both).

Not reported: a seed set before the first call (the trace sees it), random ops given
`seed=`, `tf.random.Generator` and stateless ops (they take their seeds as arguments), and
calls of functions that do not draw.

## Why is this bad?
A random op takes its seed when it is traced: the global seed then, and none when there was
none. The first call traced the function without a seed, and setting one later does not
retrace it, so its draws are never repeatable: reseeding before each repetition of an
experiment gives different numbers each time, and different ones in each run of the script
(TF 2.21: a warmed-up `tf.function` drawing `tf.random.normal` gives two different results
after two `set_seed(7)`; the same function called eagerly repeats). A function traced after
the seed was set, or whose op has a `seed=`, repeats after each `set_seed`.

## Example
```python
import tensorflow as tf


@tf.function
def jitter(points):
    return points + tf.random.normal(tf.shape(points), stddev=0.1)


points = tf.zeros((4,))
jitter(points)  # warm-up
for repetition in range(2):
    tf.random.set_seed(7)
    print(jitter(points))
```

## Use instead
```python
import tensorflow as tf

tf.random.set_seed(7)  # before the first call: the trace takes it


@tf.function
def jitter(points):
    return points + tf.random.normal(tf.shape(points), stddev=0.1)


points = tf.zeros((4,))
jitter(points)  # warm-up
for repetition in range(2):
    tf.random.set_seed(7)
    print(jitter(points))
```

## References
- [tf.random.set_seed](https://www.tensorflow.org/api_docs/python/tf/random/set_seed)
- [Random number generation](https://www.tensorflow.org/guide/random_numbers)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import FunctionInfo
from tf_insight.check.rules import Hit
from tf_insight.check.rules._tf_functions import (
    Scope,
    TfFunction,
    enclosing_loops,
    reached_functions,
    tf_functions,
)
from tf_insight.findings import Related, Severity

CODE = "TFI038"
NAME = "seed-set-after-trace"
SEVERITY = Severity.WARNING

SET_SEED = frozenset({"tensorflow.random.set_seed", "tensorflow.compat.v1.set_random_seed",
                      "tensorflow.compat.v1.random.set_random_seed", "tensorflow.set_random_seed",
                      "keras.utils.set_random_seed", "tensorflow.keras.utils.set_random_seed"})
# stateful random ops → the position of their `seed` argument
_IMAGE = {f"tensorflow.image.random_{name}": position for name, position in (
    ("flip_left_right", 1), ("flip_up_down", 1), ("brightness", 2), ("contrast", 3),
    ("hue", 2), ("saturation", 3), ("crop", 2), ("jpeg_quality", 3))}
STATEFUL_DRAWS: dict[str, int] = {
    **{f"tensorflow.random.{name}": 4 for name in ("normal", "uniform", "truncated_normal")},
    "tensorflow.random.shuffle": 1, "tensorflow.random.categorical": 3,
    "tensorflow.random.gamma": 4, "tensorflow.random.poisson": 3,
    "tensorflow.nn.dropout": 3, **_IMAGE,
}


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("set_seed", "set_random_seed"):
        return
    seeds_by_scope: dict[Scope, list[ast.Call]] = {}
    for call, scope in module.calls_named("set_seed", "set_random_seed"):
        if module.refers_to(call.func, SET_SEED) and (
                scope is None or module.graph.in_graph(scope) is None):
            seeds_by_scope.setdefault(scope, []).append(call)
    if not seeds_by_scope:
        return
    functions = tf_functions(module)
    draws: dict[FunctionInfo, ast.Call | None] = {}
    for scope, seeds in seeds_by_scope.items():
        calls: dict[TfFunction, list[ast.Call]] = {}
        for call, call_scope in module.index.calls:
            if call_scope is scope:
                called = functions.resolve(call.func, scope)
                if called is not None and called.info is not None:
                    calls.setdefault(called, []).append(call)
        first_seed = min(seeds, key=_position)
        for called, its_calls in calls.items():
            assert called.info is not None
            if called.info not in draws:
                draws[called.info] = _seedless_draw(module, called.info)
            draw = draws[called.info]
            first = min(its_calls, key=_position)
            if draw is None or _position(first) > _position(first_seed):
                continue
            seed = _seed_before_another_call(module, seeds, first, its_calls)
            if seed is not None:
                yield _hit(module, seed, called, first, draw)


def _position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


def _seed_before_another_call(module: ModuleContext, seeds: list[ast.Call], first: ast.Call,
                              calls: list[ast.Call]) -> ast.Call | None:
    """The first seed set after `first` that the function's next call follows (no other seed
    between them), or that is in a loop around a call (the next iteration calls it again)."""
    ordered = sorted(seeds, key=_position)
    for index, seed in enumerate(ordered):
        if _position(seed) < _position(first):
            continue
        later = [_position(call) for call in calls if _position(call) > _position(seed)]
        if later and (index + 1 == len(ordered)
                      or min(later) < _position(ordered[index + 1])):
            return seed
        seed_loops = {loop.node for loop in enclosing_loops(module, seed)}
        if any(seed_loops & {loop.node for loop in enclosing_loops(module, call)}
               for call in calls):
            return seed
    return None


def _seedless_draw(module: ModuleContext, function: FunctionInfo) -> ast.Call | None:
    """A stateful random op without an op seed in `function` or what it calls."""
    for reached in reached_functions(module, function):
        for call in reached.calls:
            qualname = module.qualname(call.func) or ""
            position = STATEFUL_DRAWS.get(qualname)
            if position is not None and len(call.args) <= position and not any(
                    keyword.arg in ("seed", None) for keyword in call.keywords):
                return call
    return None


def _hit(module: ModuleContext, seed: ast.Call, called: TfFunction, first: ast.Call,
         draw: ast.Call) -> Hit:
    name = called.label
    return Hit(
        seed,
        f"`{module.source.segment(seed.func)}` comes after `{name}` was first called "
        f"(line {first.lineno}): its random ops were traced without a seed, and setting one "
        "now does not retrace it",
        related=(Related(module.path, module.span(first), "traced here, before any seed"),
                 Related(module.path, module.span(draw), "draws with no op seed")),
        detail="a random op takes its seed when it is traced; the calls after this one reuse "
        "that trace, so their draws differ from run to run and after each reseeding",
        help=f"set the seed before the first call of `{name}`, or draw with stateless ops "
        "given a seed (`tf.random.stateless_normal(shape, seed)`) or a `tf.random.Generator`")
